"""RINoBench's yardsticks: random and constant answers on the run's own gold scores (issue 29).

Macro-F1 (Section 4.2.1): uniform random (each of 1..5 equally likely), class-frequency
random (answers drawn from the gold's class frequencies) — both exact expectations with
the range 95% of 10,000 simulated draws fall in — and the majority class (exact). MAE:
the best constant answer (a median of the gold; exact) and both random answers (exact
expectations). On the paper's test set (class counts 15/60/87/81/34, Table 2) these are
macro-F1 0.185 / 0.199 [0.154, 0.247] / 0.096 and MAE 0.863 (always 3) / 1.443 / 1.198.

Only the gold's class counts are needed (``extra.gold_score_distribution``), so scores
that were not saved get them too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["baselines", "gold_of"]


def gold_of(scores: dict[str, Any]) -> list[int]:
    """The run's gold scores (in class order) from ``extra.gold_score_distribution``."""
    dist = (scores.get("extra") or {}).get("gold_score_distribution") or {}
    return [int(c) for c, k in dist.items() if c.isdigit() for _ in range(int(k))]


def baselines(run_folder: Path | None, scores: dict[str, Any]) -> dict[str, list[dict[str, Any]]] | str:
    """Yardsticks of ``f1_macro`` and ``mean_absolute_error`` (see the module docstring).

    Args:
        run_folder: Not needed (the scores carry the gold's class counts).
        scores: The run's ``scores.json`` dict.

    Returns:
        ``{metric: [yardstick, ...]}``, or why there is none (no gold in the run).
    """
    from noveval.metrics.rinobench import SCORE_LABELS
    from noveval.metrics.yardsticks import chance_f1_yardsticks, mae_yardsticks

    gold = gold_of(scores)
    if not gold:
        return "the run has no gold scores (nothing to score against)"
    mode = str((scores.get("extra") or {}).get("f1_labels") or "fixed")
    metrics = scores.get("metrics") or {}
    out = {"f1_macro": chance_f1_yardsticks(gold, list(SCORE_LABELS), mode=mode),
           "mean_absolute_error": mae_yardsticks(gold, list(SCORE_LABELS))}
    return {k: v for k, v in out.items() if k in metrics}
