"""The axioms' yardstick: the pass rate of a random novelty metric (issue 29).

A random metric gives every pool variant an independent score from one continuous law
(no ties). A two-variant check (Ax1, Ax2, Ax3<base, Ax4-Ax8) is one strict inequality
between two exchangeable scores: it passes with probability 1/2. Ax3grad asks for three
scores in one strict order (cov4 < cov2 < cov1): probability 1/3! = 1/6. A metric's Avg
(Table 2) is the mean over the checks evaluated on it, then over tasks, so a random
metric's expected Avg is exact: (8 × 50 + 16.7) / 9 = 46.3% when all nine checks are
evaluated, 50% when Ax3 is skipped (title-only FastTextLOF). Its spread comes from
10,000 simulated runs on the same checks (each a binomial count of passes per task and
check, with the run's own numbers of focal papers per check).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from noveval.metrics.yardsticks import spread_text, yardstick

__all__ = ["PASS_PROBABILITY", "baselines", "random_metric"]

PASS_PROBABILITY: dict[str, float] = {"Ax3grad": 1 / 6}
"""Chance of a random metric passing a check; every check not listed: 1/2."""


def _p(axiom: str) -> float:
    return PASS_PROBABILITY.get(axiom, 0.5)


def random_metric(counts: dict[str, dict[str, int]], *, n_sims: int = 10_000, seed: int = 0) -> dict[str, Any] | None:
    """The random metric's overall Avg pass rate (%) on checks evaluated ``counts[task][axiom]`` times.

    Returns:
        A ``chance`` yardstick, or None when no check was evaluated.
    """
    rng = np.random.default_rng(seed)
    task_means, task_sims = [], []
    for per_axiom in counts.values():
        used = {a: int(n) for a, n in per_axiom.items() if n and a != "Avg"}
        if not used:
            continue
        task_means.append(100 * float(np.mean([_p(a) for a in used])))
        task_sims.append(100 * np.mean([rng.binomial(n, _p(a), size=n_sims) / n for a, n in used.items()], axis=0))
    if not task_means:
        return None
    spread, lo, hi = spread_text(np.mean(task_sims, axis=0), digits=1)
    return yardstick("random metric", "chance", float(np.mean(task_means)),
                     f"exact expectation (each check passes with probability 1/2, Ax3grad 1/6); {spread}",
                     ci_low=lo, ci_high=hi)


def baselines(run_folder: Path | None, scores: dict[str, Any]) -> dict[str, list[dict[str, Any]]] | str:
    """The random-metric yardstick of every novelty metric in the run (from ``extra.table``'s counts).

    Args:
        run_folder: Not needed (``scores.json`` holds the check counts).
        scores: The run's ``scores.json`` dict.
    """
    tab = (scores.get("extra") or {}).get("table") or {}
    by_task = tab.get("by_task") or {}
    out: dict[str, list[dict[str, Any]]] = {}
    for metric in scores.get("metrics") or {}:
        counts = {t: (cells.get(metric) or {}).get("n") or {} for t, cells in by_task.items()}
        y = random_metric(counts)
        if y is not None:
            out[metric] = [y]
    return out or "no axiom check was evaluated in this run"
