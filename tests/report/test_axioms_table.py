"""Axioms Table 2 in the report: the best metric is marked within each field, as in the paper."""

from pathlib import Path

from noveval.benchmarks.axioms.views import axioms_tables
from noveval.report.model import RunData


def _run(table: dict) -> RunData:
    return RunData(path=Path("x"), benchmark="axioms", config={}, scores={"extra": {"table": table}},
                   predictions=[], judgments=[], per_item=[], label="r")


def test_best_metric_is_bold_per_field_not_per_column():
    cols = ["Ax1", "Avg"]
    table = {
        "columns": cols,
        "by_field": {"CV": {"Yin": {"Ax1": 90.0, "Avg": 90.0}, "RND": {"Ax1": 80.0, "Avg": 80.0}},
                     "ML": {"Yin": {"Ax1": 50.0, "Avg": 50.0}, "RND": {"Ax1": 60.0, "Avg": 60.0}}},
        "overall": {"Yin": {"Ax1": 70.0, "Avg": 70.0}, "RND": {"Ax1": 70.0, "Avg": 70.0}},
    }
    (t,), gaps = axioms_tables([_run(table)])
    assert not gaps
    best = {name: [c.best for c in cells] for name, cells in t.rows}
    assert best["CV · Yin"] == [True, True] and best["CV · RND"] == [False, False]
    assert best["ML · RND"] == [True, True] and best["ML · Yin"] == [False, False]  # 60 < 90 elsewhere
    assert best["All · Yin"] == [False, False] == best["All · RND"]  # a tie marks nothing


def test_metric_scored_with_several_seeds_shows_mean_and_sd():
    cols = ["Ax1", "Avg"]
    table = {
        "columns": cols,
        "by_field": {"ML": {"SemNovel": {"Ax1": 40.0, "Avg": 41.0}, "Yin": {"Ax1": 90.0, "Avg": 90.0}}},
        "overall": {"SemNovel": {"Ax1": 40.0, "Avg": 41.0}, "Yin": {"Ax1": 90.0, "Avg": 90.0}},
        "seeds": {"SemNovel": ["0", "1", "2"]},
        "sd": {"by_field": {"ML": {"SemNovel": {"Ax1": 2.5, "Avg": None}}},
               "overall": {"SemNovel": {"Ax1": 1.25, "Avg": 0.5}}},
    }
    (t,), _ = axioms_tables([_run(table)])
    rows = dict(t.rows)
    assert rows["ML · SemNovel"][0].ci == "± 2.5 (SD, 3 seeds)" and rows["ML · SemNovel"][1].ci == ""
    assert rows["All · SemNovel"][0].ci == "± 1.2 (SD, 3 seeds)" and rows["All · SemNovel"][1].ci == "± 0.5 (SD, 3 seeds)"
    assert rows["All · Yin"][0].ci == "" and rows["All · SemNovel"][0].text == "40.0"
    assert "seeds make the same" not in t.caption  # a run written before seed agreement existed
    table["seed_agreement"] = {"SemNovel": {"Ax1": [0.75, 8], "all": [0.75, 8]}}  # as read back from JSON
    (t,), _ = axioms_tables([_run(table)])
    assert "SemNovel: all 3 seeds make the same pass/fail decision on 75.0% of 8 checks." in t.caption
