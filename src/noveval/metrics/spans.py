"""Span-set F1 with one-to-one alignment (CLAIMCHECK §3.4, footnote 11).

CLAIMCHECK measures agreement between two sets of selected text spans (weakness
spans in a review, or target claims of a weakness) in two steps:

1. **Alignment.** For one item (a review, or a weakness), build the similarity
   matrix ``S[i, j] = sim(g_i, p_j)`` between the spans of side A (``g``) and side B
   (``p``) and solve the linear sum assignment that maximises ``sum S[i, j]`` over a
   one-to-one matching (Hungarian algorithm, :func:`scipy.optimize.linear_sum_assignment`).
2. **Soft F1, micro-averaged.** With ``M_u`` the summed similarity of the matched pairs
   of item ``u``, precision and recall are pooled over items::

       P = sum_u M_u / sum_u |p_u|        R = sum_u M_u / sum_u |g_u|
       F1 = 2 P R / (P + R)

   Unmatched spans (the surplus side of a non-square matrix) contribute 0 to ``M``
   but count in the denominators.

``F1_edit`` uses the normalised edit-distance similarity
``sim(a, b) = 1 - lev(a, b) / max(|a|, |b|)`` (``1`` when both are empty), which the
paper prefers because annotators disagree on span extents (footnote 11).
``F1_exact`` uses ``sim(a, b) = 1[a == b]``; with it the assignment reduces to counting
shared spans (multiset intersection). Both compare whitespace-normalised text by
default (runs of whitespace collapsed to one space, ends stripped).

F1 is symmetric in its two arguments, so it serves both as a model-vs-gold score and
as a pairwise inter-annotator agreement (see :mod:`noveval.metrics.agreement`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "SpanCounts",
    "edit_similarity",
    "exact_similarity",
    "normalize_span",
    "span_counts",
    "f1_edit",
    "f1_exact",
    "f1_from_span_sums",
    "spans_from_offsets",
]

_WS = re.compile(r"\s+")

Similarity = Callable[[str, str], float]


def normalize_span(text: str) -> str:
    """Collapse every run of whitespace to one space and strip the ends.

    Args:
        text: A span's text.

    Returns:
        The normalised text (idempotent).
    """
    return _WS.sub(" ", text).strip()


def _levenshtein(a: str, b: str) -> int:
    """Plain dynamic-programming Levenshtein distance (unit costs)."""
    if len(a) < len(b):
        a, b = b, a
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def edit_similarity(a: str, b: str) -> float:
    """Normalised edit-distance similarity ``1 - lev(a, b) / max(|a|, |b|)``.

    Character-level Levenshtein distance with unit costs (CLAIMCHECK §3.4).
    Uses :mod:`rapidfuzz` when available, with an exact pure-Python fallback.

    Args:
        a: First string.
        b: Second string.

    Returns:
        A value in ``[0, 1]``; ``1`` for identical strings (including both empty),
        ``0`` when no character can be kept.
    """
    if a == b:
        return 1.0
    longest = max(len(a), len(b))
    try:
        from rapidfuzz.distance import Levenshtein

        dist = Levenshtein.distance(a, b)
    except ImportError:  # pragma: no cover - rapidfuzz is a dependency
        dist = _levenshtein(a, b)
    return 1.0 - dist / longest


def exact_similarity(a: str, b: str) -> float:
    """Exact-match similarity ``1[a == b]``.

    Args:
        a: First string.
        b: Second string.

    Returns:
        ``1.0`` when equal, else ``0.0``.
    """
    return 1.0 if a == b else 0.0


@dataclass(frozen=True)
class SpanCounts:
    """Pooled alignment counts: ``matched`` = summed similarity of aligned pairs."""

    matched: float
    n_gold: int
    n_pred: int

    def __add__(self, other: SpanCounts) -> SpanCounts:
        return SpanCounts(
            self.matched + other.matched, self.n_gold + other.n_gold, self.n_pred + other.n_pred
        )

    def precision(self, zero_division: float = 1.0) -> float:
        """``matched / n_pred``; ``zero_division`` when there are no predicted spans."""
        return self.matched / self.n_pred if self.n_pred else zero_division

    def recall(self, zero_division: float = 1.0) -> float:
        """``matched / n_gold``; ``zero_division`` when there are no gold spans."""
        return self.matched / self.n_gold if self.n_gold else zero_division

    def f1(self, zero_division: float = 1.0) -> float:
        """Harmonic mean of precision and recall.

        ``zero_division`` is returned when both sides are empty (perfect agreement on
        "nothing to select"); when exactly one side is empty the F1 is ``0``.
        """
        if self.n_gold == 0 and self.n_pred == 0:
            return zero_division
        if self.n_gold == 0 or self.n_pred == 0:
            return 0.0
        p, r = self.matched / self.n_pred, self.matched / self.n_gold
        return 0.0 if p + r == 0 else 2 * p * r / (p + r)


def span_counts(
    gold: Sequence[str],
    pred: Sequence[str],
    *,
    similarity: Similarity = edit_similarity,
    normalize: bool = True,
) -> SpanCounts:
    """Align two span sets of one item and return the pooled counts.

    Args:
        gold: Spans of side A (text).
        pred: Spans of side B (text).
        similarity: Pairwise similarity in ``[0, 1]``.
        normalize: Whitespace-normalise spans before comparing.

    Returns:
        :class:`SpanCounts` with the maximum-weight one-to-one matching's total
        similarity.
    """
    from scipy.optimize import linear_sum_assignment

    g = [normalize_span(s) if normalize else s for s in gold]
    p = [normalize_span(s) if normalize else s for s in pred]
    if not g or not p:
        return SpanCounts(0.0, len(g), len(p))
    sim = np.array([[similarity(a, b) for b in p] for a in g], dtype=float)
    rows, cols = linear_sum_assignment(sim, maximize=True)
    return SpanCounts(float(sim[rows, cols].sum()), len(g), len(p))


def _f1(
    gold: Sequence[Sequence[str]],
    pred: Sequence[Sequence[str]],
    similarity: Similarity,
    normalize: bool,
    zero_division: float,
) -> float:
    if len(gold) != len(pred):
        raise ValueError(f"gold has {len(gold)} items but pred has {len(pred)}")
    total = SpanCounts(0.0, 0, 0)
    for g, p in zip(gold, pred, strict=True):
        if isinstance(g, str) or isinstance(p, str):
            raise TypeError("each item must be a sequence of span strings, not a string")
        total = total + span_counts(g, p, similarity=similarity, normalize=normalize)
    return total.f1(zero_division)


def f1_edit(
    gold: Sequence[Sequence[str]],
    pred: Sequence[Sequence[str]],
    *,
    normalize: bool = True,
    zero_division: float = 1.0,
) -> float:
    """Micro-averaged soft span F1 with edit-distance alignment, ``F1_edit`` (§3.4).

    Per item, spans are aligned one-to-one by linear sum assignment on the normalised
    edit-distance similarity; the matched similarities are summed over items and
    ``P = sum M / sum |pred|``, ``R = sum M / sum |gold|``, ``F1 = 2PR / (P + R)``.

    Args:
        gold: Per item, the reference span texts.
        pred: Per item, the compared span texts (same length and order as ``gold``).
        normalize: Whitespace-normalise spans first.
        zero_division: Value returned when both sides hold no span at all.

    Returns:
        F1 in ``[0, 1]``; best value ``1`` (identical span sets). Symmetric in its
        arguments.
    """
    return _f1(gold, pred, edit_similarity, normalize, zero_division)


def f1_exact(
    gold: Sequence[Sequence[str]],
    pred: Sequence[Sequence[str]],
    *,
    normalize: bool = True,
    zero_division: float = 1.0,
) -> float:
    """Micro-averaged exact-match span F1, ``F1_exact`` (§3.4, CA pilot).

    Same as :func:`f1_edit` with similarity ``1[a == b]``, i.e. the number of shared
    spans (multiset intersection) per item, pooled over items.

    Args:
        gold: Per item, the reference span texts.
        pred: Per item, the compared span texts.
        normalize: Whitespace-normalise spans first.
        zero_division: Value returned when both sides hold no span at all.

    Returns:
        F1 in ``[0, 1]``; best value ``1``. Symmetric in its arguments.
    """
    return _f1(gold, pred, exact_similarity, normalize, zero_division)


def f1_from_span_sums(sums: np.ndarray, *, zero_division: float = 1.0) -> np.ndarray:
    """:meth:`SpanCounts.f1` of summed ``[matched, n_gold, n_pred]`` rows, vectorised over leading axes.

    Summing the per-item :func:`span_counts` of a set of items gives its pooled counts, so
    this is the micro F1 (§3.4) of any resample of items: ``2 M / (|g| + |p|)``
    (= ``2PR / (P + R)``), ``zero_division`` when both sides are empty, 0 when one is.

    Args:
        sums: ``(..., 3)`` summed ``[matched, n_gold, n_pred]``.
        zero_division: F1 when there is no span on either side.

    Returns:
        ``(...)`` F1 in [0, 1]; best 1.
    """
    s = np.asarray(sums, dtype=float)
    m, g, p = s[..., 0], s[..., 1], s[..., 2]
    denom = g + p
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = np.where((g > 0) & (p > 0), 2 * m / np.where(denom > 0, denom, 1.0), 0.0)
    return np.asarray(np.where((g == 0) & (p == 0), zero_division, f1), dtype=float)


def spans_from_offsets(text: str, offsets: Sequence[tuple[int, int]]) -> list[str]:
    """Cut ``text[start:end]`` for each ``(start, end)`` character-offset pair.

    Args:
        text: The document the offsets index into.
        offsets: Half-open ``[start, end)`` pairs with ``0 <= start <= end <= len(text)``.

    Returns:
        The span texts, in the given order.

    Raises:
        ValueError: If an offset pair is out of range.
    """
    out = []
    for start, end in offsets:
        if not 0 <= start <= end <= len(text):
            raise ValueError(f"offsets ({start}, {end}) out of range for text of {len(text)}")
        out.append(text[start:end])
    return out
