"""One CLI vocabulary (issue 15, item 3): the shared short flags mean the same in every command.

The test walks the whole command tree of the Typer app, so a command added later is
checked too. ``-m/--model``, ``-j/--judge``, ``-e/--embedder``, ``-o/--out``, ``-n/--limit``
and ``-c/--concurrency`` must map to the same long name, the same Python parameter and the
same kind of value everywhere; every ``score <system>`` takes its run folder (or
predictions) as its first positional argument; every error is one line, exit 2.
"""

from __future__ import annotations

import inspect
import json
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.core import TyperArgument, TyperOption

from cli_helpers import cli as _cli
from cli_helpers import one_line_exit_2 as _one_line_exit_2
from noveval.cli.main import app

SHARED = {  # short flag -> (long flag, parameter name, value type)
    "-m": ("--model", "model", str),
    "-j": ("--judge", "judge", str),
    "-e": ("--embedder", "embedder", str),
    "-o": ("--out", "out", Path),
    "-n": ("--limit", "limit", int),
    "-c": ("--concurrency", "concurrency", int),
}
LONG = {long: (short, name, typ) for short, (long, name, typ) in SHARED.items()}
SAMPLES = Path(__file__).parents[2] / "src" / "noveval" / "samples"


def _commands(cmd: Any = None, path: tuple[str, ...] = ()) -> Iterator[tuple[str, Any]]:
    """(``"run rinobench"``, command) for every leaf command of the app."""
    cmd = cmd or typer.main.get_command(app)
    subs = getattr(cmd, "commands", None)
    if subs is None:
        yield " ".join(path), cmd
        return
    for name, sub in subs.items():
        yield from _commands(sub, (*path, name))


def _base_type(annotation: Any) -> Any:
    """``Annotated[int | None, ...]`` -> ``int``; ``list[Path]`` -> ``Path``."""
    if typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        assert len(args) == 1, annotation
        annotation = args[0]
    if typing.get_origin(annotation) is list:
        annotation = typing.get_args(annotation)[0]
    return annotation


COMMANDS = dict(_commands())


def test_the_walk_sees_every_system() -> None:
    """Guard for the walk itself: it finds the run/score commands of the systems and the groups."""
    for name in ("run rinobench", "run claimcheck", "run axioms", "score novbench", "score chat",
                 "axioms run", "axioms combine", "novelty score", "validate run", "claimcheck agreement"):
        assert name in COMMANDS, sorted(COMMANDS)
    assert len(COMMANDS) > 40


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_shared_flags_mean_the_same_everywhere(name: str) -> None:
    cmd = COMMANDS[name]
    sig = inspect.signature(cmd.callback, eval_str=True) if cmd.callback else None
    for p in cmd.params:
        if not isinstance(p, TyperOption):
            continue
        flags = [*p.opts, *p.secondary_opts]
        for flag in flags:
            if flag in SHARED:
                long, pname, _ = SHARED[flag]
                assert long in flags and p.name == pname, f"{name}: {flag} is {flags} ({p.name}), expected {long}"
            if flag in LONG:
                short, pname, typ = LONG[flag]
                assert short in flags, f"{name}: {flag} lacks its short form {short}"
                assert p.name == pname, f"{name}: {flag} fills {p.name!r}, expected {pname!r}"
                if sig is not None and p.name in sig.parameters:
                    got = _base_type(sig.parameters[p.name].annotation)
                    assert got is typ, f"{name}: {flag} takes {got}, expected {typ}"


SCORE_COMMANDS = sorted(n for n in COMMANDS if n.startswith("score "))


@pytest.mark.parametrize("name", SCORE_COMMANDS)
def test_every_score_command_takes_its_run_folder_positionally(name: str) -> None:
    cmd = COMMANDS[name]
    args = [p for p in cmd.params if isinstance(p, TyperArgument)]
    assert args, f"{name}: no positional run folder / predictions argument"
    assert args[0].name in ("run_dir", "predictions"), f"{name}: first argument is {args[0].name}"
    visible = {f for p in cmd.params if isinstance(p, TyperOption) and not p.hidden for f in p.opts}
    assert not visible & {"--run", "--predictions", "-r", "-p"}, f"{name}: old spelling still shown: {visible}"




