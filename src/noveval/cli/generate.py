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
from typing import Annotated, Any, Literal, TypeVar, Union

import typer
from pydantic import BaseModel

from noveval.cli.common import fail, user_errors
from noveval.errors import InputError
from noveval.options import (
    GENERATION_FIELDS,
    ModelOption,
    OptionsT,
    OutOption,
    RunOptions,
    as_options,
    flags_of,
    option,
)

__all__ = ["FIELD_OF", "cli_fields", "field_option", "option_info", "flag_errors", "make_run_command", "make_score_command",
           "options_command", "renamed_field"]

R = TypeVar("R")



def _cli_type(annotation: Any) -> Any:
    """The type Typer parses for a field's annotation (paths for path-or-string fields; a
    ``Literal`` as text, which the options class checks, so a bad value reads ``--flag: ...``)."""
    origin = typing.get_origin(annotation)
    if origin is Literal:
        return str
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


def _choices(annotation: Any) -> list[str]:
    """The allowed values of a ``Literal`` field (also inside ``X | None``); empty for other types."""
    if typing.get_origin(annotation) is Literal:
        return [str(a) for a in typing.get_args(annotation)]
    if typing.get_origin(annotation) in (Union, types.UnionType):
        return [c for a in typing.get_args(annotation) for c in _choices(a)]
    return []


def cli_fields(cls: type[BaseModel]) -> list[str]:
    """The fields of ``cls`` in CLI order: the system's own first, then the shared run options."""
    base = [n for n in RunOptions.model_fields if n in cls.model_fields]
    declared = [n for n in getattr(cls, "__annotations__", {}) if n in cls.model_fields and n not in base]
    mixed_in = [n for n in cls.model_fields if n not in base and n not in declared]
    return declared + mixed_in + base


FIELD_OF: dict[Any, tuple[type[BaseModel], str]] = {}
"""Every Typer option / argument made here -> the options class and field it was made from
(how tests/cli/test_options_declared_once.py maps each option of each command to its declaration)."""


def _extra(cls: type[BaseModel], name: str, key: str) -> Any:
    extra = cls.model_fields[name].json_schema_extra
    return extra.get(key) if isinstance(extra, dict) else None


def field_option(cls: type[BaseModel], name: str, **typer_kw: Any) -> Any:
    """``Annotated[type, typer.Option(...)]`` of field ``name`` of ``cls``: its flags, help, range
    and allowed values as the options class declares them (the one declaration of the option).

    Args:
        cls: The options class.
        name: The field.
        **typer_kw: Typer settings that are not the option's meaning (``callback``, ``is_eager``,
            ``hidden``, ``show_default``; ``help`` where the command's declaration words it).
    """
    ann, info = _typed_option(cls, name, **typer_kw)
    return Annotated[ann, info]


def option_info(cls: type[BaseModel], name: str, **typer_kw: Any) -> Any:
    """The Typer option of field ``name`` of ``cls`` (:func:`field_option`) for a hand-written
    ``Annotated[type, option_info(...)]`` that mypy reads as a type."""
    return _typed_option(cls, name, **typer_kw)[1]


def _typed_option(cls: type[BaseModel], name: str, **typer_kw: Any) -> tuple[Any, Any]:
    f = cls.model_fields[name]
    hint = typing.get_type_hints(cls)[name]
    flags = flags_of(cls, name)
    default = None if f.is_required() else f.get_default(call_default_factory=True)
    ann = _cli_type(hint)
    if _extra(cls, name, "json"):
        ann = str | None  # one JSON text (the options class parses it)
    if f.is_required() and not _extra(cls, name, "argument"):
        ann = typing.get_args(ann)[0] if typing.get_origin(ann) in (Union, types.UnionType) else ann
    if ann is bool and default is True and len(flags) == 1 and "/" not in flags[0]:
        flags = [f"{flags[0]}/--no-{flags[0].removeprefix('--')}"]
    meta: dict[str, Any] = {}
    for c in f.metadata:
        for attr, key in (("ge", "min"), ("le", "max")):
            if getattr(c, attr, None) is not None and ann in (int, float, int | None, float | None):
                meta[key] = getattr(c, attr)
    if choices := _choices(hint):
        meta["metavar"] = "[" + "|".join(choices) + "]"
    text = typer_kw.pop("help", None) or f.description or ""
    if name in GENERATION_FIELDS and cls.model_fields[name] is not RunOptions.model_fields.get(name) \
            and issubclass(cls, RunOptions):  # the system's own budget / temperature
        text += " Another value holds for every call to the model under test."
    show = typer_kw.pop("show_default", default not in (None, [], ()))
    info: Any
    if _extra(cls, name, "argument"):
        ann = ann if typing.get_origin(ann) in (Union, types.UnionType) or typing.get_origin(ann) is list else ann | None
        info = typer.Argument(help=text, show_default=False, metavar=name.upper(), **typer_kw)
    else:
        info = typer.Option(*flags, help=text, show_default=show, **{**meta, **typer_kw})
    FIELD_OF[info] = (cls, name)
    return ann, info


class ShowOptions(BaseModel):
    """How a command that ends in a run folder shows it."""

    json_out: bool = option(False, "--json", help="Print scores.json instead of the summary table.")


class RunFolderOption(BaseModel):
    """A command that reads one run folder (``score <name> RUN``)."""

    run_dir: Path = option(..., argument=True, help="The run folder.")


JsonOpt = field_option(ShowOptions, "json_out")
OutOpt = field_option(OutOption, "out")


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
    from noveval.benchmarks._runner import BudgetStopped, IncompleteRun, run_benchmark
    from noveval.cli.outcome import EXIT_BUDGET, EXIT_INCOMPLETE, finish
    from noveval.models.calls import EndpointError, ledger_scope
    from noveval.models.costs import Budget, load_prices
    from noveval.progress import heartbeat

    with user_errors(), flag_errors(cls, {"data": flags_of(cls, bench.data_option)[0] if bench.data_option else "data"}):
        from noveval.options import as_options

        opts = as_options(cls, values)
        load_prices()  # a bad price file or budget: one line, before anything runs
        if opts.max_cost is not None:
            Budget(opts.max_cost)
    note = " (a submitted batch keeps running at the provider: the same command collects it)" if opts.batch else ""
    with ledger_scope(max_cost=opts.max_cost) as ledger, heartbeat(f"{bench.name} run", status=ledger.progress_line):
        code = 0
        with user_errors(note), flag_errors(cls):
            try:
                run = run_benchmark(bench, model, out, options=opts)
                shown: Any = run.group or list(run.folders)
            except IncompleteRun as e:
                shown, code = e.run.group or list(e.run.folders), EXIT_INCOMPLETE
                if "not a result" in str(e):
                    typer.echo(f"error: {e}", err=True)
            except BudgetStopped as e:
                finish(list(e.run.folders), ledger, json_out=json_out)
                typer.echo(f"stopped: {e}; finished items are saved: run the same command with a higher --max-cost "
                           "to finish", err=True)
                raise typer.Exit(EXIT_BUDGET) from None
            except EndpointError as e:
                if not e.midrun:
                    raise
                typer.echo(f"error: {e}; finished items are saved: run the same command again to resume", err=True)
                raise typer.Exit(EXIT_INCOMPLETE) from None
        finish(shown, ledger, json_out=json_out)
    if code:
        raise typer.Exit(code)


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

