"""Parsing a model's novelty judgment robustly; unparseable answers are kept."""

from __future__ import annotations

import pytest

from noveval.benchmarks.rinobench.parse import parse_judgment


@pytest.mark.parametrize(
    ("text", "score", "status"),
    [
        ('{"reasoning": "Builds on X.", "novelty_score": 4}', 4, "json"),
        ('Sure!\n```json\n{"reasoning": "r", "novelty_score": "3"}\n```', 3, "json"),
        ('{"justification": "r", "score": 2.0}', 2, "json"),
        ("The idea extends prior work.\nNovelty score: 2", 2, "labelled"),
        ("**Score:** 5/5 because it opens a new direction", 5, "labelled"),
        ("I would give it a rating of 3 out of 5.", 3, "labelled"),
        ("Mostly known.\n4", 4, "last_line"),
        ("Mostly known.\n**1/5**", 1, "last_line"),
        ('{"novelty_score": 7}', None, "out_of_range"),
        ("Novelty score: 0", None, "out_of_range"),
        ("It uses 3 datasets and 2 baselines.", None, "unparseable"),
        ("", None, "empty"),
        (None, None, "empty"),
        ('{"reasoning": "truncated', None, "unparseable"),
    ],
)
def test_parse_judgment(text: str | None, score: int | None, status: str) -> None:
    p = parse_judgment(text)
    assert p.score == score
    assert p.status == status
    assert p.ok is (score is not None)


def test_reasoning_taken_from_json_field() -> None:
    p = parse_judgment('x {"reasoning": "Because A.", "novelty_score": 3} y')
    assert p.reasoning == "Because A."


def test_unparseable_keeps_text() -> None:
    p = parse_judgment("no idea")
    assert p.reasoning == "no idea"
