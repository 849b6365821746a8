"""Regression tests for the two wrong numbers of issue 13 (items 1 and 2), hand-computed."""

import pytest

from noveval.benchmarks.focus.scoring import focus_report, per_paper_rows


def _pt(pol, target, aspect, pid="p"):
    return {"paper_id": pid, "polarity": pol, "target": target, "aspect": aspect, "text": "t",
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


def _write_run(path, human, model, preds):
    from noveval.runs import RunDir

    run = RunDir.create(path, {"benchmark": "focus", "model": "m", "annotator": "m", "epsilon": 1e-3})
    run.write("predictions", preds)
    run.write("judgments", [{"source": "human", **r} for r in human] + [{"source": "m", **r} for r in model])
    return run


def test_weakness_counts_have_a_mean_and_the_report_shows_it(tmp_path):
    from noveval.benchmarks.focus.options import FocusScoreOptions
    from noveval.benchmarks.focus.pipeline import score_run
    from noveval.report.build import build_report

    # paper a: model 3 weaknesses, 1 strength; paper b: model 1 weakness, 0 strengths
    model = ([_pt("weakness", "Method", "Validity", "a")] * 3 + [_pt("strength", "Method", "Novelty", "a")]
             + [_pt("weakness", "Theory", "Clarity", "b")])
    human = [_pt("weakness", "Method", "Validity", "a"), _pt("weakness", "Method", "Validity", "b"),
             _pt("weakness", "Paper", "Clarity", "b")]
    preds = [{"id": "a", "review_text": "x"}, {"id": "b", "review_text": "y"}]
    run = _write_run(tmp_path / "run", human, model, preds)
    scores = score_run(run.path, FocusScoreOptions(text_metrics=False, plot=False))
    m = scores["metrics"]
    assert "n_weaknesss_model" not in m
    assert m["n_weaknesses_model"]["mean"] == pytest.approx(2.0) and m["n_weaknesses_model"]["n"] == 2
    assert m["n_strengths_model"]["mean"] == pytest.approx(0.5)
    assert m["n_weaknesses_human"]["mean"] == pytest.approx(1.5)
    view = build_report([run.path])
    (bench,) = view.benchmarks
    rows = dict(bench.headline.rows)
    (cell,) = rows["N weaknesses model"]
    assert cell.text == "2.000" and cell.value == pytest.approx(2.0)
