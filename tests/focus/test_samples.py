"""``noveval run focus --samples N``: the annotator asked N times, labels voted, self-consistency (issue 18).

The models are a real local HTTP server (tests/fake_openai.py): the annotator's label
depends on the request's seed, so the samples disagree in a known way.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fake_openai import REQUEST, FakeOpenAIServer
from noveval.cli.main import app

SAMPLE = str(resources.files("noveval") / "samples" / "focus" / "sample_reviews.jsonl")
TARGETS = {0: "Method", 1: "Theory", 2: "Method"}
ASPECTS = {0: "Novelty", 1: "Clarity", 2: None}  # None: a reply that is not JSON
SAMPLED_KEYS = {"samples", "self_consistency", "self_consistency_target", "self_consistency_aspect"}


class Script:
    """A fixed review; target and aspect labels by seed; records the annotator's request bodies."""

    def __init__(self) -> None:
        self.annotator: list[dict[str, Any]] = []
        self.reviews: list[dict[str, Any]] = []

    def __call__(self, prompt: str) -> str | dict[str, Any]:
        body = REQUEST.body
        if "by its TARGET" in prompt:
            self.annotator.append(body)
            return {"target": TARGETS[body["seed"] % 3]}
        if "by its ASPECT" in prompt:
            self.annotator.append(body)
            label = ASPECTS[body["seed"] % 3]
            return {"aspect": label} if label else "no idea, sorry"
        if "expert reviewer" in prompt:
            self.reviews.append(body)
            return {"summary": "A sparsifier.", "strengths": ["The method is simple and fast."],
                    "weaknesses": ["The experiments use only small graphs."]}
        return "ok"


def _run(out: Path, spec: str, *extra: str) -> Any:
    return CliRunner().invoke(app, ["run", "focus", "-p", SAMPLE, "-o", str(out), "-m", spec, "-n", "1",
                                    "--max-reviews", "1", "--no-text-metrics", *extra])


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def test_three_samples_vote_by_hand_and_a_rerun_asks_only_the_unusable(tmp_path: Path) -> None:
    script = Script()
    out = tmp_path / "x3"
    with FakeOpenAIServer(responder=script) as server:
        spec = f"openai-compatible/scripted@{server.base_url}"
        res = _run(out, spec, "--temperature", "0.7", "--samples", "3")
        assert res.exit_code == 0, res.output
        calls = server.total
        res = _run(out, spec, "--temperature", "0.7", "--samples", "3")
        assert res.exit_code == 0, res.output
        # every good sample came from the cache; each point's seed-2 aspect answer (not JSON) is never final:
        # asked again, once per point, after the endpoint check
        again = [p for _, _, p in server.log[calls:]]
        assert len(again) == 1 + len(_rows(out / "judgments.jsonl")) and again[0] == "Reply with OK."
    assert {(b["seed"], b["temperature"]) for b in script.annotator} == {(0, 0.7), (1, 0.7), (2, 0.7)}
    assert {(b["seed"], b["temperature"]) for b in script.reviews} == {(0, 0.0)}  # reviews unchanged
    rows = _rows(out / "judgments.jsonl")
    assert len(rows) >= 3 and {r["source"] for r in rows} == {"human", "model"}
    for r in rows:
        # targets Method, Theory, Method: Method, 2 of 3
        assert r["target"] == "Method" and r["self_consistency_target"] == pytest.approx(2 / 3)
        # aspects Novelty, Clarity, (not JSON): a 1-1 tie goes to the earliest sample; 1 of 3
        assert r["aspect"] == "Novelty" and r["self_consistency_aspect"] == pytest.approx(1 / 3)
        assert r["self_consistency"] == pytest.approx(0.5)
        assert [(s["seed"], s["target"], s["aspect"]) for s in r["samples"]] == [
            (0, "Method", "Novelty"), (1, "Theory", "Clarity"), (2, "Method", None)]
        assert r["samples"][2]["parse_error"] and r["parse_error"] is None and r["error"] is None
        assert json.loads(r["raw_aspect"]) == {"aspect": "Novelty"}
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["annotator_samples"] == 3 and cfg["annotator_temperature"] == 0.7
    scores = json.loads((out / "scores.json").read_text())
    assert scores["metrics"]["self_consistency"]["mean"] == pytest.approx(0.5)
    assert scores["metrics"]["self_consistency"]["n"] == 1  # one paper
    sc = scores["extra"]["self_consistency"]
    assert sc["samples"] == 3 and sc["n_points"] == len(rows) and sc["unanimous"] == 0.0
    assert sc["target"] == pytest.approx(2 / 3) and sc["aspect"] == pytest.approx(1 / 3)
    per_item = _rows(out / "per_item.jsonl")
    assert [p["self_consistency"] for p in per_item] == [pytest.approx(0.5)]
    # the report shows it where it shows RINoBench's: a headline row from scores.json
    from noveval.report.build import build_report

    (focus,) = build_report([out]).benchmarks
    assert dict(focus.headline.rows)["Self-consistency"][0].value == pytest.approx(0.5)


def test_one_sample_writes_what_it_always_did(tmp_path: Path) -> None:
    script = Script()
    out = tmp_path / "x1"
    with FakeOpenAIServer(responder=script) as server:
        res = _run(out, f"openai-compatible/scripted@{server.base_url}", "--seed", "5")
        assert res.exit_code == 0, res.output
    # the annotator's requests are those of before (temperature 0, seed 0), whatever --seed
    assert {(b["seed"], b["temperature"]) for b in script.annotator} == {(0, 0.0)}
    cfg = json.loads((out / "config.json").read_text())
    assert not {"annotator_samples", "annotator_temperature"} & set(cfg)
    rows = _rows(out / "judgments.jsonl")
    assert rows and all(not SAMPLED_KEYS & set(r) for r in rows)
    assert all(r["target"] == "Method" and r["aspect"] == "Novelty" for r in rows)
    scores = json.loads((out / "scores.json").read_text())
    assert "self_consistency" not in scores["metrics"] and "self_consistency" not in scores["extra"]
    assert all("self_consistency" not in p for p in _rows(out / "per_item.jsonl"))


def test_samples_at_temperature_zero_are_refused(tmp_path: Path) -> None:
    out = tmp_path / "x"
    res = CliRunner().invoke(app, ["run", "focus", "-p", SAMPLE, "-o", str(out), "--samples", "3"])
    assert res.exit_code == 2
    assert "--samples" in res.output and "temperature 0" in res.output
    assert not out.exists()
