"""Regression tests for the two wrong numbers of issue 13 (items 1 and 2), hand-computed."""

import pytest

from noveval.benchmarks.focus.score import focus_report, per_paper_rows


def _pt(pol, target, aspect, pid="p"):
    return {"paper_id": pid, "polarity": pol, "target": target, "aspect": aspect,
            "error": None if target and aspect else "target: reply is not JSON"}


def test_failed_points_match_nothing_and_are_counted():
    # one failed point per side + one unrelated labelled point per side
    human = [_pt("weakness", None, None), _pt("weakness", "Method", "Validity")]
    model = [_pt("weakness", None, None), _pt("weakness", "Experiment", "Novelty")]
    (row,) = per_paper_rows(["p"], human, model, text_metrics=False)
    # before the fix the two failed points matched each other: F1 = 0.5
    assert row["f1_overall"] == 0.0
    assert row["f1_weakness"] == 0.0
    assert row["precision_overall"] == 0.0 and row["recall_overall"] == 0.0
    assert row["n_failed_model"] == 1 and row["n_failed_human"] == 1
    rep = focus_report(["p"], human, model, epsilon=1e-3)
    assert (rep["annotation_failures"]["human"], rep["annotation_failures"]["model"]) == (1, 1)


def test_failed_points_stay_in_the_denominators():
    # human: (Method, Validity) + a failed point; model: (Method, Validity)
    # tp = 1, |human| = 2, |model| = 1 -> P = 1, R = 1/2, F1 = 2/3
    human = [_pt("strength", "Method", "Validity"), _pt("strength", "Method", None)]
    model = [_pt("strength", "Method", "Validity")]
    (row,) = per_paper_rows(["p"], human, model, text_metrics=False)
    assert row["precision_overall"] == 1.0 and row["recall_overall"] == 0.5
    assert row["f1_strength"] == pytest.approx(2 / 3)
    # two failed points on the same side are two different labels, never one match
    model2 = [_pt("strength", None, None), _pt("strength", None, None)]
    (row2,) = per_paper_rows(["p"], [_pt("strength", None, None)], model2, text_metrics=False)
    assert row2["f1_strength"] == 0.0 and row2["n_failed_model"] == 2
    # a half-failed point (target parsed, aspect not) is failed too
    (row3,) = per_paper_rows(["p"], [_pt("weakness", "Method", None)],
                             [_pt("weakness", "Method", None)], text_metrics=False)
    assert row3["f1_weakness"] == 0.0 and row3["n_failed_human"] == 1
