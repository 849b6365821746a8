"""``noveval run <name>`` (and a generic ``score <name>``) generated from a system's declaration.

The command's options are exactly the fields of the system's options class
(:class:`noveval.options.RunOptions` subclass), plus ``-o/--out``, ``-m/--model`` and
``--json``: nothing is declared twice, so the CLI and ``noveval.run(name, options=...)``
cannot drift apart. Errors the library reports as ``options.<field>`` are shown with the
flag (``--field-name``).
"""

from __future__ import annotations

import contextlib
import inspect
import types
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any, Union

import typer
from pydantic import BaseModel

from noveval.cli.common import fail, user_errors
from noveval.errors import InputError
from noveval.options import GENERATION_FIELDS, RunOptions, flags_of

if typing.TYPE_CHECKING:
    from noveval.runs import Run

__all__ = ["cli_fields", "flag_errors", "make_run_command", "make_score_command", "renamed_field", "run_in_cli"]

JsonOpt = Annotated[bool, typer.Option("--json", help="Print scores.json instead of the summary table.")]
OutOpt = Annotated[Path, typer.Option("--out", "-o", help="Run directory (created; an existing run with the same settings is resumed).")]


def _cli_type(annotation: Any) -> Any:
    """The type Typer parses for a field's annotation (paths for path-or-string fields)."""
    origin = typing.get_origin(annotation)
    if origin in (Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        optional = len(args) < len(typing.get_args(annotation))
        inner = Path if Path in args else (args[0] if len(args) == 1 else str)
        if inner is not Path and len(args) == 1:
            inner = _cli_type(inner)
        return inner | None if optional else inner
    if origin is dict:
        return list[str]  # NAME=VALUE, repeatable (the options class parses it)
    if origin in (list, tuple):
        (item, *_) = typing.get_args(annotation) or (str,)
        return list[_cli_type(item)]  # type: ignore[misc]
    return annotation


def cli_fields(cls: type[BaseModel]) -> list[str]:
    """The fields of ``cls`` in CLI order: the system's own first, then the shared run options."""
    base = [n for n in RunOptions.model_fields if n in cls.model_fields]
    declared = [n for n in getattr(cls, "__annotations__", {}) if n in cls.model_fields and n not in base]
    mixed_in = [n for n in cls.model_fields if n not in base and n not in declared]
    return declared + mixed_in + base


def _params(cls: type[BaseModel]) -> list[inspect.Parameter]:
    kw = inspect.Parameter.KEYWORD_ONLY
    hints = typing.get_type_hints(cls)
    out = []
    for name in cli_fields(cls):
        f = cls.model_fields[name]
        flags = flags_of(cls, name)
        default = None if f.is_required() else f.get_default(call_default_factory=True)
        ann = _cli_type(hints[name])
        if isinstance(f.json_schema_extra, dict) and f.json_schema_extra.get("json"):
            ann = str | None  # one JSON text (the options class parses it)
        if f.is_required():
            ann = typing.get_args(ann)[0] if typing.get_origin(ann) in (Union, types.UnionType) else ann
        if ann is bool and default is True and len(flags) == 1 and "/" not in flags[0]:
            flags = [f"{flags[0]}/--no-{flags[0].removeprefix('--')}"]
        meta: dict[str, Any] = {}
        for c in f.metadata:
            for attr, key in (("ge", "min"), ("le", "max")):
                if getattr(c, attr, None) is not None and ann in (int, float, int | None, float | None):
                    meta[key] = getattr(c, attr)
        text = f.description or ""
        if name in GENERATION_FIELDS and f is not RunOptions.model_fields[name]:  # the system's own budget / temperature
            text += " Another value holds for every call to the model under test."
        opt = typer.Option(*flags, help=text, show_default=default not in (None, [], ()), **meta)
        out.append(inspect.Parameter(name, kw, default=... if f.is_required() else default,
                                     annotation=Annotated[ann, opt]))
        for i, alias in enumerate(_aliases(cls, name)):  # an older spelling, hidden, for one release
            hidden = typer.Option(alias, hidden=True, help=f"Old spelling of {flags[0].split('/')[0]}.")
            optional = ann if typing.get_origin(ann) in (Union, types.UnionType) else ann | None
            out.append(inspect.Parameter(f"{ALIAS}{i}_{name}", kw, default=None, annotation=Annotated[optional, hidden]))
    return out


ALIAS = "_alias"


def _aliases(cls: type[BaseModel], name: str) -> list[str]:
    extra = cls.model_fields[name].json_schema_extra
    got = extra.get("aliases") if isinstance(extra, dict) else None
    return [str(a) for a in got] if isinstance(got, list) else []


def _merge_aliases(kwargs: dict[str, Any]) -> dict[str, Any]:
    """Fold hidden old spellings into their fields (the new spelling wins when both are given)."""
    out = {k: v for k, v in kwargs.items() if not k.startswith(ALIAS)}
    for k, v in kwargs.items():
        if k.startswith(ALIAS) and v is not None:
            field = k.split("_", 2)[2]
            out[field] = v if out.get(field) in (None, False) else out[field]
    return out


def _flag_of(cls: type[BaseModel], field: str | None, extra: dict[str, str]) -> str | None:
    if not field:
        return field
    head, _, rest = field.partition(".")
    if head == "options" and rest:
        name = rest.split(".")[0]
        if name in cls.model_fields:
            return flags_of(cls, name)[0].split("/")[0] + rest[len(name):]
    return extra.get(field, field)


@contextlib.contextmanager
def flag_errors(cls: type[BaseModel], extra: dict[str, str] | None = None) -> Iterator[None]:
    """Re-raise an :class:`InputError` about ``options.<field>`` as one about its flag."""
    try:
        yield
    except InputError as e:
        field = _flag_of(cls, e.field, extra or {})
        if field == e.field:
            raise
        raise InputError(e.path, e.line, field, e.message) from e


@contextlib.contextmanager
def renamed_field(field: str, flag: str) -> Iterator[None]:
    """Re-raise an :class:`InputError` about the library's ``field`` as one about the command's ``flag``."""
    try:
        yield
    except InputError as e:
        if e.field != field:
            raise
        raise InputError(e.path, e.line, flag, e.message) from e


def _values(cls: type[BaseModel], kwargs: dict[str, Any]) -> dict[str, Any]:
    """The options the user gave (defaults left out, so the options class's own defaults apply)."""
    out = {}
    for name, v in kwargs.items():
        f = cls.model_fields[name]
        if not f.is_required() and v == f.get_default(call_default_factory=True):
            continue
        if v == [] and typing.get_origin(_cli_type(f.annotation)) is not list:
            continue
        out[name] = v
    return out


def make_run_command(bench: Any) -> Callable[..., None]:
    """The ``noveval run <name>`` command of a system declaration (:class:`noveval.benchmarks.Benchmark`)."""
    cls: type[RunOptions] = bench.options
    model_help = bench.model_help or "Model spec: local | local:/path.gguf | openai/<model> | openai-compatible/<model>@<url>."
    model_default = bench.model_default

    def command(**kwargs: Any) -> None:
        out: Path = kwargs.pop("out")
        model: str = kwargs.pop("model")
        json_out: bool = kwargs.pop("json_out")
        _run_cli(bench, cls, model, out, json_out, _values(cls, _merge_aliases(kwargs)))

    kw = inspect.Parameter.KEYWORD_ONLY
    params = [
        inspect.Parameter("out", kw, annotation=OutOpt),
        inspect.Parameter("model", kw, default=model_default,
                          annotation=Annotated[str, typer.Option("--model", "-m", help=model_help)]),
        *_params(cls),
        inspect.Parameter("json_out", kw, default=False, annotation=JsonOpt),
    ]
    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__name__ = "run"
    command.__doc__ = bench.summary
    return command


def _run_cli(bench: Any, cls: type[RunOptions], model: str, out: Path, json_out: bool, values: dict[str, Any]) -> None:
    """Run through the runner, show the outcome, exit with the code the outcome calls for."""
    from noveval.benchmarks._runner import run_benchmark

    with user_errors(), flag_errors(cls, {"data": flags_of(cls, bench.data_option)[0] if bench.data_option else "data"}):
        from noveval.options import as_options

        opts = as_options(cls, values)
    run_in_cli(f"{bench.name} run", opts, lambda: run_benchmark(bench, model, out, options=opts), json_out=json_out)


def run_in_cli(label: str, opts: RunOptions, start: Callable[[], Run], *, json_out: bool = False,
               summary: bool = True) -> Run:
    """A run through the runner (``start()``: :func:`~noveval.benchmarks._runner.run_benchmark` or
    :func:`~noveval.benchmarks._runner.run_task`) as a command: one call ledger with the budget, a
    heartbeat, the outcome shown (``summary``: the scores summary or ``--json``; else only what the
    calls cost and why the run is incomplete), and the exit code the outcome calls for (2 bad
    input or an endpoint that fails its check, 3 incomplete, 4 stopped by the budget).

    Returns:
        The run, when it is complete (or ``opts.allow_failures``).
    """
    from noveval.benchmarks._runner import BudgetStopped, IncompleteRun
    from noveval.cli.outcome import EXIT_BUDGET, EXIT_INCOMPLETE, _command_cost, finish
    from noveval.models.calls import EndpointError, ledger_scope
    from noveval.models.costs import Budget, load_prices
    from noveval.progress import heartbeat

    with user_errors():
        load_prices()  # a bad price file or budget: one line, before anything runs
        if opts.max_cost is not None:
            Budget(opts.max_cost)
    note = " (a submitted batch keeps running at the provider: the same command collects it)" if opts.batch else ""
    with ledger_scope(max_cost=opts.max_cost) as ledger, heartbeat(label, status=ledger.progress_line):
        code = 0
        with user_errors(note), flag_errors(type(opts)):
            try:
                run = start()
                shown: Any = run.group or list(run.folders)
            except IncompleteRun as e:
                run, code = e.run, EXIT_INCOMPLETE
                shown = e.run.group or list(e.run.folders)
                if "not a result" in str(e) or not summary:
                    typer.echo(f"error: {e}", err=True)
            except BudgetStopped as e:
                finish(list(e.run.folders) if summary else None, ledger, json_out=json_out)
                typer.echo(f"stopped: {e}; finished items are saved: run the same command with a higher --max-cost "
                           "to finish", err=True)
                raise typer.Exit(EXIT_BUDGET) from None
            except EndpointError as e:
                if not e.midrun:
                    raise
                typer.echo(f"error: {e}; finished items are saved: run the same command again to resume", err=True)
                raise typer.Exit(EXIT_INCOMPLETE) from None
        if summary:
            finish(shown, ledger, json_out=json_out)
        else:
            _command_cost(ledger)
    if code:
        raise typer.Exit(code)
    return run


def make_score_command(bench: Any) -> Callable[..., None]:
    """A generic ``noveval score <name> RUN`` from the system's ``score_options`` (recomputes scores.json)."""
    cls = bench.score_options

    def command(**kwargs: Any) -> None:
        from noveval.benchmarks._runner import score_benchmark
        from noveval.cli.outcome import finish
        from noveval.models.calls import ledger_scope

        run_dir: Path = kwargs.pop("run_dir")
        json_out: bool = kwargs.pop("json_out")
        with ledger_scope() as ledger:
            with user_errors():
                if not run_dir.is_dir():
                    fail(f"{run_dir}: not a run folder")
                with flag_errors(cls) if cls is not None else contextlib.nullcontext():
                    score_benchmark(bench, run_dir, _values(cls, _merge_aliases(kwargs)) if cls is not None else None)
            finish(run_dir, ledger, json_out=json_out)

    kw = inspect.Parameter.KEYWORD_ONLY
    params = [
        inspect.Parameter("run_dir", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                          annotation=Annotated[Path, typer.Argument(help="The run folder.")]),
        *(_params(cls) if cls is not None else []),
        inspect.Parameter("json_out", kw, default=False, annotation=JsonOpt),
    ]
    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__name__ = "score"
    command.__doc__ = f"Score a {bench.title} run folder from its saved outputs (writes scores.json)."
    return command

