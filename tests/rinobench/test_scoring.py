"""Scoring without a judge: published keys, confusion matrix, distributions, no partial output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from noveval.benchmarks import rinobench
from noveval.errors import InputError
from noveval.metrics.rinobench import macro_f1


def test_score_without_judge_writes_run(gold_file, tmp_path: Path) -> None:
    gold = gold_file(30)
    golds = [g["novelty_score"] for g in json.loads(gold.read_text())]
    preds = [{"reasoning": "r", "novelty_score": 3 if i % 3 else 4} for i in range(30)]
    preds[7]["novelty_score"] = None
    pf = tmp_path / "preds.json"
    pf.write_text(json.dumps(preds))
    out = tmp_path / "run"
    s = rinobench.score(pf, gold, out=out, progress=False, n_resamples=200)
    ev = s["extra"]["evaluation"]
    assert list(ev["f1_scores"]) == ["1", "2", "3", "4", "5", "macro"]
    assert ev["f1_scores"]["macro"] == pytest.approx(macro_f1(golds, [p["novelty_score"] for p in preds]))
    assert s["primary_metric"] == "f1_macro"
    m = s["metrics"]["f1_macro"]
    assert m["ci_low"] <= m["mean"] <= m["ci_high"]
    assert s["metrics"]["mean_absolute_error"]["n"] == 29
    assert s["extra"]["n_unparseable"] == 1
    assert s["extra"]["predicted_score_distribution"]["1"] == 0
    assert sum(s["extra"]["predicted_score_distribution"].values()) == 30
    assert sum(sum(r.values()) for r in s["extra"]["confusion_matrix"].values()) == 30
    for name in ("config.json", "per_item.jsonl", "scores.json", "evaluation.json"):
        assert (out / name).exists()
    assert "mean_alignment" not in ev


def test_bad_input_writes_nothing(gold_file, tmp_path: Path) -> None:
    gold = gold_file(5)
    pf = tmp_path / "preds.json"
    pf.write_text(json.dumps([{"reasoning": "r", "novelty_score": 3}] * 4))
    out = tmp_path / "run"
    with pytest.raises(InputError, match="4 predictions for 5 gold items"):
        rinobench.score(pf, gold, out=out, progress=False)
    assert not out.exists()
    pf.write_text(json.dumps([{"id": str(i), "reasoning": "r", "novelty_score": 3} for i in range(4)] + [{"id": "x", "reasoning": "r", "novelty_score": 3}]))
    with pytest.raises(InputError, match="'x' is not in the gold"):
        rinobench.score(pf, gold, out=out, progress=False)
    assert not out.exists()
