"""NovBench's dataset-construction stages go through the runner (issue 38): endpoint check,
unusable-answer tally, exit codes, and their one output file (no run folder beside it).

A real client over HTTP to a local server (tests/fake_openai.py) answers the Yes/No and
structuring prompts.
"""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path

import pytest

from cli_helpers import cli, closed_port, one_line_exit_2
from fake_openai import FakeOpenAIServer
from schema_reply import PROBE

RECORDS = Path(str(files("noveval").joinpath("samples", "novbench", "records.json")))
STRUCTURED = "Positive:\n- The probe is new.\nNeutral:\n- None.\nNegative:\n- Close to earlier work."


def _inputs(tmp_path: Path, stage: str) -> list[str]:
    if stage == "extract-descriptions":
        src = tmp_path / "intro.csv"
        src.write_text("paper_id,sentence,label\np1,We propose a new probe.,1\np1,Probes are common.,0\n"
                       "p2,We propose a new metric.,1\np2,Metrics abound.,1\n", encoding="utf-8")
        return ["-i", str(src), "-s", "zero-shot"]
    if stage == "extract-evaluations":
        src = tmp_path / "review.csv"
        src.write_text("sentence,label\nThe idea is novel.,1\nThe writing is clear.,0\n", encoding="utf-8")
        return ["-i", str(src)]
    return ["-i", str(RECORDS), "--limit", "2"]


def _stage(tmp_path: Path, stage: str, spec: str, *more: str):
    return cli("novbench", stage, *_inputs(tmp_path, stage), "-o", str(tmp_path / "out" / "s.jsonl"), "-m", spec,
               *more)


STAGES = ["extract-descriptions", "extract-evaluations", "structure"]


@pytest.mark.parametrize("stage", STAGES)
def test_a_refused_endpoint_is_exit_2_and_writes_nothing(stage: str, tmp_path: Path) -> None:
    res = _stage(tmp_path, stage, f"openai-compatible/m@http://127.0.0.1:{closed_port()}/v1")
    assert res.exit_code == 2, res.output
    assert "127.0.0.1" in res.stderr and not (tmp_path / "out").exists()


@pytest.mark.parametrize("stage", STAGES)
def test_mostly_unusable_answers_are_exit_3(stage: str, tmp_path: Path) -> None:
    with FakeOpenAIServer(responder=lambda prompt: "Hard to say, really." if prompt != PROBE else "ok") as server:
        res = _stage(tmp_path, stage, f"openai-compatible/m@{server.base_url}")
        assert server.total > 1
    assert res.exit_code == 3, res.output
    assert "not a result" in res.stderr and "empty or unparseable" in res.stderr
    assert not (tmp_path / "out" / "calls.json").exists()  # the stage writes its file, no run folder around it


def test_extract_descriptions_through_the_runner(tmp_path: Path) -> None:
    """Yes for the 'We propose' sentences: 3 of 4 labels right (hand count), each call booked once."""
    def answer(prompt: str) -> str:
        return "ok" if prompt == PROBE else ("Yes" if "We propose" in prompt else "No")

    with FakeOpenAIServer(responder=answer) as server:
        res = _stage(tmp_path, "extract-descriptions", f"openai-compatible/m@{server.base_url}")
        asked = server.total
    assert res.exit_code == 0, res.output
    assert asked == 5  # the runner's endpoint check + one call per sentence
    out = tmp_path / "out" / "s.jsonl"
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["pred"] for r in rows] == [1, 0, 1, 0]
    m = json.loads(out.with_suffix(".metrics.json").read_text())["metrics"]
    assert m["accuracy"] == 0.75 and m["n"] == 4  # "Metrics abound." is labelled 1, answered No
    assert "4 sentences" in res.stdout and "2 predicted novelty" in res.stdout and "accuracy 0.7500" in res.stdout
    assert sorted(p.name for p in out.parent.iterdir()) == ["s.jsonl", "s.metrics.json"]


def test_structure_through_the_runner(tmp_path: Path) -> None:
    with FakeOpenAIServer(responder=lambda prompt: "ok" if prompt == PROBE else STRUCTURED) as server:
        res = _stage(tmp_path, "structure", f"openai-compatible/m@{server.base_url}")
    assert res.exit_code == 0, res.output
    rows = [json.loads(x) for x in (tmp_path / "out" / "s.jsonl").read_text().splitlines()]
    assert len(rows) == 2 and "2 structured evaluations" in res.stdout
    assert all(r["counts"] and r["error"] is None for r in rows)


@pytest.mark.parametrize(("more", "flag"), [(["--batch"], "--batch"), (["-s", "rag"], "--pool"),
                                            (["-s", "many-shot"], "--strategy")])
def test_bad_options_are_one_line_naming_the_flag(more: list[str], flag: str, tmp_path: Path) -> None:
    res = _stage(tmp_path, "extract-evaluations", f"openai-compatible/m@http://127.0.0.1:{closed_port()}/v1", *more)
    one_line_exit_2(res, flag)
    assert not (tmp_path / "out").exists()
