"""Loaders for the published RINoBench formats; bad input names file, line and field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from noveval.benchmarks.rinobench import load_items, load_predictions, load_rubric
from noveval.benchmarks.rinobench.data import DEFAULT_RUBRIC, coerce_score
from noveval.errors import InputError


def test_sample_items_load(sample_gold: Path) -> None:
    items = load_items(sample_gold, require_gold=True)
    assert [it.id for it in items] == ["0", "1", "2", "3"]
    assert items[0].research_idea.problem_statement
    assert items[0].related_works[0].title
    assert {it.novelty_score for it in items} <= {1, 2, 3, 4, 5}


def test_items_errors_name_line_and_field(tmp_path: Path) -> None:
    p = tmp_path / "bad.json"
    p.write_text('[\n{"research_idea": {"objective": "o", "problem_statement": "p", "solution_approach": "s"}},\n{"research_idea": {"objective": "o"}}\n]')
    with pytest.raises(InputError) as e:
        load_items(p)
    assert ":3:" in str(e.value) and "research_idea" in str(e.value)
    p.write_text('[{"research_idea": {"objective": "o", "problem_statement": "p", "solution_approach": "s"}, "novelty_score": 9}]')
    with pytest.raises(InputError, match="novelty_score"):
        load_items(p)
    p.write_text('[{"research_idea": {"objective": "o", "problem_statement": "p", "solution_approach": "s"}, "novelty_score": "4"}]')
    with pytest.raises(InputError, match=r"\[0\]\.novelty_score: Input should be a valid integer"):
        load_items(p)  # a gold score written as a string is a bad input, as in every system
    p.write_text('[{"research_idea": {"objective": "o", "problem_statement": "p", "solution_approach": "s"}}]')
    with pytest.raises(InputError, match="gold score is missing"):
        load_items(p, require_gold=True)


def test_predictions_published_format_and_unparseable(tmp_path: Path) -> None:
    p = tmp_path / "preds.json"
    p.write_text(json.dumps([
        {"reasoning": "r1", "novelty_score": 4},
        {"reasoning": "r2", "novelty_score": 3},
        {"reasoning": "r3", "novelty_score": None},
        {"reasoning": "r4", "novelty_score": 5.0},
    ]))
    preds = load_predictions(p)
    assert [x.novelty_score for x in preds] == [4, 3, None, 5]
    assert preds[2].parse_status == "unparseable"  # null: a prediction without a score, kept
    p.write_text(json.dumps([{"reasoning": "r1"}]))
    with pytest.raises(InputError, match=r"\[0\]\.novelty_score"):
        load_predictions(p)
    p.write_text("[]")
    with pytest.raises(InputError):
        load_predictions(p)


@pytest.mark.parametrize("bad", [9, 0, -1, 3.5, "three", "", "4", True, [4], {"score": 4}])
def test_a_score_that_cannot_be_right_is_an_input_error_with_its_line(tmp_path: Path, bad: object) -> None:
    """9, 0, 3.5, "three" or "4" (a string) in a user's file is a wrong value (exit 2), not an unparseable answer."""
    p = tmp_path / "preds.json"
    rows = [{"reasoning": "fine", "novelty_score": 4}, {"reasoning": "bad", "novelty_score": bad}]
    p.write_text(json.dumps(rows, indent=1))  # "[", " {", 2 fields, " },", then record [1] opens on line 6
    with pytest.raises(InputError) as e:
        load_predictions(p)
    what = "is a string: write the score as a JSON number" if bad == "4" else "is not a score"
    assert str(e.value).startswith(f"{p}:6: [1].novelty_score: {json.dumps(bad)} {what}")
    jl = tmp_path / "preds.jsonl"
    jl.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(InputError, match=r"preds\.jsonl:2: \[1\]\.novelty_score: "):
        load_predictions(jl)


def test_predictions_jsonl_with_ids(tmp_path: Path) -> None:
    p = tmp_path / "predictions.jsonl"
    p.write_text('{"id": 0, "reasoning": "x", "novelty_score": 2}\n{"id": "1", "reasoning": null, "novelty_score": null, "parse_status": "empty"}\n')
    preds = load_predictions(p)
    assert [x.id for x in preds] == ["0", "1"] and preds[1].parse_status == "empty"


def test_rubric(tmp_path: Path) -> None:
    assert load_rubric() == DEFAULT_RUBRIC
    p = tmp_path / "label_descriptions.json"
    p.write_text(json.dumps([f"{k}: {v}" for k, v in DEFAULT_RUBRIC.items()]))
    assert load_rubric(p) == DEFAULT_RUBRIC
    p.write_text(json.dumps(["1: a", "2: b"]))
    with pytest.raises(InputError, match="1..5"):
        load_rubric(p)


@pytest.mark.parametrize(("v", "out"), [(3, 3), (3.0, 3), ("5/5", 5), (" 2 ", 2), (0, None), (True, None), ("high", None), ([4], None)])
def test_coerce_score(v: object, out: int | None) -> None:
    assert coerce_score(v) == out
