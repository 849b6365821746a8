"""``noveval check`` goes through the runner (issue 38): options validated by its options model,
``--no-judge`` checks and calls no model, the outcome is kept beside the check's files.

(A refused judge is exit 2 writing nothing: tests/check/test_cli.py; mostly unusable
structuring or judge answers are exit 3: the unusable-answer tests of ``check``.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_helpers import cli, closed_port, one_line_exit_2

IDEA = "# Causal sparse probes\n\nTrain sparse probes, then ablate the chosen dimensions and measure agreement.\n"


def _files(tmp_path: Path) -> list[str]:
    idea = tmp_path / "idea.md"
    idea.write_text(IDEA, encoding="utf-8")
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"id": f"p{i}", "title": f"Probing paper {i}", "abstract": f"Probes of "
                                          f"layer {i} of a language model.", "year": 2020}) + "\n" for i in range(12)),
                      encoding="utf-8")
    return [str(idea), "--corpus", str(corpus)]


@pytest.mark.parametrize(("more", "flag"), [(["--retrieval", "bm42"], "--retrieval"), (["--limit", "3"], "--limit"),
                                            (["--index", "idx", "--max-corpus", "5"], "--max-corpus")])
def test_bad_options_are_one_line_naming_the_flag(more: list[str], flag: str, tmp_path: Path) -> None:
    dead = f"openai-compatible/m@http://127.0.0.1:{closed_port()}/v1"
    r = cli("check", *_files(tmp_path), "-m", dead, "-o", str(tmp_path / "out"), *more)
    one_line_exit_2(r, flag)
    assert not (tmp_path / "out").exists()


def test_no_judge_checks_no_model_and_keeps_its_outcome(tmp_path: Path) -> None:
    """--no-judge with an unreachable model spec: nothing to check, nothing called, a complete run."""
    dead = f"openai-compatible/m@http://127.0.0.1:{closed_port()}/v1"
    r = cli("check", *_files(tmp_path), "-m", dead, "--no-judge", "-o", str(tmp_path / "out"))
    assert r.exit_code == 0, r.output
    assert f"json: {tmp_path / 'out' / 'check.json'}" in r.stdout
    assert json.loads((tmp_path / "out" / "check.json").read_text())["verdict"]["summary"] in r.stdout
    last = json.loads((tmp_path / "out" / "calls.json").read_text())["last"]
    assert last["complete"] is True and last["requests"] == 0
