"""End to end with the bundled local model: run, score with judge, judge failures counted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from noveval.benchmarks import rinobench
from noveval.benchmarks.rinobench import JUSTIFICATION_METRICS, JudgeOptions


def _preds(tmp_path: Path) -> Path:
    rows = [
        {"reasoning": "Layer-wise trust ratios exist in LAMB; applying them only during warmup is new.", "novelty_score": 3},
        {"reasoning": "", "novelty_score": None},  # empty and unparseable: kept, not judged
    ]
    p = tmp_path / "preds.json"
    p.write_text(json.dumps(rows))
    return p


@pytest.mark.integration
def test_score_with_local_judge(sample_gold: Path, tmp_path: Path) -> None:
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps(json.loads(sample_gold.read_text())[:2]))
    out = tmp_path / "run"
    # the smallest judge that still runs every step: 2 arguments per kind, short replies, 3 related works
    from noveval.benchmarks.rinobench.judge import JudgeOptions

    small = JudgeOptions(max_arguments=2, judge_max_tokens=160, judge_max_related_works=3, judge_max_abstract_chars=400)
    s = rinobench.score_predictions(_preds(tmp_path), gold, judge="local", judge_options=small, out=out, n_resamples=100)
    ev = s["extra"]["evaluation"]
    for name in JUSTIFICATION_METRICS:
        assert f"mean_{name}" in ev
        assert f"mean_{name}" in s["metrics"]
    assert s["extra"]["n_unparseable"] == 1
    assert s["extra"]["alignment_modes"].get("logprobs", 0) + s["extra"]["alignment_modes"].get("parsed", 0) >= 0
    judg = [json.loads(x) for x in (out / "judgments.jsonl").read_text().splitlines()]
    assert [j["id"] for j in judg] == ["0", "1"]
    assert judg[1]["alignment_mode"] == "empty_prediction" and judg[1]["calls"] == []
    # every judged number traces to raw judge words
    assert all(c["raw"] for c in judg[0]["calls"])
    steps = {c["step"] for c in judg[0]["calls"]}
    assert {"alignment", "extract_known:gold", "extract_known:predicted", "extract_novelty:gold", "extract_novelty:predicted"} <= steps
    m = judg[0]["metrics"]
    if m["alignment"] is not None:
        assert 0.0 <= m["alignment"] <= 1.0
    if m["known_aspects_hallucination_rate"] is not None:
        assert 0.0 <= m["known_aspects_hallucination_rate"] <= 1.0
    # a second scoring of the same run is served from the judgments file: no new calls
    s2 = rinobench.score_predictions(_preds(tmp_path), gold, judge="local", judge_options=small, out=out, n_resamples=100)
    assert s2["extra"]["judge_cache"]["requests"] == 0
    assert s2["extra"]["evaluation"] == ev


@pytest.mark.integration
def test_judge_failures_are_recorded_not_raised(sample_gold: Path, tmp_path: Path) -> None:
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps(json.loads(sample_gold.read_text())[:1]))
    preds = tmp_path / "p.json"
    preds.write_text(json.dumps([{"reasoning": "It is new.", "novelty_score": 4}]))
    # a 3-token budget truncates every structured reply: every step must fail cleanly
    s = rinobench.score_predictions(preds, gold, judge="local", judge_options=JudgeOptions(judge_max_tokens=3, max_reasks=0), n_resamples=50)
    fails = s["extra"]["judge_failures_by_step"]
    assert fails.get("extract_known:gold") == 1 and fails.get("extract_novelty:predicted") == 1
    assert s["extra"]["items_with_judge_failures"] == 1
    assert s["metrics"]["mean_known_aspects_recall"]["n"] == 0
    assert s["extra"]["evaluation"]["mean_known_aspects_recall"] is None


@pytest.mark.integration
def test_cli_run_free_text_counts_unparseable(tmp_path: Path, sample_gold: Path) -> None:
    from noveval.cli.main import app

    out = tmp_path / "run"
    res = CliRunner().invoke(app, ["run", "rinobench", "--out", str(out), "--items", str(sample_gold), "-n", "1", "--free-text", "--max-tokens", "96", "--allow-unparseable"])
    assert res.exit_code == 0, res.output
    preds = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
    assert len(preds) == 1 and all(p["raw"] is not None for p in preds)
    s = json.loads((out / "scores.json").read_text())
    assert s["extra"]["n_unparseable"] == sum(p["novelty_score"] is None for p in preds)
    assert sum(s["extra"]["predicted_score_distribution"].values()) == 1


def test_cli_score_bad_input_exits_2(tmp_path: Path, sample_gold: Path) -> None:
    from noveval.cli.main import app

    p = tmp_path / "p.json"
    p.write_text('[{"reasoning": "x"}]')
    res = CliRunner().invoke(app, ["score", "rinobench", "--predictions", str(p), "--gold", str(sample_gold)])
    assert res.exit_code == 2
    assert "novelty_score" in res.output
