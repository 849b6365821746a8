"""The nine axiom checks of Liu & Zhai (2026), §3, with the §5.2 applicability rules.

Each check compares a metric's scores on pool variants of one focal paper (greater
score = more novel) and is a strict inequality; a check whose variants were not built
(skip rule) or whose scores are NaN is ``None`` (not applicable).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

VARIANTS: tuple[str, ...] = (
    "base", "copy", "paraphrase", "cov1", "cov2", "cov4", "distant", "minus_cited",
    "cited_only", "oldest", "newest",
)
"""Pool variants: base pool, Ax1 pool ∪ {P}, Ax2 pool ∪ {rephrase(P)}, Ax3 pools with 1/2/4
abstract sentences appended to the TF-IDF-nearest pool paper, Ax4 distant task, Ax5
pool minus cited, Ax6 cited only, Ax7 oldest slice, Ax8 newest slice."""

AXIOMS: tuple[str, ...] = ("Ax1", "Ax2", "Ax3grad", "Ax3<base", "Ax4", "Ax5", "Ax6", "Ax7", "Ax8")
"""Check names in Table 2's column order."""

AXIOM_VARIANTS: dict[str, tuple[str, ...]] = {
    "Ax1": ("copy", "base"),
    "Ax2": ("paraphrase", "base"),
    "Ax3grad": ("cov4", "cov2", "cov1"),
    "Ax3<base": ("cov1", "base"),
    "Ax4": ("distant", "base"),
    "Ax5": ("minus_cited", "base"),
    "Ax6": ("cited_only", "minus_cited"),
    "Ax7": ("oldest", "base"),
    "Ax8": ("newest", "base"),
}
"""Variants each check reads; the check is ``lt`` (first < second < ...) or ``gt``."""

_GREATER = {"Ax4", "Ax5", "Ax7"}
TITLE_ONLY_SKIP = {"Ax3grad", "Ax3<base"}
"""Skipped for title-only metrics (FastTextLOF): Ax3 edits abstracts only (§5.2)."""


def check(axiom: str, scores: Mapping[str, float | None]) -> bool | None:
    """Pass/fail of one check from variant scores; None when a variant is missing or NaN."""
    raw = [scores.get(v) for v in AXIOM_VARIANTS[axiom]]
    vals = [v for v in raw if v is not None and not (isinstance(v, float) and math.isnan(v))]
    if len(vals) < len(raw):
        return None
    if axiom in _GREATER:
        return bool(vals[0] > vals[1])
    return all(a < b for a, b in zip(vals, vals[1:], strict=False))


def decide(scores: Mapping[str, float | None], *, title_only: bool = False) -> dict[str, bool | None]:
    """All nine checks for one metric and focal paper.

    Args:
        scores: variant name -> score (see :data:`VARIANTS`).
        title_only: the metric reads titles only (Ax3 not evaluated, §5.2).
    """
    return {a: (None if title_only and a in TITLE_ONLY_SKIP else check(a, scores)) for a in AXIOMS}


def agreement(a: Mapping[str, Mapping[str, bool | None]],
              b: Mapping[str, Mapping[str, bool | None]]) -> dict[str, tuple[float | None, int]]:
    """Pass/fail agreement of two decision sets (e.g. an approximation vs the exact metric).

    Args:
        a, b: focal id -> axiom -> decision (as :func:`decide` returns); only ids in both
            count, and a check counts when both sides evaluated it.

    Returns:
        axiom -> (fraction of equal decisions in [0, 1], best 1; checks compared), plus
        ``"all"`` over every axiom; the fraction is None when nothing was compared.
    """
    return seed_agreement([{"a": a[iid], "b": b[iid]} for iid in a.keys() & b.keys()])


def seed_agreement(decisions: Sequence[Mapping[str, Mapping[str, bool | None]]]) -> dict[str, tuple[float | None, int]]:
    """How often a seeded metric's pass/fail decision survives a change of seed.

    Not in the paper (issue 14, item 9: SemNovel's t-SNE map depends on its seed). A check
    of one focal paper counts when every seed decided it; it agrees when all seeds decided
    it alike. With one seed every decided check agrees; with two it is :func:`agreement`.

    Args:
        decisions: per focal paper, seed -> axiom -> decision (a ``per_item.jsonl`` row's
            ``by_seed[metric][seed]["checks"]``).

    Returns:
        axiom -> (share of checks all seeds decide alike in [0, 1], best 1; checks counted),
        plus ``"all"`` over every axiom; the share is None when nothing was counted.
    """
    same: dict[str, int] = {}
    n: dict[str, int] = {}
    for by_seed in decisions:
        for ax in AXIOMS:
            ds = [checks.get(ax) for checks in by_seed.values()]
            if not ds or any(d is None for d in ds):
                continue
            for k in (ax, "all"):
                n[k] = n.get(k, 0) + 1
                same[k] = same.get(k, 0) + (len(set(ds)) == 1)
    return {k: ((same[k] / n[k]) if n.get(k) else None, n.get(k, 0)) for k in (*AXIOMS, "all")}


def compare_runs(rows_a: Sequence[Mapping], rows_b: Sequence[Mapping]) -> dict[str, dict[str, tuple[float | None, int]]]:
    """:func:`agreement` of every metric two runs share, over the focal papers both hold.

    Args:
        rows_a, rows_b: ``per_item.jsonl`` rows (``id`` and ``checks``: metric -> axiom -> decision).

    Returns:
        metric -> axiom (and ``"all"``) -> (agreement in [0, 1], best 1; checks compared).
    """
    a = {r["id"]: r["checks"] for r in rows_a}
    b = {r["id"]: r["checks"] for r in rows_b}
    common = a.keys() & b.keys()
    metrics = sorted({m for i in common for m in a[i]} & {m for i in common for m in b[i]})
    return {m: agreement({i: a[i].get(m, {}) for i in common}, {i: b[i].get(m, {}) for i in common})
            for m in metrics}
