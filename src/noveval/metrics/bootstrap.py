"""Bootstrap confidence intervals and the standard ``scores.json`` summary."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np


def bootstrap_ci(
    values: Sequence[float] | np.ndarray,
    *,
    statistic: Callable[[np.ndarray], float] = np.mean,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap confidence interval of a statistic.

    Args:
        values: Per-item values (NaNs are dropped first).
        statistic: Function of a 1-D array (default: mean).
        n_resamples: Bootstrap resamples.
        confidence: Coverage, e.g. 0.95.
        seed: RNG seed (results are reproducible).

    Returns:
        ``(low, high)``; ``(nan, nan)`` with no values, ``(v, v)`` with one value.
    """
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    if x.size == 0:
        return (math.nan, math.nan)
    if x.size == 1:
        v = float(statistic(x))
        return (v, v)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, x.size, size=(n_resamples, x.size))
    stats = np.array([statistic(x[row]) for row in idx])
    alpha = (1 - confidence) / 2
    return (float(np.quantile(stats, alpha)), float(np.quantile(stats, 1 - alpha)))


def summarize(
    rows: Iterable[dict[str, Any]],
    names: Sequence[str],
    *,
    n_resamples: int = 1000,
    seed: int = 0,
) -> dict[str, dict[str, float | int | None]]:
    """Mean, 95% bootstrap CI and count of each named per-item metric.

    Rows missing a metric (or holding None/NaN) are left out of that metric.

    Returns:
        ``{name: {"mean", "ci_low", "ci_high", "n"}}`` (None where there is no value).
    """
    rows = list(rows)
    out: dict[str, dict[str, float | int | None]] = {}
    for name in names:
        vals = [float(r[name]) for r in rows if r.get(name) is not None and not _isnan(r[name])]
        if not vals:
            out[name] = {"mean": None, "ci_low": None, "ci_high": None, "n": 0}
            continue
        lo, hi = bootstrap_ci(vals, n_resamples=n_resamples, seed=seed)
        out[name] = {"mean": float(np.mean(vals)), "ci_low": lo, "ci_high": hi, "n": len(vals)}
    return out


def _isnan(v: Any) -> bool:
    try:
        return math.isnan(float(v))
    except (TypeError, ValueError):
        return True
