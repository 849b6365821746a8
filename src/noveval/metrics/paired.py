"""Paired comparison of two systems on the same items: difference, bootstrap CI, permutation p.

Two runs A and B scored on the same ``n`` items give, per item ``i``, data ``a[i]`` and
``b[i]`` (one value, or a row of values for statistics such as macro-F1). A metric is a
statistic ``theta`` of a set of items; the quantity compared is ``theta(B) - theta(A)``
on the matched items.

* **Paired bootstrap CI** (Efron & Tibshirani 1993, ch. 13-14; Koehn 2004 for MT): draw
  ``n`` item indices with replacement, recompute ``theta(B) - theta(A)`` on the *same*
  indices for both runs, repeat ``n_resamples`` times; the interval is the percentile
  interval (default) or the bias-corrected and accelerated (BCa) interval of those
  differences. The indices are drawn exactly as ``scipy.stats.bootstrap(..., paired=True,
  rng=np.random.default_rng(seed))`` draws them, so both give the same interval.
* **Paired permutation test** (approximate randomization; Noreen 1989, Dror et al. 2018):
  under H0 "A and B are exchangeable on every item", swap the two runs' data on a random
  subset of items and recompute the difference. For the mean this is the sign-flip test
  of the per-item differences. Two-sided p: the share of assignments with
  ``|T| >= |t_obs|``. With ``2**n <= n_permutations`` every assignment is enumerated
  (exact; it equals ``scipy.stats.permutation_test(..., permutation_type="samples")``);
  otherwise ``n_permutations`` random assignments give ``p = (k + 1) / (R + 1)``, which is
  never 0 (Phipson & Smyth 2010).

Statistics are given in one of three ways:

* nothing: ``a`` and ``b`` are 1-D per-item values and ``theta`` is their mean;
* ``combine``: ``theta(X) = combine(X.sum(axis=0))`` for per-item *contributions* ``X``
  (``n x d``). Every count-ratio metric has this form (accuracy, per-class and macro
  F1 from per-item TP/FP/FN indicators, a mean over a subset), and then resampling and
  swapping are matrix products, so 10,000 resamples of a few thousand items take
  milliseconds;
* ``statistic``: any function of the item rows (``(m, ...)`` array -> float), called once
  per resample (slow; for statistics that are not sums, e.g. a rank correlation); with
  ``batched=True`` it takes a stack of item sets ``(r, m, ...)`` and returns ``(r,)``, and
  is called once per block of resamples (:func:`noveval.metrics.correlation.spearman_rows`
  is such a statistic).

Everything is seeded; the same inputs and seed give the same numbers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np

__all__ = [
    "CI_METHODS",
    "PairedDifference",
    "paired_difference",
    "holm",
    "mean_combine",
    "class_counts",
    "f1_from_counts",
]

CiMethod = Literal["percentile", "bca"]
CI_METHODS: tuple[str, ...] = ("percentile", "bca")
"""Values of ``ci_method``."""

Combine = Callable[[np.ndarray], np.ndarray]
Statistic = Callable[[np.ndarray], Any]
"""A statistic of item rows: ``(m, ...)`` -> float, or batched ``(r, m, ...)`` -> ``(r,)``."""

_CHUNK_CELLS = 4_000_000
"""Resample rows are processed in blocks of about this many (row x item) cells."""


@dataclass(frozen=True)
class PairedDifference:
    """The comparison of B with A on matched items (what :func:`paired_difference` returns).

    Attributes:
        a: The statistic of A on the matched items.
        b: The statistic of B on the matched items.
        difference: ``b - a`` (positive: B higher).
        ci_low: Lower end of the paired bootstrap CI of ``difference``.
        ci_high: Upper end.
        p_value: Two-sided paired permutation p-value, in (0, 1]; 1.0 when nothing differs.
        n: Matched items used.
        confidence: Coverage of the CI, e.g. 0.95.
        ci_method: ``"percentile"`` or ``"bca"``.
        n_resamples: Bootstrap resamples.
        exact: True when the permutation p enumerated all ``2**n`` swaps.
        n_permutations: Swap assignments used (``2**n`` when exact).
        seed: The seed of both the bootstrap and the permutations.
    """

    a: float
    b: float
    difference: float
    ci_low: float
    ci_high: float
    p_value: float
    n: int
    confidence: float
    ci_method: str
    n_resamples: int
    exact: bool
    n_permutations: int
    seed: int

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict (NaN becomes None)."""
        return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in asdict(self).items()}


