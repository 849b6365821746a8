"""Every option of every command is declared once, on an options model (issue 38, item 1).

The test walks the whole command tree of the Typer app (sub-apps and the root callback
included), and maps each parameter of each command back to the options-model field it was
generated from (:data:`noveval.cli.generate.FIELD_OF`: every Typer option or argument that
:func:`~noveval.cli.generate.field_option` / :func:`~noveval.cli.generate.option_info` /
:func:`~noveval.cli.generate.options_command` makes is recorded there with its model and
field). A hand-written ``typer.Option`` is in no model, so it fails here; so does a model
field whose flags differ from the option's.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Iterator
from typing import Any

import pytest
import typer
from pydantic import BaseModel
from typer.core import TyperOption

from noveval.cli.generate import FIELD_OF
from noveval.cli.main import app
from noveval.options import RunOptions, flags_of

TYPER_OWN = {"help": "--help is Typer's own (click's help option), not a setting of the command"}
"""Parameters no options model declares, with the reason."""

NOT_YET: dict[str, set[str]] = {}
"""Commands whose listed parameters are still hand-written Typer options (none: keep it empty). A name here that
is generated fails :func:`test_not_yet_lists_only_hand_written_ones`, so the list can only shrink."""


def _walk(cmd: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, Any]]:
    """(``"score rinobench"``, command) for every command and group of the app (the root is ``""``)."""
    yield " ".join(path), cmd
    for name, sub in (getattr(cmd, "commands", None) or {}).items():
        yield from _walk(sub, (*path, name))


COMMANDS = dict(_walk(typer.main.get_command(app)))


def _info(callback: Any, name: str) -> Any:
    """The Typer option / argument object behind parameter ``name`` of a command's callback."""
    sig = inspect.signature(callback, eval_str=True)
    p = sig.parameters[name]
    metadata = typing.get_args(p.annotation)[1:] if typing.get_origin(p.annotation) is typing.Annotated else ()
    infos = [m for m in metadata if isinstance(m, typer.models.ParameterInfo)]
    if isinstance(p.default, typer.models.ParameterInfo):
        infos.append(p.default)
    assert len(infos) == 1, f"{name}: {infos}"
    return infos[0]


def test_the_walk_sees_every_kind_of_command() -> None:
    """Guard for the walk: it reaches generated runs, system extras, core commands and the root callback."""
    for name in ("", "run rinobench", "score novbench", "rinobench construct", "novbench extract-descriptions",
                 "focus expert", "axioms combine", "validate ceiling", "claimcheck wle-import", "eval", "demo"):
        assert name in COMMANDS, sorted(COMMANDS)
    assert len(COMMANDS) > 50


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_option_is_a_field_of_an_options_model(name: str) -> None:
    cmd = COMMANDS[name]
    if cmd.callback is None:
        return
    for p in cmd.params:
        if p.name in TYPER_OWN or p.name in NOT_YET.get(name, set()):
            continue
        assert p.name is not None
        info = _info(cmd.callback, p.name)
        assert info in FIELD_OF, f"noveval {name}: {p.opts} is a hand-written Typer option, not an options-model field"
        cls, field = FIELD_OF[info]
        assert issubclass(cls, BaseModel) and field in cls.model_fields, (name, cls, field)
        f = cls.model_fields[field]
        if not f.is_required() and p.default is not None and f.default is not None and not p.hidden:
            assert p.default == f.default, f"noveval {name}: {p.opts} defaults to {p.default!r}, its field to {f.default!r}"
        if isinstance(p, TyperOption) and not p.hidden:  # the option's flags are the field's
            declared = {f for flag in flags_of(cls, field) for f in flag.split("/")}
            assert set(p.opts) <= declared | {"--no-" + o.removeprefix("--") for o in declared}, \
                (name, p.opts, declared)


def test_not_yet_lists_only_hand_written_ones() -> None:
    """Each parameter left in NOT_YET is still hand-written (remove it from the list once it is generated)."""
    for name, params in NOT_YET.items():
        cmd = COMMANDS[name]
        for p in params:
            assert _info(cmd.callback, p) not in FIELD_OF, f"noveval {name}: {p} is generated now: drop it from NOT_YET"


def test_help_texts_come_from_the_fields() -> None:
    """One wording: the help of ``noveval run rinobench --limit`` is RunOptions.limit's description."""
    limit = next(p for p in COMMANDS["run rinobench"].params if p.name == "limit")
    assert isinstance(limit, TyperOption)
    assert limit.help == RunOptions.model_fields["limit"].description
    seed = next(p for p in COMMANDS["novbench structure"].params if p.name == "seed")
    assert isinstance(seed, TyperOption) and seed.help == RunOptions.model_fields["seed"].description


def test_judge_settings_are_declared_once() -> None:
    """RINoBench's judge settings: one declaration (JudgeSettings), read by the judge, the run and the CLI."""
    from noveval.benchmarks.rinobench.judge import JudgeOptions
    from noveval.benchmarks.rinobench.options import (
        JudgeSettings,
        RINoBenchOptions,
        RINoBenchScoreCommand,
    )

    for cls in (JudgeOptions, RINoBenchOptions, RINoBenchScoreCommand):
        assert issubclass(cls, JudgeSettings)
        for f in JudgeSettings.model_fields:
            assert cls.model_fields[f].description == JudgeSettings.model_fields[f].description


def test_allowed_values_are_checked_by_the_model(tmp_path: Any) -> None:
    """A value outside a ``Literal`` field is one line, exit 2, naming the flag (no hand check in the command)."""
    from cli_helpers import cli, one_line_exit_2

    one_line_exit_2(cli("novbench", "extract-descriptions", "-i", str(tmp_path / "x.csv"), "-o",
                        str(tmp_path / "o.jsonl"), "--strategy", "bogus"), "--strategy", "'context'")
    one_line_exit_2(cli("score", "rinobench", str(tmp_path / "p.jsonl"), "-g", str(tmp_path / "g.json"),
                        "--grounding-context", "all"), "--grounding-context", "'split' or 'both'")
    one_line_exit_2(cli("rinobench", "construct", "-r", str(tmp_path / "r.json"), "-o", str(tmp_path / "d"),
                        "--binning", "quantile"), "--binning")
    assert not (tmp_path / "o.jsonl").exists() and not (tmp_path / "d").exists()
