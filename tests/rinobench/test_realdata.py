"""The seven published RINoBench prediction files load and score against a gold file we write."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from noveval.benchmarks import rinobench
from noveval.benchmarks.rinobench import load_predictions, load_rubric
from noveval.benchmarks.rinobench.data import DEFAULT_RUBRIC

from .conftest import make_gold


@pytest.mark.realdata
def test_published_predictions_load_and_score(data_dir: Path, tmp_path: Path) -> None:
    files = sorted((data_dir / "rinobench" / "predictions").glob("novelty_predictions-*.json"))
    assert len(files) == 7
    gold = tmp_path / "test.json"
    gold.write_text(json.dumps(make_gold(277, seed=1)), encoding="utf-8")
    for f in files:
        preds = load_predictions(f)
        assert len(preds) == 277
        assert all(p.reasoning for p in preds)
        s = rinobench.score(f, gold, progress=False, n_resamples=100)
        ev = s["extra"]["evaluation"]
        assert set(ev["f1_scores"]) == {"1", "2", "3", "4", "5", "macro"}
        assert 0.0 <= ev["f1_scores"]["macro"] <= 1.0
        assert 0.0 <= ev["mean_absolute_error"] <= 4.0
        dist = s["extra"]["predicted_score_distribution"]
        assert sum(dist.values()) == 277 and dist["unparseable"] == 0
        # Section 5: the published models concentrate on 3 and 4 and avoid the extremes
        assert dist["3"] + dist["4"] > 0.8 * 277
        assert s["extra"]["extreme_scores_share"]["predicted"] < s["extra"]["extreme_scores_share"]["gold"]


@pytest.mark.realdata
def test_published_rubric_matches_table_1(data_dir: Path) -> None:
    rub = load_rubric(data_dir / "rinobench" / "label_descriptions.json")
    assert sorted(rub) == [1, 2, 3, 4, 5]
    for k in (1, 2, 4, 5):
        assert rub[k] == DEFAULT_RUBRIC[k]