def mean_combine(sums: np.ndarray) -> np.ndarray:
    """``combine`` of the mean: contributions ``[x, 1]`` summed -> ``sum(x) / count``."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(sums[..., 0] / sums[..., 1], dtype=float)


class _Theta:
    """A statistic evaluated on weighted (bootstrap) or swapped (permutation) item sets."""

    def __init__(self, a: np.ndarray, b: np.ndarray, combine: Combine | None, statistic: Statistic | None,
                 batched: bool = False) -> None:
        if combine is None and statistic is None:  # the mean of 1-D values
            if a.ndim != 1:
                raise ValueError("without combine or statistic, a and b must be 1-D per-item values")
            a = np.column_stack([a, np.ones_like(a)])
            b = np.column_stack([b, np.ones_like(b)])
            combine = mean_combine
        self.a, self.b, self.combine, self.statistic = a, b, combine, statistic
        self.batched = batched and combine is None
        self.n = len(a)
        self.sum_a, self.sum_b = a.sum(axis=0), b.sum(axis=0)
        self.width = 1 if combine is not None else max(1, int(np.prod(a.shape[1:])))
        """Cells of one item's row that a resample copies (the statistic path stacks whole rows)."""

    def point(self, x: np.ndarray) -> float:
        if self.combine is not None:
            return float(self.combine(x.sum(axis=0)))
        return float(self._stat(x[None])[0])

    def _stat(self, stack: np.ndarray) -> np.ndarray:
        """The statistic of each item set in a stack ``(r, m, ...)``."""
        st = self.statistic
        assert st is not None
        if self.batched:
            return np.asarray(st(stack), dtype=np.float64).reshape(len(stack))
        return np.array([st(x) for x in stack], dtype=np.float64)

    def boot(self, idx: np.ndarray) -> np.ndarray:
        """``theta(B[idx]) - theta(A[idx])`` for each row of resample indices."""
        if self.combine is not None:
            from scipy.sparse import csr_matrix

            rows = idx.shape[0]  # w[r, i] = how often item i was drawn in resample r
            w = csr_matrix((np.ones(idx.size), idx.ravel(), np.arange(0, idx.size + 1, self.n)), shape=(rows, self.n))
            return np.asarray(self.combine(w @ self.b) - self.combine(w @ self.a), dtype=float)
        return self._stat(self.b[idx]) - self._stat(self.a[idx])

    def swapped(self, flips: np.ndarray) -> np.ndarray:
        """The difference after swapping A's and B's data on the flipped items of each row."""
        if self.combine is not None:
            f = flips.astype(float)
            fa, fb = f @ self.a, f @ self.b
            a2 = self.sum_a - fa + fb
            b2 = self.sum_b - fb + fa
            return np.asarray(self.combine(b2) - self.combine(a2), dtype=float)
        m = flips.reshape(flips.shape + (1,) * (self.a.ndim - 1))
        return self._stat(np.where(m, self.a, self.b)) - self._stat(np.where(m, self.b, self.a))  # B' then A'

    def jackknife(self) -> np.ndarray:
        """Leave-one-item-out differences (for the BCa acceleration)."""
        if self.combine is not None:
            return np.asarray(self.combine(self.sum_b - self.b) - self.combine(self.sum_a - self.a), dtype=float)
        keep = np.array([np.delete(np.arange(self.n), i) for i in range(self.n)]).reshape(self.n, self.n - 1)
        return self._stat(self.b[keep]) - self._stat(self.a[keep])