def test_score_rinobench_positional_alias_and_run_folder_agree(tmp_path: Path) -> None:
    """The positional predictions, the hidden old ``-p`` and a run folder holding them give one result."""
    gold = SAMPLES / "rinobench" / "test.json"
    labels = [3, 1, 5, 2, 4]
    n = len(json.loads(gold.read_text()))
    run = tmp_path / "run"
    run.mkdir()
    preds = run / "predictions.jsonl"
    preds.write_text("".join(json.dumps({"reasoning": "r", "novelty_score": labels[i % 5]}) + "\n" for i in range(n)))
    outs = [_cli("score", "rinobench", str(preds), "-g", str(gold), "--json"),
            _cli("score", "rinobench", "-p", str(preds), "-g", str(gold), "--json"),
            _cli("score", "rinobench", str(run), "-g", str(gold), "--json")]
    for r in outs:
        assert r.exit_code == 0, r.output
    metrics = [json.loads(r.stdout)["metrics"] for r in outs]
    assert metrics[0] == metrics[1] == metrics[2]
    _one_line_exit_2(_cli("score", "rinobench", str(preds), "-p", str(preds), "-g", str(gold)), "--predictions", "not both")
    _one_line_exit_2(_cli("score", "rinobench", "-g", str(gold)), "missing")


def test_score_chat_positional_and_alias_agree(tmp_path: Path) -> None:
    """``score chat RUN`` and the hidden old ``--run RUN`` read the same run folder."""
    prompts = tmp_path / "p.jsonl"
    prompts.write_text(json.dumps({"id": "a", "prompt": "q", "reference": "x"}) + "\n")
    _one_line_exit_2(_cli("score", "chat", "-i", str(prompts)), "missing")
    missing = tmp_path / "nope"
    a = _cli("score", "chat", "-i", str(prompts), str(missing))
    b = _cli("score", "chat", "-i", str(prompts), "--run", str(missing))
    assert a.exit_code == b.exit_code == 2 and a.stderr == b.stderr and "nope" in a.stderr


def test_claimcheck_uses_the_shared_error_wrapper(tmp_path: Path) -> None:
    """A mistyped model spec and a missing file are one line and exit 2 (no traceback)."""
    _one_line_exit_2(_cli("run", "claimcheck", "--task", "wi", "-o", str(tmp_path / "r"), "-m", "nonsense-spec",
                          "--papers", str(SAMPLES / "claimcheck" / "papers.json")), "nonsense-spec")
    assert not (tmp_path / "r").exists()
    _one_line_exit_2(_cli("claimcheck", "wle-import", str(tmp_path / "absent.csv"), "-o", str(tmp_path / "j.jsonl")),
                     "absent")
    _one_line_exit_2(_cli("claimcheck", "wle-export", str(tmp_path / "no-run"), "-o", str(tmp_path / "x.csv")),
                     "no-run")


def _wrappers(fn: Any) -> list[str]:
    """Qualified names of the functions in a command callback's ``__wrapped__`` chain."""
    names = []
    while fn is not None:
        names.append(fn.__code__.co_qualname)
        fn = getattr(fn, "__wrapped__", None)
    return names


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_one_error_wrapper_everywhere(name: str) -> None:
    """Every command goes through cli/common.cli_errors, cli/outcome's run_command or is generated (cli/generate)."""
    shared = {"cli_errors.<locals>.wrapper", "_wrap.<locals>.wrapper",  # generated commands handle errors in one place
              "make_run_command.<locals>.command", "make_score_command.<locals>.command"}
    chain = _wrappers(COMMANDS[name].callback)
    assert shared & set(chain), f"{name}: no shared error wrapper in {chain}"


def test_canonical_names_matches_case_insensitively_and_names_the_option() -> None:
    import pytest

    from noveval.errors import InputError
    from noveval.io import canonical_names

    assert canonical_names(["yin", "RND"], {"RND": 1, "Yin": 2}) == ["Yin", "RND"]
    with pytest.raises(InputError, match=r"--metric: unknown metric 'x'; choose from RND, Yin"):
        canonical_names(["x"], ["RND", "Yin"])
