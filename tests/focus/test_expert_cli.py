"""``noveval focus expert`` goes through the runner (issue 38): endpoint check, unusable-answer tally, exit codes.

A real client over HTTP to a local server (tests/fake_openai.py) answers the three-prompt chain.
"""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import cli, closed_port
from fake_openai import FakeOpenAIServer

SAMPLE = Path(__file__).parents[2] / "src" / "noveval" / "samples" / "focus" / "sample_reviews.jsonl"
REVIEW = "Strengths:\n- The method is simple and new.\nWeaknesses:\n- The experiments are small.\n- There is no ablation of the learned policy."


def _expert(tmp_path: Path, spec: str, *more: str):
    return cli("focus", "expert", "-p", str(SAMPLE), "-o", str(tmp_path / "x"), "-m", spec, "-n", "1", *more)


def test_expert_points_through_the_runner(tmp_path: Path) -> None:
    with FakeOpenAIServer(responder=lambda prompt: REVIEW) as server:
        res = _expert(tmp_path, f"openai-compatible/m@{server.base_url}")
        assert res.exit_code == 0, res.output
        asked = server.total
    assert "1 papers, 3 points" in res.stdout  # 1 strength + 2 weaknesses of the final (paraphrased) review
    rows = [json.loads(x) for x in (tmp_path / "x" / "expert.jsonl").read_text().splitlines()]
    assert len(rows) == 1 and len(rows[0]["steps"]) == 3 and rows[0]["error"] is None
    calls = json.loads((tmp_path / "x" / "calls.json").read_text())["last"]
    assert calls["complete"] is True and calls["requests"] == asked - 1  # the runner's endpoint check is one more


def test_mostly_unusable_expert_answers_are_not_a_result(tmp_path: Path) -> None:
    """Answers with no strengths/weaknesses: the runner's unusable tally makes the command exit 3, saying why."""
    with FakeOpenAIServer(responder=lambda prompt: "A review with no sections at all.") as server:
        res = _expert(tmp_path, f"openai-compatible/m@{server.base_url}")
    assert res.exit_code == 3, res.output
    assert "not a result" in res.stderr and "expert chain" in res.stderr


def test_an_endpoint_that_fails_its_check_writes_nothing(tmp_path: Path) -> None:
    res = _expert(tmp_path, f"openai-compatible/m@http://127.0.0.1:{closed_port()}/v1")
    assert res.exit_code == 2, res.output
    assert "127.0.0.1" in res.stderr and not (tmp_path / "x").exists()
