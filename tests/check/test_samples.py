"""``noveval check --samples N``: N rubric judgments, plurality vote, self-consistency (issue 18).

The model is a real local HTTP server (tests/fake_openai.py) whose rubric answer depends on
the request's seed, so the samples disagree in a known way; the embedder is the bundled one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fake_openai import REQUEST, FakeOpenAIServer
from noveval.cli.main import app
from noveval.models.openai_compat import PROBE_PROMPT

from .test_cli import CORPUS, IDEA

SCORES = {0: 3, 1: 4, 2: 3, 3: None, 4: 5}
"""Seed -> the scripted rubric score (None: an answer without a score)."""

OPTION_KEYS = {"model", "embedder", "top_k", "pool_size", "min_similarity", "min_papers", "max_year_gap", "judge",
               "metrics", "seed"}
"""check.json's ``options`` before --samples existed."""


class Script:
    """Rubric answers by seed; a fixed evaluation; records every rubric request body."""

    def __init__(self) -> None:
        self.rubric_bodies: list[dict[str, Any]] = []

    def __call__(self, prompt: str) -> str | dict[str, Any]:
        body = REQUEST.body
        if "Judge the novelty of the research idea" in prompt:
            self.rubric_bodies.append(body)
            score = SCORES[body["seed"]]
            if score is None:
                return "I cannot decide on a number for this one."
            return {"reasoning": f"Seed {body['seed']}: close to [1], but the ablation step is new.", "novelty_score": score}
        if "Assess the novelty of the submission" in prompt:
            return {"positive": [{"point": "Ablating probe-selected dimensions is new.", "cites": [1]}],
                    "neutral": [], "negative": []}
        return "ok"


def _inputs(tmp_path: Path) -> tuple[Path, Path]:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("\n".join(json.dumps({"id": f"c{i}", "title": t, "abstract": a, "year": y})
                                for i, (t, a, y) in enumerate(CORPUS)) + "\n", encoding="utf-8")
    idea = tmp_path / "idea.md"
    idea.write_text(IDEA, encoding="utf-8")
    return idea, corpus


def _check(idea: Path, corpus: Path, out: Path, *extra: str) -> Any:
    return CliRunner().invoke(app, ["check", str(idea), "--corpus", str(corpus), "--top-k", "3", "-o", str(out),
                                    "--before-year", "2023", *extra])


def test_five_samples_vote_by_hand_and_a_rerun_asks_only_the_unusable(tmp_path: Path) -> None:
    idea, corpus = _inputs(tmp_path)
    script = Script()
    with FakeOpenAIServer(responder=script) as server:
        spec = f"openai-compatible/scripted@{server.base_url}"
        out = tmp_path / "x5"
        res = _check(idea, corpus, out, "-m", spec, "--temperature", "0.7", "--samples", "5")
        assert res.exit_code == 0, res.output
        calls = server.total
        assert sorted(b["seed"] for b in script.rubric_bodies) == [0, 1, 2, 3, 4]
        assert {b["temperature"] for b in script.rubric_bodies} == {0.7}
        # the same command again: the good samples come from the cache; the answers no parser read (seed 3's
        # rubric answer, the evaluation this script does not answer) are never final: asked again after the check
        res = _check(idea, corpus, out, "-m", spec, "--temperature", "0.7", "--samples", "5")
        assert res.exit_code == 0, res.output
        again = [p for _, _, p in server.log[calls:]]
        assert again[0] == PROBE_PROMPT and sum(p.startswith("Judge the novelty") for p in again) == 1
        assert [b["seed"] for b in script.rubric_bodies[5:]] == [3]
    r = json.loads((out / "check.json").read_text())
    rb = r["rubric"]
    # scores 3, 4, 3, -, 5: plurality 3 (two samples); share 2 of all 5 samples
    assert rb["score"] == 3 and rb["self_consistency"] == pytest.approx(0.4)
    assert [s["seed"] for s in rb["samples"]] == [0, 1, 2, 3, 4]
    assert [s["score"] for s in rb["samples"]] == [3, 4, 3, None, 5]
    assert rb["justification"].startswith("Seed 0:")  # the first sample that gave the answer
    assert rb["temperature"] == 0.7 and rb["error"] is None
    assert r["options"]["samples"] == 5 and r["options"]["temperature"] == 0.7
    md = (out / "check.md").read_text()
    assert "**Score: 3/5**" in md and "2 of 5 samples at temperature 0.7 agree; self-consistency 0.40" in md
    assert "0: 3, 1: 4, 2: 3, 3: –, 4: 5" in md
    assert "self-consistency 0.40" in (out / "check.html").read_text()
    assert "2 of 5 samples at temperature 0.7 agree" in r["verdict"]["summary"]


def test_one_sample_writes_what_it_always_did(tmp_path: Path) -> None:
    idea, corpus = _inputs(tmp_path)
    script = Script()
    with FakeOpenAIServer(responder=script) as server:
        out = tmp_path / "x1"
        res = _check(idea, corpus, out, "-m", f"openai-compatible/scripted@{server.base_url}")
        assert res.exit_code == 0, res.output
    # one request, with the parameters (and so the cache key) of before: temperature 0, seed 0
    assert [(b["seed"], b["temperature"]) for b in script.rubric_bodies] == [(0, 0.0)]
    r = json.loads((out / "check.json").read_text())
    assert set(r["options"]) == OPTION_KEYS
    assert r["rubric"]["score"] == 3
    assert not {"samples", "self_consistency", "temperature"} & set(r["rubric"])
    assert "Plurality" not in (out / "check.md").read_text()


def test_samples_at_temperature_zero_are_refused(tmp_path: Path) -> None:
    idea, corpus = _inputs(tmp_path)
    out = tmp_path / "x"
    res = _check(idea, corpus, out, "--samples", "3")
    assert res.exit_code == 2
    assert "--samples" in res.output and "temperature 0" in res.output
    assert not out.exists()
