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
from typing import Annotated, Any, TypeVar, Union

import typer
from pydantic import BaseModel

from noveval.cli.common import fail, user_errors
from noveval.cli.options import (
    FIELD_OF,
    JsonOpt,
    OutOpt,
    RunFolderOption,
    ShowOptions,
    cli_fields,
    field_option,
    option_info,
)
from noveval.cli.options import _cli_type as _cli_type
from noveval.cli.options import _extra as _extra
from noveval.errors import InputError
from noveval.options import (
    ModelOption,
    OptionsT,
    RunOptions,
    as_options,
    flags_of,
)

if typing.TYPE_CHECKING:
    from noveval.runs import Run

__all__ = ["FIELD_OF", "JsonOpt", "OutOpt", "RunFolderOption", "ShowOptions", "cli_fields", "field_option",
           "flag_errors", "make_run_command", "make_score_command", "option_info", "options_command", "renamed_field",
           "run_in_cli"]

R = TypeVar("R")


def _params(cls: type[BaseModel], names: list[str] | None = None) -> list[inspect.Parameter]:
    kw = inspect.Parameter.KEYWORD_ONLY
    out = []
    for name in names if names is not None else cli_fields(cls):
        f = cls.model_fields[name]
        ann = field_option(cls, name)
        argument = bool(_extra(cls, name, "argument"))
        default = None if f.is_required() else f.get_default(call_default_factory=True)
        if argument and default is None and typing.get_origin(typing.get_args(ann)[0]) is list:
            default = []
        out.append(inspect.Parameter(name, kw, default=... if f.is_required() and not argument else default,
                                     annotation=ann))
        base = typing.get_args(ann)[0]
        optional = base if typing.get_origin(base) in (Union, types.UnionType) or typing.get_origin(base) is list \
            else base | None
        shown = name.upper() if argument else flags_of(cls, name)[0].split("/")[0]
        for i, alias in enumerate(_aliases(cls, name)):  # an older spelling, hidden, for one release
            hidden = typer.Option(alias, hidden=True, help=f"Old spelling of {shown}.")
            FIELD_OF[hidden] = (cls, name)
            out.append(inspect.Parameter(f"{ALIAS}{i}_{name}", kw, default=None, annotation=Annotated[optional, hidden]))
    return out


ALIAS = "_alias"


def _aliases(cls: type[BaseModel], name: str) -> list[str]:
    extra = cls.model_fields[name].json_schema_extra
    got = extra.get("aliases") if isinstance(extra, dict) else None
    return [str(a) for a in got] if isinstance(got, list) else []


def _merge_aliases(kwargs: dict[str, Any], cls: type[BaseModel] | None = None) -> dict[str, Any]:
    """Fold hidden old spellings into their fields (the new spelling wins when both are given;
    a positional argument given both ways is an error).

    Raises:
        InputError: a positional argument of ``cls`` given positionally and by its old option.
    """
    out = {k: v for k, v in kwargs.items() if not k.startswith(ALIAS)}
    for k, v in kwargs.items():
        if k.startswith(ALIAS) and v not in (None, []):
            field = k.split("_", 2)[2]
            if out.get(field) in (None, False, []):
                out[field] = v
            elif cls is not None and _extra(cls, field, "argument"):
                old = _aliases(cls, field)[0]
                raise InputError(None, None, old, f"give the {field.replace('_', ' ')} once: positionally or with "
                                 f"{old}, not both")
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


def options_command(cls: type[OptionsT], *, flags: dict[str, str] | None = None
                    ) -> Callable[[Callable[[OptionsT], R]], Callable[..., R]]:
    """A command whose parameters are the fields of ``cls``, from a function taking the validated options.

    Each field is one option (:func:`field_option`; a field made with ``option(argument=True)``
    is positional), the user's values are validated by ``cls`` (allowed values, ranges, the
    class's own checks), and a bad one ends the command with one line naming its flag
    (``--field-name: ...``), exit 2. The same generator makes ``noveval run <name>``.

    Args:
        cls: The command's options class.
        flags: Further library field names -> the command's flags, for errors the function's
            library calls raise (e.g. ``{"data": "--input"}``).
    """
    def wrap(fn: Callable[[OptionsT], R]) -> Callable[..., R]:
        def command(**kwargs: Any) -> R:
            with user_errors(), flag_errors(cls, flags):
                values = _values(cls, _merge_aliases(kwargs, cls))
                for name in cli_fields(cls):
                    if _extra(cls, name, "argument") and cls.model_fields[name].is_required() and not values.get(name):
                        raise InputError(None, None, name.upper(),
                                         f"missing: give the {name.replace('_', ' ')} as the first argument")
                return fn(as_options(cls, values))

        command.__signature__ = inspect.Signature(_params(cls))  # type: ignore[attr-defined]
        command.__name__ = fn.__name__
        command.__qualname__ = fn.__qualname__
        command.__module__ = fn.__module__
        command.__doc__ = fn.__doc__
        command.__wrapped__ = fn  # type: ignore[attr-defined]
        command.__annotations__ = {}  # the signature says it all (typing would resolve these in fn's module)
        command.options = cls  # type: ignore[attr-defined]
        return command

    return wrap


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
    model_help = bench.model_help or None
    model_default = bench.model_default

    def command(**kwargs: Any) -> None:
        out: Path = kwargs.pop("out")
        model: str = kwargs.pop("model")
        json_out: bool = kwargs.pop("json_out")
        _run_cli(bench, cls, model, out, json_out, _values(cls, _merge_aliases(kwargs, cls)))

    kw = inspect.Parameter.KEYWORD_ONLY
    params = [
        inspect.Parameter("out", kw, annotation=OutOpt),
        inspect.Parameter("model", kw, default=model_default,
                          annotation=field_option(ModelOption, "model", help=model_help)),
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

        run_dir: Path | None = kwargs.pop("run_dir")
        json_out: bool = kwargs.pop("json_out")
        with ledger_scope() as ledger:
            with user_errors():
                if run_dir is None:
                    raise InputError(None, None, "RUN_DIR", "missing: give the run folder as the first argument")
                if not run_dir.is_dir():
                    fail(f"{run_dir}: not a run folder")
                with flag_errors(cls) if cls is not None else contextlib.nullcontext():
                    score_benchmark(bench, run_dir, _values(cls, _merge_aliases(kwargs, cls)) if cls is not None else None)
            finish(run_dir, ledger, json_out=json_out)

    kw = inspect.Parameter.KEYWORD_ONLY
    params = [
        inspect.Parameter("run_dir", kw, default=None, annotation=field_option(RunFolderOption, "run_dir")),
        *(_params(cls) if cls is not None else []),
        inspect.Parameter("json_out", kw, default=False, annotation=JsonOpt),
    ]
    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__name__ = "score"
    command.__doc__ = f"Score a {bench.title} run folder from its saved outputs (writes scores.json)."
    return command

