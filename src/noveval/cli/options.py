"""Shared CLI options: one vocabulary for every command, generated from the options models.

Each alias is ``Annotated[type, option_info(Model, field)]``: the flags, help, range and
allowed values are the field's own (:class:`noveval.options.RunOptions` and the mixins beside
it), so a command that takes ``--limit`` says exactly what ``noveval run`` says. Commands whose
parameters are all one model's fields are made whole by :func:`noveval.cli.generate.options_command`
(:func:`field_option` is the one place a field becomes a Typer option).
"""

from __future__ import annotations

import types
import typing
from pathlib import Path
from typing import Annotated, Any, Literal, Union

import typer
from pydantic import BaseModel

from noveval.options import (
    GENERATION_FIELDS,
    DataDirOption,
    EmbedderOption,
    JudgeOption,
    ModelOption,
    OutOption,
    RunOptions,
    flags_of,
    option,
)
from noveval.options import HF_SOURCE_HELP as HF_SOURCE_HELP  # one definition, re-exported


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




ModelOpt = Annotated[str, option_info(ModelOption, "model")]
JudgeOpt = Annotated[str | None, option_info(JudgeOption, "judge")]
EmbedderOpt = Annotated[str, option_info(EmbedderOption, "embedder", show_default=False)]
OutOpt = Annotated[Path, option_info(OutOption, "out")]
DataDirOpt = Annotated[Path | None, option_info(DataDirOption, "data_dir")]
LimitOpt = Annotated[int | None, option_info(RunOptions, "limit")]
SeedOpt = Annotated[int, option_info(RunOptions, "seed")]
ConcurrencyOpt = Annotated[int | None, option_info(RunOptions, "concurrency")]
TimeoutOpt = Annotated[float, option_info(RunOptions, "timeout")]
MaxTokensOpt = Annotated[int | None, option_info(RunOptions, "max_tokens")]
TemperatureOpt = Annotated[float | None, option_info(RunOptions, "temperature")]
ExtraBodyOpt = Annotated[str | None, option_info(RunOptions, "extra_body")]
NoCacheOpt = Annotated[bool, option_info(RunOptions, "no_cache")]
RefreshOpt = Annotated[bool, option_info(RunOptions, "refresh")]
OverwriteOpt = Annotated[bool, option_info(RunOptions, "overwrite")]
AllowFailuresOpt = Annotated[bool, option_info(RunOptions, "allow_failures")]
AllowUnparseableOpt = Annotated[bool, option_info(RunOptions, "allow_unparseable")]
MaxCostOpt = Annotated[float | None, option_info(RunOptions, "max_cost")]
BatchOpt = Annotated[bool, option_info(RunOptions, "batch")]
