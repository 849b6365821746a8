"""`noveval run rinobench --samples N`: N answers per idea, plurality vote, self-consistency (issue 18)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from noveval.benchmarks.rinobench import load_items, load_rubric
from noveval.benchmarks.rinobench.generate import agenerate, vote
from noveval.cli.main import app
from noveval.models.chat import ChatResponse

SAMPLE = Path(__file__).resolve().parents[2] / "src" / "noveval" / "samples" / "rinobench" / "test.json"


@pytest.mark.parametrize(("scores", "want"), [
    ([3, 3, 4], (3, 2 / 3)),
    ([2, 4], (2, 0.5)),  # tie, both 1 from the mean 3: the lower
    ([2, 3, 3, 4, 4], (3, 0.4)),  # 3 and 4 tie; the mean 3.2 is nearer 3
    ([None, None, 5], (5, 1 / 3)),  # unparseable samples abstain but count in the share
    ([None, None], (None, None)),
    ([5], (5, 1.0)),
])
def test_vote_by_hand(scores: list[int | None], want: tuple[Any, Any]) -> None:
    answer, share = vote(scores)
    assert answer == want[0]
    assert share == (None if want[1] is None else pytest.approx(want[1]))


def test_vote_needs_a_sample() -> None:
    with pytest.raises(ValueError):
        vote([])


class _OneSeedFails:
    """Injects what a real backend cannot be made to do on demand: one failed call (seed 1)."""

    model_id = "fault-injector"

    def semaphore(self) -> asyncio.Semaphore:
        return asyncio.Semaphore(4)

    async def acomplete(self, request: Any, *, _sem: Any = None) -> ChatResponse:
        if request.params.seed == 1:
            return ChatResponse(error="timeout after 3 attempts", error_kind="timeout")
        return ChatResponse(text=json.dumps({"reasoning": "new", "novelty_score": 4}), finish_reason="stop")


def test_a_failed_sample_fails_the_row(tmp_path: Path) -> None:
    from noveval.runs import RunDir

    items = load_items(SAMPLE)[:1]
    rd = RunDir.create(tmp_path / "run", {"benchmark": "rinobench", "t": 1})
    rows = asyncio.run(agenerate(items, _OneSeedFails(), rd, rubric=load_rubric(None), temperature=1.0, samples=3, progress=None))
    (row,) = rows
    assert row["parse_status"] == "call_failed" and row["error"] == "timeout after 3 attempts"
    assert row["novelty_score"] is None and row["self_consistency"] is None
    assert [s["seed"] for s in row["samples"]] == [0, 1, 2]
    assert [s["novelty_score"] for s in row["samples"]] == [4, None, 4]


def test_samples_at_temperature_zero_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "run"
    res = CliRunner().invoke(app, ["run", "rinobench", "--samples", "3", "--out", str(out)])
    assert res.exit_code == 2
    assert "--samples" in res.output and "temperature 0" in res.output
    assert not out.exists()


@pytest.mark.integration
def test_bundled_model_three_samples(tmp_path: Path) -> None:
    out = tmp_path / "x3"
    args = ["run", "rinobench", "--items", str(SAMPLE), "-n", "2", "--temperature", "0.9", "--max-tokens", "96"]
    res = CliRunner().invoke(app, [*args, "--samples", "3", "--out", str(out), "--allow-failures"])
    assert res.exit_code == 0, res.output
    rows = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
    assert len(rows) == 2
    for r in rows:
        assert [s["seed"] for s in r["samples"]] == [0, 1, 2]
        answer, share = vote([s["novelty_score"] for s in r["samples"]])
        assert r["novelty_score"] == answer and r["self_consistency"] == share
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["params"]["samples"] == 3 and cfg["params"]["temperature"] == 0.9
    scores = json.loads((out / "scores.json").read_text())
    have = [r["self_consistency"] for r in rows if r["self_consistency"] is not None]
    m = scores["metrics"].get("self_consistency")
    assert m is not None and m["n"] == len(have)
    if have:
        assert m["mean"] == pytest.approx(sum(have) / len(have))
    per_item = [json.loads(x) for x in (out / "per_item.jsonl").read_text().splitlines()]
    assert [p.get("self_consistency") for p in per_item] == [r["self_consistency"] for r in rows]
    # sample 0 is the single-sample call: a one-sample run of the same settings is all cache hits
    one = tmp_path / "x1"
    res = CliRunner().invoke(app, [*args, "--out", str(one), "--allow-failures", "--json"])
    assert res.exit_code == 0, res.output
    preds1 = [json.loads(x) for x in (one / "predictions.jsonl").read_text().splitlines()]
    assert all(p["cached"] for p in preds1)
    assert [p["novelty_score"] for p in preds1] == [r["samples"][0]["novelty_score"] for r in rows]
    assert "samples" not in json.loads((one / "config.json").read_text())["params"]
