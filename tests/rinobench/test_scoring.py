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
    s = rinobench.score_predictions(pf, gold, out=out, n_resamples=200)
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
        rinobench.score_predictions(pf, gold, out=out)
    assert not out.exists()
    pf.write_text(json.dumps([{"id": str(i), "reasoning": "r", "novelty_score": 3} for i in range(4)] + [{"id": "x", "reasoning": "r", "novelty_score": 3}]))
    with pytest.raises(InputError, match="'x' is not in the gold"):
        rinobench.score_predictions(pf, gold, out=out)
    assert not out.exists()


def _write_gold_and_preds(tmp_path: Path, gold_scores: list[int], pred_scores: list[int], tag: str) -> tuple[Path, Path]:
    from .conftest import make_gold

    items = make_gold(max(len(gold_scores), 5), seed=3)[: len(gold_scores)]
    for it, g in zip(items, gold_scores, strict=True):
        it["novelty_score"] = g
    gold = tmp_path / f"gold-{tag}.json"
    gold.write_text(json.dumps(items))
    preds = tmp_path / f"preds-{tag}.json"
    preds.write_text(json.dumps([{"reasoning": "r", "novelty_score": p} for p in pred_scores]))
    return gold, preds


@pytest.mark.parametrize("seed", range(12))
def test_cli_f1_labels_present_equals_sklearn_default(tmp_path: Path, seed: int) -> None:
    """`noveval score rinobench --f1-labels present` is scikit-learn's default macro-F1."""
    import warnings

    import numpy as np
    from sklearn.metrics import f1_score
    from typer.testing import CliRunner

    from noveval.cli.main import app

    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 10))
    g = rng.choice(rng.choice([1, 2, 3, 4, 5], int(rng.integers(1, 4)), replace=False), n).tolist()
    p = rng.choice(rng.choice([1, 2, 3, 4, 5], int(rng.integers(1, 4)), replace=False), n).tolist()
    if seed == 0:
        g, p = [4, 4], [4, 4]  # the example: fixed 0.2, released 1.0
    gold, preds = _write_gold_and_preds(tmp_path, g, p, str(seed))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        macro = float(f1_score(g, p, average="macro"))
        labels = np.unique(g)
        per = f1_score(g, p, average=None, labels=labels)
    expected = {str(int(k)): float(v) for k, v in zip(labels, per, strict=True)} | {"macro": macro}
    res = CliRunner().invoke(app, ["score", "rinobench", "-p", str(preds), "-g", str(gold), "--f1-labels", "present", "--json"])
    assert res.exit_code == 0, res.output
    printed = json.loads(res.stdout)["extra"]["evaluation"]
    assert printed["f1_scores"] == expected and list(printed["f1_scores"]) == list(expected)
    fixed = CliRunner().invoke(app, ["score", "rinobench", "-p", str(preds), "-g", str(gold), "--json"])
    fixed_scores = json.loads(fixed.stdout)["extra"]["evaluation"]["f1_scores"]
    assert list(fixed_scores) == ["1", "2", "3", "4", "5", "macro"]
    assert fixed_scores["macro"] == pytest.approx(macro_f1(g, p))
    if seed == 0:
        assert printed["f1_scores"]["macro"] == 1.0 and fixed_scores["macro"] == pytest.approx(0.2)


def test_f1_labels_recorded_and_bad_value_is_input_error(tmp_path: Path) -> None:
    gold, preds = _write_gold_and_preds(tmp_path, [3, 4, 4], [3, 4, 5], "rec")
    out = tmp_path / "run"
    s = rinobench.score_predictions(preds, gold, out=out, n_resamples=50, f1_labels="present")
    assert s["extra"]["f1_labels"] == "present" and s["extra"]["f1_macro_labels"] == [3, 4, 5]
    assert set(s["metrics"]) >= {"f1_macro", "f1_3", "f1_4"} and "f1_5" not in s["metrics"]
    assert s["metrics"]["f1_macro"]["mean"] == pytest.approx((1 + 2 / 3 + 0) / 3)
    assert json.loads((out / "config.json").read_text())["f1_labels"] == "present"
    assert json.loads((out / "evaluation.json").read_text())["f1_scores"] == {"3": 1.0, "4": pytest.approx(2 / 3), "macro": pytest.approx(5 / 9)}
    assert s["extra"]["protocol"] is None  # saved predictions of unknown origin
    from noveval.benchmarks.rinobench.views import rinobench_tables
    from noveval.report.load import load_run

    tables, _ = rinobench_tables([load_run(out)])
    assert "F1 labels present (released eval.py)" in tables[0].caption and "protocol unknown" in tables[0].caption
    with pytest.raises(InputError, match="f1_labels: must be one of fixed, present"):
        rinobench.score_predictions(preds, gold, out=tmp_path / "run2", f1_labels="all")
    assert not (tmp_path / "run2").exists()
