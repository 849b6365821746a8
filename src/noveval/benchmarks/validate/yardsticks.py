"""The validity study's yardsticks: a random predictor and the human ceiling (issue 29).

For every predictor's Spearman ρ against the human target (``rho_<predictor>``):

- **random predictor** (chance): ρ = 0 in expectation (exact), with the range 95% of the
  ρ of 10,000 random orderings of the same number of papers fall in (no ties): a ρ inside
  it is not distinguishable from chance on this many papers;
- **human ceiling** (ceiling): how well one reviewer agrees with the mean of the others
  (leave one reviewer out, ``human_ceiling_loro``) with its 95% bootstrap CI. A predictor
  is read against this interval, not as a ratio to its point value.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["baselines"]


def baselines(run_folder: Path | None, scores: dict[str, Any]) -> dict[str, list[dict[str, Any]]] | str:
    """Random-predictor and human-ceiling yardsticks of each ``rho_*`` metric.

    Args:
        run_folder: Not needed.
        scores: The run's ``scores.json`` dict.
    """
    from noveval.metrics.yardsticks import spearman_null_range, yardstick

    metrics = scores.get("metrics") or {}
    ceiling = metrics.get("human_ceiling_loro") or {}
    out: dict[str, list[dict[str, Any]]] = {}
    for name, m in metrics.items():
        if not name.startswith("rho_"):
            continue
        n = int((m or {}).get("n") or 0)
        ys = []
        if n >= 3:
            lo, hi, _ = spearman_null_range(n)
            ys.append(yardstick("random predictor", "chance", 0.0,
                                f"exact expectation; 95% of 10,000 random orderings of {n} papers in [{lo:.3f}, {hi:.3f}]",
                                ci_low=lo, ci_high=hi))
        if ceiling.get("mean") is not None:
            ys.append(yardstick("human ceiling (one reviewer vs the others)", "ceiling", ceiling["mean"],
                                f"leave-one-reviewer-out Spearman with its 95% bootstrap CI, n = {ceiling.get('n')} papers",
                                ci_low=ceiling.get("ci_low"), ci_high=ceiling.get("ci_high"), n=ceiling.get("n")))
        if ys:
            out[name] = ys
    return out or "no predictor correlation in this run"
