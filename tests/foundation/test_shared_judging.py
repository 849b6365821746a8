"""Shared novelty judging (issue 38 item 4): one module, no system importing another, one JSON extractor.

validate, novelty-pairs and ``noveval check`` judge novelty with RINoBench's rubric, schema,
request and parser; those live in :mod:`noveval.judging`, so none of them imports the
rinobench package (tests/foundation/test_layering.py walks their imports). Every reply is read
by :mod:`noveval.models.structured`'s extractor.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import noveval
from noveval.benchmarks.pairs.task import parse_choice
from noveval.judging import parse_judgment
from noveval.models.structured import extract_json, find_json_object


def test_no_second_json_extractor_in_the_parsers() -> None:
    """The reply parsers decode JSON only through models/structured.py (no json.loads/raw_decode of their own)."""
    for rel in ("judging/parse.py", "benchmarks/pairs/task.py", "benchmarks/rinobench/parse.py",
                "benchmarks/focus/agreement.py", "benchmarks/focus/annotate.py"):
        tree = ast.parse((Path(noveval.__file__).parent / rel).read_text(encoding="utf-8"))
        calls = {n.func.attr for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)}
        assert not calls & {"loads", "raw_decode"}, rel


def test_rinobench_re_exports_the_shared_names() -> None:
    """rinobench's own users keep their imports: the names are the shared objects themselves."""
    import noveval.judging as shared
    from noveval.benchmarks.rinobench import construct, data, generate, parse

    assert data.DEFAULT_RUBRIC is shared.DEFAULT_RUBRIC and data.load_items is shared.load_items
    assert data.RINoBenchItem is shared.RINoBenchItem and data.rubric_text is shared.rubric_text
    assert generate.JUDGMENT_SCHEMA is shared.JUDGMENT_SCHEMA and generate.build_request is shared.build_request
    assert parse.parse_judgment is shared.parse_judgment and construct.IdeaReply is shared.IdeaReply
    assert parse.find_json_object is find_json_object


# Replies each old extractor read (rinobench/parse.py's brace scan, pairs/task.py's
# first-{-to-last-} span, structured.py's fences/repairs/truncation), hand-checked.
@pytest.mark.parametrize(("text", "score", "status"), [
    ('I rate {novelty} as follows: {"novelty_score": 2, "reasoning": "r"}', 2, "json"),  # old brace scan
    ('{"a": 1} then {"novelty_score": 5}', None, "unparseable"),  # first object wins, as before
    ('[{"reasoning": "r", "novelty_score": 4}]', 4, "json"),
    ('```json\n{"reasoning": "r", "novelty_score": 3}\n```', 3, "json"),
    # read now, not before: the shared repairs (single quotes, trailing comma, cut off)
    ("{'reasoning': 'r', 'novelty_score': 4}", 4, "json"),
    ('{"reasoning": "r", "novelty_score": 4,}', 4, "json"),
    ('{"novelty_score": 4, "reasoning": "cut o', 4, "json"),
])
def test_parse_judgment_through_the_shared_extractor(text: str, score: int | None, status: str) -> None:
    got = parse_judgment(text)
    assert (got.score, got.status) == (score, status)


@pytest.mark.parametrize(("text", "want"), [
    ('Answer: {"more_novel": "B"} (B adds a new loss)', "B"),  # old span
    ('{"x": 1} {"more_novel": "A"}', "A"),  # span fails as a whole: the fragment rule, as before
    ('{"more_novel": "A"} and {"y": 2}', "A"),
    ("{'more_novel': 'B'}", "B"),  # read now: repaired quotes
    ('{"more_novel": "B', "B"),  # read now: cut off
    ('{"more_novel": "ti', None),
])
def test_parse_choice_through_the_shared_extractor(text: str, want: str | None) -> None:
    assert parse_choice(text) == want


def test_focus_polarity_reads_what_json_loads_read_and_more() -> None:
    from noveval.benchmarks.focus.agreement import parse_polarity

    assert parse_polarity('{"polarity": "weakness"}') == "weakness"
    assert parse_polarity("it praises and criticises") is None and parse_polarity(None) is None
    assert parse_polarity('{"polarity": "neutral"}') is None
    assert parse_polarity('```json\n{"polarity": "strength"}\n```') == "strength"  # read now, not before


def test_extract_json_reads_what_only_the_brace_scan_read() -> None:
    text = 'Scores {1-5}: {"novelty_score": 3}'
    assert extract_json(text) == {"novelty_score": 3}
    assert find_json_object("[1, 2] and nothing else") is None and find_json_object(None) is None
    assert find_json_object('see [1]. {"a": {"b": 2}}') == {"a": {"b": 2}}
