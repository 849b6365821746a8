"""Robust reading of a model's novelty judgment (score 1-5 + justification).

RINoBench's task (Schopf & Färber 2026, Section 5, Figure 6) asks for a JSON object
``{"reasoning": ..., "novelty_score": N}``. Models do not always comply, so
:func:`parse_judgment` tries, in order:

1. a JSON object in the text, found by noveval's one extractor
   (:func:`noveval.models.structured.find_json_object`: code fences and surrounding prose
   allowed, light repairs, a reply cut off mid-way closed), with a score under
   ``novelty_score`` / ``score`` / ``novelty`` / ``rating`` / ``novelty_rating``;
2. an explicit label in prose: ``Novelty score: 4``, ``Score - 4/5``, ``**Score:** 4``,
   ``rating of 4``;
3. a final line that is only a score (``4`` or ``4/5``).

A bare digit elsewhere in the text is never taken as the score. When nothing matches,
or the score is outside 1..5, the answer is kept with ``score=None`` and a status
saying why; it counts as wrong for F1 and is reported apart for MAE
(:mod:`noveval.metrics.rinobench`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from noveval.models.structured import find_json_object

__all__ = ["ParsedJudgment", "parse_judgment"]

_SCORE_KEYS = ("novelty_score", "score", "novelty", "rating", "novelty_rating")
_REASON_KEYS = ("reasoning", "justification", "rationale", "reason", "explanation")

_LABELLED = re.compile(
    r"(?:novelty[\s_-]*)?(?:score|rating)\s*(?:\*\*)?\s*(?:is|of|=|:|-|–)?\s*(?:\*\*)?\s*"
    r"\(?\s*(?P<n>\d+(?:\.\d+)?)\s*(?:/\s*5|out of 5)?",
    re.I,
)
_LAST_LINE = re.compile(r"^\s*(?:\*\*)?\s*(?P<n>\d)\s*(?:/\s*5)?\s*(?:\*\*)?\s*\.?\s*$")


@dataclass(frozen=True)
class ParsedJudgment:
    """The outcome of parsing one answer.

    Attributes:
        score: The score in 1..5, or ``None`` when it could not be read.
        reasoning: The justification text (the whole answer when no field holds it).
        status: ``"json"``, ``"labelled"``, ``"last_line"`` (how the score was found),
            ``"out_of_range"`` (a score was found outside 1..5), ``"empty"`` or
            ``"unparseable"``.
    """

    score: int | None
    reasoning: str | None
    status: str

    @property
    def ok(self) -> bool:
        """True when a score in 1..5 was read."""
        return self.score is not None


def _as_score(value: Any) -> tuple[int | None, bool]:
    """Return (score, found): found means a number was present at all."""
    if isinstance(value, bool) or value is None:
        return None, False
    if isinstance(value, int | float):
        v = float(value)
        return (int(v) if v.is_integer() and 1 <= v <= 5 else None), True
    if isinstance(value, str):
        m = re.search(r"\d+(?:\.\d+)?", value)
        if not m:
            return None, False
        v = float(m.group(0))
        return (int(v) if v.is_integer() and 1 <= v <= 5 else None), True
    return None, False


def parse_judgment(text: str | None) -> ParsedJudgment:
    """Parse a model's answer into a score (1..5 or None) and a justification.

    Args:
        text: The raw answer.

    Returns:
        A :class:`ParsedJudgment`; never raises.
    """
    if text is None or not text.strip():
        return ParsedJudgment(None, None, "empty")
    out_of_range = False
    obj = find_json_object(text)
    if obj is not None:
        reasoning = next((obj[k] for k in _REASON_KEYS if isinstance(obj.get(k), str)), None)
        for k in _SCORE_KEYS:
            if k in obj:
                score, found = _as_score(obj[k])
                if score is not None:
                    return ParsedJudgment(score, reasoning or text.strip(), "json")
                out_of_range = out_of_range or found
                break
    for m in _LABELLED.finditer(text):
        score, found = _as_score(m.group("n"))
        if score is not None:
            return ParsedJudgment(score, text.strip(), "labelled")
        out_of_range = out_of_range or found
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    if lines:
        last = _LAST_LINE.match(lines[-1])
        if last:
            score, found = _as_score(last.group("n"))
            if score is not None:
                return ParsedJudgment(score, "\n".join(lines[:-1]).strip() or None, "last_line")
            out_of_range = out_of_range or found
    return ParsedJudgment(None, text.strip(), "out_of_range" if out_of_range else "unparseable")
