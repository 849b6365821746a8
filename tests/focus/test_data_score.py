"""Loader, input errors and scoring on hand-made rows (no model)."""

import json

import pytest

from noveval.benchmarks.focus.data import load_papers, points_from_sections
from noveval.benchmarks.focus.generate import paper_input, parse_review
from noveval.benchmarks.focus.scoring import focus_report, per_paper_rows
from noveval.errors import InputError


def _sample_path():
    from importlib import resources

    return str(resources.files("noveval") / "samples" / "focus" / "sample_reviews.jsonl")


def test_sample_points():
    papers = load_papers(_sample_path())
    assert len(papers) == 3
    pts = points_from_sections(papers[0])
    assert [p.polarity for p in pts].count("strength") == 5  # 3 bullets + 2 sentences
    assert any("DropEdge" in p.text for p in pts if p.polarity == "weakness")
    assert len({p.id for p in pts}) == len(pts)


def test_bad_input(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": "a", "title": "T"}) + "\n" + json.dumps({"id": "b"}) + "\n")
    with pytest.raises(InputError) as e:
        load_papers(bad)
    assert ":2:" in str(e.value) and "title" in str(e.value)


def test_truncation_rule():
    from noveval.benchmarks.focus.data import FocusPaper

    p = FocusPaper(id="x", title="T", abstract="a", fulltext_markdown="word " * 1000 + "\n\n" + "z " * 5000)
    text, info = paper_input(p, source="fulltext", max_input_tokens=1000)
    assert info["truncated"] and len(text) <= 4000 and info["source"] == "fulltext"
    assert "4 chars/token" in info["rule"]


def test_parse_review_json_and_fallback():
    r, err = parse_review('{"summary": "s", "strengths": ["a b c"], "weaknesses": ["d e f", ""]}')
    assert err is None and r["weaknesses"] == ["d e f"]
    r, err = parse_review("Strengths:\n- good idea here\nWeaknesses:\n- weak baselines used")
    assert r["strengths"] == ["good idea here"] and err


def test_scoring_rows():
    human = [
        {"paper_id": "p", "polarity": "strength", "target": "Method", "aspect": "Novelty"},
        {"paper_id": "p", "polarity": "weakness", "target": "Experiment", "aspect": "Validity"},
    ]
    model = [
        {"paper_id": "p", "polarity": "strength", "target": "Method", "aspect": "Novelty"},
        {"paper_id": "p", "polarity": "weakness", "target": "Method", "aspect": "Validity"},
    ]
    (row,) = per_paper_rows(["p"], human, model, text_metrics=False)
    assert row["f1_overall"] == 0.5 and row["f1_strength"] == 1.0 and row["f1_weakness"] == 0.0
    rep = focus_report(["p"], human, model, epsilon=1e-3)
    assert rep["distributions"]["human"]["weakness/target"][4] == 1.0
    assert rep["kl"]["strength/target"] == pytest.approx(0.0)
    assert rep["kl"]["weakness/target"] > 1.0
