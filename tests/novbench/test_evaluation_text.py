"""Structured-evaluation parser/writer (NovBench Section 3.2, Appendix C/E formats)."""

import json
import re

import pytest

from noveval.benchmarks.novbench.evaluation_text import (
    StructuredEvaluation,
    format_evaluation,
    is_placeholder,
    parse_evaluation,
)

CANONICAL = """Positive Novelty Evaluations
- The paper introduces a new benchmark for physical concepts.
- The distillation idea is inspiring.

Neutral Novelty Evaluations
- None

Negative Novelty Evaluations
- Newer models already know much of this.
"""


def test_parse_canonical():
    ev = parse_evaluation(CANONICAL)
    assert ev.found_headers == 3
    assert ev.counts() == {"positive": 2, "neutral": 0, "negative": 1}
    assert ev.negative == ["Newer models already know much of this."]


@pytest.mark.parametrize(
    "text",
    [
        "**Positive Novelty Evaluations**\n\n- a new idea here\n\n**Neutral Novelty Evaluations**\n"
        "- [No neutral comments]\n\n**Negative Novelty Evaluations**\n* not new at all really",
        "### Positive Novelty Evaluations\n1. a new idea here\n### Neutral Novelty Evaluations\n"
        "*(No neutral comments were identified.)*\n### Negative Novelty Evaluations\n"
        "2) not new at all really",
        "Sure! Here is my evaluation.\nPositive:\n• a new idea here\nNeutral:\n-\nNegative:\n"
        "- not new at all really\n---",
        "## **Positive Novelty Evaluations:**\n- a new idea here\n## Neutral Novelty Evaluation\n"
        "- None.\n## Negative Novelty Evaluations\n- not new at all really",
        "Positive Novelty Evaluations: - a new idea here\nNeutral Novelty Evaluations\n- N/A\n"
        "Negative Novelty Evaluations\n- not new at all really",
    ],
)
def test_markdown_variants(text):
    ev = parse_evaluation(text)
    assert ev.positive == ["a new idea here"]
    assert ev.neutral == []
    assert ev.negative == ["not new at all really"]


def test_prose_starting_with_sentiment_word_is_not_a_header():
    ev = parse_evaluation("Positive Novelty Evaluations\n- x is new and fine\nPositive results show it")
    assert ev.positive == ["x is new and fine", "Positive results show it"]


def test_no_format_gives_no_headers():
    ev = parse_evaluation("This paper is very novel.")
    assert ev.found_headers == 0 and ev.is_empty()
    assert parse_evaluation(None).is_empty()
    assert parse_evaluation("").found_headers == 0


def test_placeholders():
    for s in ["None", "None.", "[None]", "N/A", "[No negative comments]", "(No positive comments provided)", ""]:
        assert is_placeholder(s), s
    for s in ["No comparison with prior work is offered.", "Nonetheless, a new method."]:
        assert not is_placeholder(s), s


def test_round_trip_writer_parser():
    ev = StructuredEvaluation(
        positive=["First point, new.", "Second\npoint spans lines."],
        neutral=[],
        negative=["- dash-leading text is kept"],
    )
    text = format_evaluation(ev)
    back = parse_evaluation(text)
    assert back.positive == ["First point, new.", "Second point spans lines."]
    assert back.neutral == []
    assert back.negative == ["- dash-leading text is kept"]  # only one bullet is stripped
    assert format_evaluation(back) == text
    assert "- None" in text


def test_labelled_items_filters_short():
    ev = StructuredEvaluation(positive=["ok", "A long enough positive item."], negative=["None"])
    assert ev.labelled_items() == [("positive", "A long enough positive item.")]
    assert len(ev.labelled_items(filtered=False)) == 3


def _naive_counts(text: str) -> dict[str, int]:
    """Independent count: '- ' bullets under each plain header, minus placeholders."""
    counts = {"positive": 0, "neutral": 0, "negative": 0}
    cur = None
    for line in text.splitlines():
        s = line.strip()
        m = re.fullmatch(r"\**(Positive|Neutral|Negative) Novelty Evaluations\**", s)
        if m:
            cur = m.group(1).lower()
        elif cur and s.startswith("- ") and not is_placeholder(s[2:]):
            counts[cur] += 1
    return counts


@pytest.mark.realdata
def test_every_released_output_format_parses_without_loss(novbench_dir):
    files = sorted(novbench_dir.glob("*.json"))
    checked = 0
    for f in files:
        data = json.loads(f.read_text(encoding="utf-8"))
        if not (isinstance(data, list) and data and isinstance(data[0], dict)):
            continue
        for rec in data:
            if "output_format" not in rec:
                continue
            text = rec["output_format"]
            ev = parse_evaluation(text)
            assert ev.found_headers >= 1, (f.name, rec["id"])
            assert ev.counts() == _naive_counts(text), (f.name, rec["id"])
            again = parse_evaluation(format_evaluation(ev))
            assert again.model_dump(exclude={"found_headers"}) == ev.model_dump(
                exclude={"found_headers"}
            )
            checked += 1
    assert checked >= 273
