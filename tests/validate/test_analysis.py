"""Pure parts of the validity analysis: quantile bins and the summary table on hand-made rows."""

from __future__ import annotations

import numpy as np
import pytest

from noveval.benchmarks.validate.analysis import binned, score_rows
from noveval.benchmarks.validate.views import summary_lines


def test_binned_by_hand():
    pred = np.arange(10, dtype=float)  # quintiles: [0,1], [2,3], [4,5], [6,7], [8,9]
    target = np.array([1, 1, 2, 2, 3, 3, 4, 4, 4, 2], dtype=float)
    bins = binned(pred, target, bins=5)
    assert [b["n"] for b in bins] == [2, 2, 2, 2, 2]
    assert [b["mean"] for b in bins] == [1, 2, 3, 4, 3]
    assert bins[4]["ci_low"] == pytest.approx(3 - 1.96 * np.std([4, 2], ddof=1) / np.sqrt(2))
    assert bins[0]["ci_low"] == bins[0]["ci_high"] == 1  # no spread
    # ties merge bins; NaNs are left out
    assert [b["n"] for b in binned(np.array([0, 0, 0, 0, 1, 1, np.nan]), np.ones(7), bins=5)] == [4, 2]
    assert binned(np.array([1.0, 2.0]), np.array([1.0, 2.0]), bins=5) == []


def test_score_rows_on_hand_made_rows():
    rng = np.random.default_rng(0)
    rows = []
    for i in range(120):
        quality = rng.normal()
        scores = [int(np.clip(round(2.5 + quality + rng.normal(scale=0.8)), 1, 4)) for _ in range(3)]
        rows.append({"id": str(i), "human_scores": scores, "human_mean": float(np.mean(scores)),
                     "keywords": ["a"] if i % 2 else ["b", "a"], "abstract_words": 100 + i, "nn_year": 2020,
                     "predictors": {"good": quality + rng.normal(scale=0.3), "noise": rng.normal(),
                                    "sparse": quality if i < 30 else None}})
    rows.append({"id": "unrated", "human_scores": [], "human_mean": None, "predictors": {"good": 1.0}})
    res = score_rows(rows, predictors=["good", "noise", "sparse"], min_group=50, n_resamples=100)
    table = {r["predictor"]: r for r in res["extra"]["table"]}
    assert table["good"]["n"] == 120 and table["sparse"]["n"] == 30
    assert table["good"]["rho"] > 0.5 > abs(table["noise"]["rho"])
    assert res["extra"]["human"]["papers"] == 120
    assert res["metrics"]["human_ceiling_loro"]["n"] == 120
    groups = {g["group"]: g for g in res["extra"]["groups"]}
    assert set(groups) == {"a", "b"} and groups["a"]["n"] == 120 and groups["b"]["n"] == 60
    # nn_year is constant here: the partial correlation still comes out (a constant covariate changes nothing)
    assert table["good"]["partial_rho"] == pytest.approx(table["good"]["rho"], abs=0.05)
    text = "\n".join(summary_lines({"extra": res["extra"], "model": "none", "embedder": "e"}))
    assert "good" in text and "human ceiling" in text and "no LLM judge" in text
    assert "capped" not in text
    # a --limit run's candidate sample is said beside its numbers, not only in the log
    capped = {**res["extra"], "pool": {"candidate_cap": "--limit 3: a seeded sample of at most 1500 prior candidates"}}
    text = "\n".join(summary_lines({"extra": capped, "model": "none", "embedder": "e"}))
    assert "candidates capped by --limit 3" in text and "smoke test" in text


def test_common_subset_table_when_predictors_have_different_papers():
    rng = np.random.default_rng(1)
    rows = []
    for i in range(60):
        q = rng.normal()
        scores = [int(np.clip(round(2.5 + q + rng.normal()), 1, 4)) for _ in range(3)]
        rows.append({"id": str(i), "human_scores": scores, "human_mean": float(np.mean(scores)), "keywords": [],
                     "predictors": {"a": q, "b": q + rng.normal() if i < 25 else None}})
    res = score_rows(rows, predictors=["a", "b"], n_resamples=50)
    com = res["extra"]["common"]
    assert com["n"] == 25 and {r["predictor"]: r["n"] for r in com["table"]} == {"a": 25, "b": 25}
    import scipy.stats as ss

    a = next(r for r in com["table"] if r["predictor"] == "a")
    assert a["rho"] == pytest.approx(ss.spearmanr([r["predictors"]["a"] for r in rows[:25]],
                                                  [r["human_mean"] for r in rows[:25]]).statistic)
    same = score_rows([{**r, "predictors": {"a": r["predictors"]["a"]}} for r in rows], predictors=["a"],
                      n_resamples=50)
    assert same["extra"]["common"] is None
