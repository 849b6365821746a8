"""Number and metric formatting shared by the table builders."""

from __future__ import annotations

import math
from typing import Any

from noveval.report.model import Cell
from noveval.scores import MetricValue, lower_is_better_by_name

__all__ = ["num", "metric_cell", "lower_is_better", "pretty_name", "mark_best"]


_NAMES = {
    "f1_macro": "Macro-F1",
    "mean_absolute_error": "MAE",
    "mean_absolute_error_unparseable_worst": "MAE (unparseable = worst)",
    "unparseable_rate": "Unparseable",
    "dist_acc": "DistAcc",
    "clarity_reference": "Clarity (ref. code)",
    "f1_edit": "F1 (edit)",
    "f1_exact": "F1 (exact)",
    "bertscore_f1": "BERTScore F1",
    "rouge1_f1": "ROUGE-1 F1",
    "rougeL": "ROUGE-L",
    "bleu4": "BLEU-4",
    "self_consistency": "Self-consistency",
}


def pretty_name(name: str) -> str:
    """Human label of a metric key (``mean_alignment`` -> ``Alignment``)."""
    if name in _NAMES:
        return _NAMES[name]
    s = name[5:] if name.startswith("mean_") else name
    s = s.replace("_", " ").strip()
    return s[:1].upper() + s[1:] if s == s.lower() else s  # keep names like "RND", "SemNovel"


def lower_is_better(name: str) -> bool:
    """Guess a metric's direction from its name (errors, KL, hallucination, failures)."""
    return lower_is_better_by_name(name)


def num(v: Any, digits: int = 3) -> str:
    """Format a number compactly; None/NaN become an en dash, non-numbers ``str``."""
    if v is None:
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            return "–"
        if v != 0 and abs(v) < 10 ** (-digits):
            return f"{v:.1e}"
        if abs(v) >= 1000:
            return f"{v:,.0f}"
        return f"{v:.{digits}f}"
    return str(v)


def _as_float(v: Any) -> float | None:
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)):
        f = float(v)
        return None if math.isnan(f) else f
    return None


def metric_cell(m: Any, scale: float = 1.0, digits: int = 3) -> Cell:
    """A :class:`Cell` from a metric: a :class:`~noveval.scores.MetricValue`, a scores.json entry
    (``{"mean","ci_low","ci_high","n"}``) or a bare number.

    Args:
        m: The metric entry, a number or None.
        scale: Multiply values (e.g. 100 for percentages).
        digits: Decimals.
    """
    if isinstance(m, MetricValue):
        m = m.model_dump()
    if isinstance(m, dict):
        mean = _as_float(m.get("mean"))
        lo, hi = _as_float(m.get("ci_low")), _as_float(m.get("ci_high"))
        n = m.get("n")
    else:
        mean, lo, hi, n = _as_float(m), None, None, None
    if mean is None:
        return Cell("–", title="not available")
    mean *= scale
    ci = ""
    if lo is not None and hi is not None:
        ci = f"[{num(lo * scale, digits)}, {num(hi * scale, digits)}]"
    title = f"n = {n}" if n is not None else ""
    return Cell(num(mean, digits), ci=ci, value=mean, title=title)


def mark_best(cells: list[Cell], lower: bool) -> None:
    """Flag the best value among ``cells`` (only when at least two have values)."""
    vals = [c.value for c in cells if c.value is not None]
    if len(vals) < 2 or len(set(vals)) < 2:
        return
    best = min(vals) if lower else max(vals)
    for c in cells:
        if c.value == best:
            c.best = True