def _rows_per_chunk(theta: _Theta) -> int:
    return max(1, _CHUNK_CELLS // max(theta.n * theta.width, 1))


def _as_data(x: Sequence[Any] | np.ndarray) -> np.ndarray:
    arr = np.asarray(x, dtype=float)
    if arr.ndim == 0:
        raise ValueError("per-item data must have one row per item")
    return arr


def _bootstrap_ci(
    theta: _Theta, *, n_resamples: int, confidence: float, ci_method: CiMethod, seed: int
) -> tuple[float, float]:
    """The paired bootstrap CI of ``theta(B) - theta(A)`` (see the module docstring).

    Uses ``np.random.default_rng(seed).integers(0, n, (n_resamples, n))`` as resample
    indices (drawn in blocks from one generator: the same stream as one draw), the draw
    ``scipy.stats.bootstrap`` makes with ``paired=True`` and ``batch=None``.

    Returns:
        ``(low, high)``; ``(d, d)`` when every resample gives the observed difference ``d``;
        NaNs with fewer than 2 items.
    """
    n = theta.n
    observed = theta.point(theta.b) - theta.point(theta.a)
    if n < 2:
        return (math.nan, math.nan)
    rng = np.random.default_rng(seed)
    step = _rows_per_chunk(theta)
    parts = []
    for start in range(0, n_resamples, step):
        rows = min(step, n_resamples - start)
        parts.append(theta.boot(rng.integers(0, n, (rows, n))))
    dist = np.concatenate(parts)
    dist = dist[~np.isnan(dist)]
    if dist.size == 0:
        return (math.nan, math.nan)
    if np.all(dist == dist[0]) and dist[0] == observed:
        return (float(observed), float(observed))
    alpha = (1.0 - confidence) / 2.0
    levels = np.array([alpha, 1.0 - alpha])
    if ci_method == "bca":
        levels = _bca_levels(theta, dist, observed, alpha)
        if np.any(np.isnan(levels)):
            return (math.nan, math.nan)
    elif ci_method != "percentile":
        raise ValueError(f"ci_method must be one of {CI_METHODS}, got {ci_method!r}")
    lo, hi = np.quantile(dist, levels)
    return (float(lo), float(hi))


def _bca_levels(theta: _Theta, dist: np.ndarray, observed: float, alpha: float) -> np.ndarray:
    """BCa quantile levels (Efron & Tibshirani 1993, eq. 14.9-14.15), as scipy computes them.

    ``z0 = Phi^-1(share of resamples below the observed value, ties counted half)`` (values
    within ``100 * eps * |observed|`` of it are ties, so rounding does not decide) and the
    acceleration ``a = sum(U^3) / (6 * sum(U^2)^1.5)`` from the leave-one-item-out
    jackknife ``U_i = (n - 1) * (mean_j theta_(j) - theta_(i))``.
    """
    from scipy.special import ndtr, ndtri

    b = dist.size
    tol = abs(np.finfo(float).eps * 100 * observed)
    share = (np.count_nonzero(dist < observed - tol) + np.count_nonzero(dist <= observed + tol)) / (2 * b)
    z0 = float(ndtri(share))
    jack = theta.jackknife()
    n = float(jack.size)
    u = (n - 1) * (jack.mean() - jack)
    num = float(np.sum(u**3)) / n**3
    den = float(np.sum(u**2)) / n**2
    a_hat = num / (6.0 * den**1.5) if den > 0 else math.nan
    z_lo, z_hi = float(ndtri(alpha)), float(ndtri(1.0 - alpha))
    out = []
    for z in (z_lo, z_hi):
        num1 = z0 + z
        out.append(float(ndtr(z0 + num1 / (1.0 - a_hat * num1))))
    return np.array(out)


def _permutation_p(theta: _Theta, *, n_permutations: int, seed: int) -> tuple[float, bool, int]:
    """Two-sided paired permutation p of ``theta(B) - theta(A)`` (see the module docstring).

    Values within ``100 * eps * |t_obs|`` of ``|t_obs|`` count as reaching it, scipy's
    tolerance for numerically distinct but equal values.

    Returns:
        ``(p, exact, assignments)``.
    """
    n = theta.n
    observed = theta.point(theta.b) - theta.point(theta.a)
    if n == 0 or math.isnan(observed):
        return (math.nan, False, 0)
    gamma = abs(np.finfo(float).eps * 100 * observed)
    target = abs(observed) - gamma
    exact = n < 63 and 2**n <= n_permutations
    if exact:
        total = 2**n
        hits = 0
        step = _rows_per_chunk(theta)
        bits = np.arange(n, dtype=np.int64)
        for start in range(0, total, step):
            codes = np.arange(start, min(total, start + step), dtype=np.int64)
            flips = ((codes[:, None] >> bits) & 1).astype(bool)
            t = theta.swapped(flips)
            hits += int(np.count_nonzero(np.abs(t) >= target))
        return (min(1.0, hits / total), True, total)
    rng = np.random.default_rng(seed)
    step = _rows_per_chunk(theta)
    hits = 0
    for start in range(0, n_permutations, step):
        rows = min(step, n_permutations - start)
        t = theta.swapped(rng.integers(0, 2, (rows, n)).astype(bool))
        hits += int(np.count_nonzero(np.abs(t) >= target))
    return (min(1.0, (hits + 1) / (n_permutations + 1)), False, n_permutations)


def paired_difference(
    a: Sequence[Any] | np.ndarray,
    b: Sequence[Any] | np.ndarray,
    *,
    combine: Combine | None = None,
    statistic: Statistic | None = None,
    batched: bool = False,
    n_resamples: int = 10_000,
    n_permutations: int = 10_000,
    confidence: float = 0.95,
    ci_method: CiMethod = "percentile",
    seed: int = 0,
) -> PairedDifference:
    """Difference ``theta(B) - theta(A)`` on matched items with a paired CI and p-value.

    Args:
        a: Per-item data of run A, one row per item: shape ``(n,)`` or ``(n, d)``.
        b: Per-item data of run B, the same items in the same order.
        combine: ``theta(X) = combine(X.sum(axis=0))``; must accept a stack of summed
            rows ``(..., d)`` and return ``(...)`` (vectorised). See :func:`mean_combine`.
        statistic: Any ``theta`` of an ``(m, ...)`` array of item rows (slow path).
            Give at most one of ``combine`` / ``statistic``; neither: the mean of 1-D data.
        batched: ``statistic`` takes a stack of item sets ``(r, m, ...)`` and returns
            ``(r,)`` (one call per block of resamples instead of one per resample).
        n_resamples: Bootstrap resamples (10,000 by default).
        n_permutations: Random swap assignments when ``2**n`` exceeds it; otherwise all
            ``2**n`` are enumerated (exact).
        confidence: CI coverage in (0, 1).
        ci_method: ``"percentile"`` or ``"bca"`` (as ``scipy.stats.bootstrap``).
        seed: Seed of the bootstrap and of the random swaps.

    Returns:
        A :class:`PairedDifference`. ``difference`` lies in ``[-range, +range]`` of the
        metric; 0 means no difference. ``p_value`` in (0, 1]; small means the runs differ.

    Raises:
        ValueError: mismatched shapes, both ``combine`` and ``statistic``, bad options.
    """
    if combine is not None and statistic is not None:
        raise ValueError("give combine or statistic, not both")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    if n_resamples < 1 or n_permutations < 1:
        raise ValueError("n_resamples and n_permutations must be positive")
    xa, xb = _as_data(a), _as_data(b)
    if xa.shape != xb.shape:
        raise ValueError(f"a has shape {xa.shape} but b has {xb.shape}: the same items are needed in both")
    theta = _Theta(xa, xb, combine, statistic, batched)
    if theta.n == 0:
        nan = math.nan
        return PairedDifference(nan, nan, nan, nan, nan, nan, 0, confidence, ci_method, n_resamples, False, 0, seed)
    va, vb = theta.point(theta.a), theta.point(theta.b)
    lo, hi = _bootstrap_ci(theta, n_resamples=n_resamples, confidence=confidence, ci_method=ci_method, seed=seed)
    p, exact, used = _permutation_p(theta, n_permutations=n_permutations, seed=seed)
    return PairedDifference(
        a=va, b=vb, difference=vb - va, ci_low=lo, ci_high=hi, p_value=p, n=theta.n,
        confidence=confidence, ci_method=ci_method, n_resamples=n_resamples, exact=exact,
        n_permutations=used, seed=seed,
    )


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment of p-values (Holm 1979), controlling the family-wise error.

    Sort the ``m`` p-values ascending; the ``j``-th smallest becomes
    ``max_{i<=j} min(1, (m - i + 1) * p_(i))``. NaNs are left out of ``m`` and stay NaN.

    Args:
        pvalues: Raw p-values, in any order.

    Returns:
        Adjusted p-values in the input order, each in [0, 1] and >= its raw value.
    """
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, math.nan)
    ok = np.flatnonzero(~np.isnan(p))
    m = ok.size
    order = ok[np.argsort(p[ok], kind="stable")]
    running = 0.0
    for j, i in enumerate(order):
        running = max(running, min(1.0, (m - j) * float(p[i])))
        out[i] = running
    return [float(v) for v in out]


def class_counts(y_true: Sequence[Any], y_pred: Sequence[Any], labels: Sequence[Any]) -> np.ndarray:
    """Per-item one-vs-rest contributions ``[TP_c, FP_c, FN_c for c in labels]`` for F1.

    A prediction outside ``labels`` (e.g. ``None`` for an unparseable answer) is a false
    negative of the gold class and a false positive of none, as scikit-learn counts a
    label left out of ``labels``. Summing the rows gives the confusion counts of any item
    set, so F1 is a ``combine`` of them (:func:`f1_from_counts`).

    Args:
        y_true: Gold labels, one per item.
        y_pred: Predicted labels, one per item.
        labels: The classes, in the order of the columns.

    Returns:
        ``(n, 3 * len(labels))`` array of 0/1: columns ``TP_1..TP_k, FP_1..FP_k, FN_1..FN_k``.
    """
    if len(y_true) != len(y_pred):
        raise ValueError(f"y_true has {len(y_true)} items but y_pred has {len(y_pred)}")
    g = np.array([[t == c for c in labels] for t in y_true], dtype=float).reshape(len(y_true), len(labels))
    p = np.array([[q == c for c in labels] for q in y_pred], dtype=float).reshape(len(y_pred), len(labels))
    return np.hstack([g * p, (1 - g) * p, g * (1 - p)])


def f1_from_counts(sums: np.ndarray, *, k: int, average: Literal["macro", "present"] | int = "macro") -> np.ndarray:
    """F1 from summed :func:`class_counts` rows, vectorised over leading axes.

    Args:
        sums: ``(..., 3k)`` summed contributions.
        k: Number of classes.
        average: ``"macro"``: mean F1 over all ``k`` classes (a class never in gold nor
            predicted counts 0, ``zero_division=0``); ``"present"``: mean over the classes
            that occur in gold or predictions (scikit-learn's default label set; 0 when
            none); an int ``j``: F1 of the ``j``-th class alone.

    Returns:
        F1 values in [0, 1], best 1, shape ``(...)``.
    """
    s = np.asarray(sums, dtype=float)
    tp, fp, fn = s[..., :k], s[..., k : 2 * k], s[..., 2 * k : 3 * k]
    denom = 2 * tp + fp + fn
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = np.where(denom > 0, 2 * tp / np.where(denom > 0, denom, 1), 0.0)
    if isinstance(average, int) and not isinstance(average, bool):
        return np.asarray(f1[..., average])
    if average == "macro":
        return np.asarray(f1.mean(axis=-1))
    if average == "present":
        present = denom > 0
        count = present.sum(axis=-1)
        return np.asarray(np.where(count > 0, (f1 * present).sum(axis=-1) / np.maximum(count, 1), 0.0))
    raise ValueError(f"average must be 'macro', 'present' or a class index, got {average!r}")
