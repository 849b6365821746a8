"""Rank correlation with human ratings: Spearman, Kendall, AUC, partial correlation, bootstrap CIs
and the human ceiling (leave one rater out).

Used by ``noveval validate`` to ask whether a novelty score tracks reviewers' originality
ratings, read against how well the reviewers agree with each other.

* **Spearman ρ**: Pearson correlation of average ranks (ties get the mean rank). Range
  [-1, 1]; 1 is a perfect monotone agreement, 0 none.
* **Kendall τ-b**: ``(C - D) / sqrt((n0 - n1)(n0 - n2))`` over all pairs (C concordant, D
  discordant, ``n0 = n(n-1)/2``, ``n1``/``n2`` pairs tied in x / y). Range [-1, 1].
* **AUC**: probability that a random positive outscores a random negative (ties count
  1/2), the Mann-Whitney U statistic over ``n_pos * n_neg``. Range [0, 1]; 0.5 is chance,
  1 best.
* **Partial Spearman**: rank-transform every variable, regress the ranks of x and of y on
  the covariates' ranks (least squares with an intercept) and correlate the residuals.
  With one covariate z this equals ``(r_xy - r_xz r_yz) / sqrt((1 - r_xz²)(1 - r_yz²))``
  on ranks.
* **Bootstrap CI**: percentile interval over resamples of whole items (rows are drawn
  with replacement and every variable of a row moves together); a resample whose
  statistic is undefined (a constant variable) is left out of the quantiles.
* **Human ceiling (leave one rater out)**: for reviewer slot ``j`` (the j-th scored review
  of each paper, in file order: reviewers are anonymous, so a slot is an arbitrary
  reviewer), Spearman over papers between that reviewer's score and the mean of the
  paper's *other* reviewers; averaged over the slots ``j < min_raters``, using the papers
  with at least ``min_raters`` scores. It says how well one reviewer predicts the rest;
  a predictor correlated with the *same* targets (:func:`loro_matched`) is then compared
  like with like.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "spearman",
    "kendall_tau",
    "auc",
    "partial_spearman",
    "bootstrap_indices",
    "paired_bootstrap_ci",
    "spearman_ci",
    "rank_rows",
    "spearman_rows",
    "LoroTargets",
    "loro_targets",
    "loro_ceiling",
    "loro_matched",
    "loro_ci",
    "Correlation",
    "correlate",
]

Array = Sequence[float] | np.ndarray


def _pair(x: Array, y: Array) -> tuple[np.ndarray, np.ndarray]:
    a = np.asarray(x, dtype=np.float64)
    b = np.asarray(y, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape:
        raise ValueError(f"x and y must be 1-D of the same length (got {a.shape} and {b.shape})")
    return a, b


def rank_rows(a: np.ndarray) -> np.ndarray:
    """Average ranks (1-based, ties share their mean rank) along the last axis."""
    from scipy.stats import rankdata

    return np.asarray(rankdata(a, axis=-1), dtype=np.float64)


def _pearson_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = a - a.mean(axis=-1, keepdims=True)
    b = b - b.mean(axis=-1, keepdims=True)
    den = np.sqrt((a * a).sum(axis=-1) * (b * b).sum(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (a * b).sum(axis=-1) / den
    return np.where(den > 0, np.clip(r, -1.0, 1.0), np.nan)


def spearman_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman ρ of each row pair of two (m, n) arrays (NaN where a row is constant)."""
    return _pearson_rows(rank_rows(np.atleast_2d(x)), rank_rows(np.atleast_2d(y)))


def spearman(x: Array, y: Array) -> float:
    """Spearman rank correlation with average ranks for ties.

    Args:
        x, y: Paired values (1-D, same length).

    Returns:
        ρ in [-1, 1] (best 1); NaN when fewer than 2 pairs or either variable is constant.
    """
    a, b = _pair(x, y)
    if a.size < 2:
        return math.nan
    return float(spearman_rows(a[None, :], b[None, :])[0])


def kendall_tau(x: Array, y: Array) -> float:
    """Kendall's τ-b (ties adjusted), computed in O(n log n) by scipy's algorithm.

    Returns:
        τ in [-1, 1] (best 1); NaN when fewer than 2 pairs or either variable is constant.
    """
    from scipy.stats import kendalltau

    a, b = _pair(x, y)
    if a.size < 2 or np.all(a == a[0]) or np.all(b == b[0]):
        return math.nan
    return float(kendalltau(a, b, variant="b").statistic)


def auc(scores: Array, positive: Sequence[bool] | np.ndarray) -> float:
    """Area under the ROC curve of ``scores`` for separating ``positive`` from the rest.

    Args:
        scores: Predictor values (greater = more likely positive).
        positive: Boolean labels, same length.

    Returns:
        AUC in [0, 1] (0.5 chance, best 1); NaN when a class is empty.
    """
    s = np.asarray(scores, dtype=np.float64)
    pos = np.asarray(positive, dtype=bool)
    if s.shape != pos.shape or s.ndim != 1:
        raise ValueError("scores and positive must be 1-D of the same length")
    return float(_auc_rows(s[None, :], pos)[0])


def _auc_rows(s: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """AUC of each row of ``s`` (m, n) with labels ``pos`` (n,) or (m, n)."""
    pos = np.broadcast_to(pos, s.shape)
    n_pos = pos.sum(axis=-1)
    n_neg = pos.shape[-1] - n_pos
    r = rank_rows(s)
    u = (r * pos).sum(axis=-1) - n_pos * (n_pos + 1) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        out = u / (n_pos * n_neg)
    return np.where((n_pos > 0) & (n_neg > 0), out, np.nan)


def _residuals(v: np.ndarray, z: np.ndarray) -> np.ndarray:
    design = np.column_stack([np.ones(len(v)), z])
    coef, *_ = np.linalg.lstsq(design, v, rcond=None)
    return v - design @ coef


def partial_spearman(x: Array, y: Array, covariates: np.ndarray | Sequence[Sequence[float]]) -> float:
    """Spearman correlation of x and y with the covariates' (ranked) linear effect removed.

    Args:
        x, y: Paired values.
        covariates: (n,) or (n, k) covariate values (one column per covariate).

    Returns:
        Partial ρ in [-1, 1] (best 1); NaN when fewer than ``k + 3`` rows or a residual is constant.
    """
    a, b = _pair(x, y)
    z = np.asarray(covariates, dtype=np.float64)
    z = z[:, None] if z.ndim == 1 else z
    if z.shape[0] != a.size:
        raise ValueError("covariates must have one row per pair")
    if a.size < z.shape[1] + 3:
        return math.nan
    zr = np.column_stack([rank_rows(z[:, j]) for j in range(z.shape[1])])
    ra, rb = _residuals(rank_rows(a), zr), _residuals(rank_rows(b), zr)
    return float(_pearson_rows(ra[None, :], rb[None, :])[0])


def bootstrap_indices(n: int, n_resamples: int = 1000, seed: int = 0) -> np.ndarray:
    """(n_resamples, n) row indices drawn with replacement (the same draw for every statistic)."""
    return np.random.default_rng(seed).integers(0, n, size=(n_resamples, n))


def _percentile(stats: np.ndarray, confidence: float) -> tuple[float, float]:
    stats = np.asarray(stats, dtype=np.float64)
    stats = stats[~np.isnan(stats)]
    if stats.size == 0:
        return (math.nan, math.nan)
    alpha = (1.0 - confidence) / 2.0
    return (float(np.quantile(stats, alpha)), float(np.quantile(stats, 1.0 - alpha)))


def paired_bootstrap_ci(
    statistic: Callable[..., float],
    *arrays: Array | np.ndarray,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap CI of ``statistic(*arrays)``, resampling rows of all arrays together.

    Args:
        statistic: Function of the resampled arrays (same order as given).
        arrays: Arrays with the same first dimension (one row per item).
        n_resamples: Resamples.
        confidence: Coverage, e.g. 0.95.
        seed: RNG seed.

    Returns:
        ``(low, high)``; NaNs when there are fewer than 2 items or no defined resample.
    """
    arrs = [np.asarray(a) for a in arrays]
    n = len(arrs[0])
    if any(len(a) != n for a in arrs):
        raise ValueError("all arrays need the same number of rows")
    if n < 2:
        return (math.nan, math.nan)
    idx = bootstrap_indices(n, n_resamples, seed)
    stats = np.array([statistic(*(a[row] for a in arrs)) for row in idx], dtype=np.float64)
    return _percentile(stats, confidence)


def spearman_ci(
    x: Array, y: Array, *, n_resamples: int = 1000, confidence: float = 0.95, seed: int = 0
) -> tuple[float, float]:
    """Percentile bootstrap CI of Spearman ρ (vectorised: all resamples ranked at once).

    Same resamples as :func:`paired_bootstrap_ci` with :func:`spearman` and the same seed.
    """
    a, b = _pair(x, y)
    if a.size < 2:
        return (math.nan, math.nan)
    idx = bootstrap_indices(a.size, n_resamples, seed)
    return _percentile(_chunked(lambda rows: spearman_rows(a[rows], b[rows]), idx), confidence)


def _chunked(fn: Callable[[np.ndarray], np.ndarray], idx: np.ndarray, rows: int = 250) -> np.ndarray:
    """Apply a row-batched statistic to resample indices in blocks (bounded memory)."""
    return np.concatenate([fn(idx[i : i + rows]) for i in range(0, len(idx), rows)])


# ------------------------------------------------------------------ human ceiling


@dataclass(frozen=True)
class LoroTargets:
    """Leave-one-rater-out targets over the papers with enough raters.

    Attributes:
        keep: (n_papers,) bool, papers with at least ``min_raters`` scores.
        held_out: (K, n_kept) score of reviewer slot j of each kept paper.
        others: (K, n_kept) mean score of that paper's other reviewers.
    """

    keep: np.ndarray
    held_out: np.ndarray
    others: np.ndarray

    @property
    def n(self) -> int:
        """Papers used."""
        return int(self.keep.sum())


def loro_targets(ratings: Sequence[Sequence[float]], *, min_raters: int = 3) -> LoroTargets:
    """Held-out scores and other-rater means for slots ``j < min_raters`` (see module docstring).

    Args:
        ratings: Per paper, its reviewers' scores in file order (missing scores left out).
        min_raters: Papers need at least this many scores (>= 2); K = min_raters slots.
    """
    if min_raters < 2:
        raise ValueError("min_raters must be at least 2")
    keep = np.array([len(r) >= min_raters for r in ratings], dtype=bool)
    kept = [np.asarray(r, dtype=np.float64) for r, k in zip(ratings, keep) if k]
    held = np.array([[r[j] for r in kept] for j in range(min_raters)], dtype=np.float64).reshape(min_raters, len(kept))
    others = np.array([[(r.sum() - r[j]) / (len(r) - 1) for r in kept] for j in range(min_raters)],
                      dtype=np.float64).reshape(min_raters, len(kept))
    return LoroTargets(keep, held, others)


def loro_ceiling(ratings: Sequence[Sequence[float]], *, min_raters: int = 3) -> float:
    """Human ceiling: mean over slots of Spearman(held-out reviewer, mean of the others).

    Returns:
        ρ in [-1, 1] (best 1); NaN with fewer than 2 papers.
    """
    t = loro_targets(ratings, min_raters=min_raters)
    if t.n < 2:
        return math.nan
    return _nanmean(spearman_rows(t.held_out, t.others))


def loro_matched(pred: Array, ratings: Sequence[Sequence[float]], *, min_raters: int = 3) -> float:
    """A predictor against the ceiling's own targets: mean over slots of Spearman(pred, others_j).

    Args:
        pred: One value per paper (same order as ``ratings``; NaN = no value, left out).
        ratings: Per paper, its reviewers' scores.
        min_raters: As in :func:`loro_ceiling`.

    Returns:
        ρ in [-1, 1] over the papers with enough raters and a value; NaN with fewer than 2.
    """
    p = np.asarray(pred, dtype=np.float64)
    t = loro_targets(ratings, min_raters=min_raters)
    pk = p[t.keep]
    ok = ~np.isnan(pk)
    if ok.sum() < 2:
        return math.nan
    return _nanmean(spearman_rows(np.broadcast_to(pk[ok], t.others[:, ok].shape), t.others[:, ok]))


def _nanmean(v: np.ndarray) -> float:
    v = v[~np.isnan(v)]
    return float(v.mean()) if v.size else math.nan


def _loro_stat_rows(held: np.ndarray, others: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Bootstrap rows of the slot-averaged Spearman of ``held`` (K, n) or (n,) vs ``others`` (K, n)."""
    k = others.shape[0]
    out = np.zeros(len(idx))
    for j in range(k):
        h = held[j] if held.ndim == 2 else held
        out += spearman_rows(h[idx], others[j][idx])
    return out / k


def loro_ci(
    ratings: Sequence[Sequence[float]],
    pred: Array | None = None,
    *,
    min_raters: int = 3,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> tuple[float, float]:
    """Bootstrap CI (papers resampled) of :func:`loro_ceiling`, or of :func:`loro_matched` with ``pred``."""
    t = loro_targets(ratings, min_raters=min_raters)
    held, others = t.held_out, t.others
    if pred is not None:
        pk = np.asarray(pred, dtype=np.float64)[t.keep]
        ok = ~np.isnan(pk)
        held, others = pk[ok], others[:, ok]
    n = others.shape[1]
    if n < 2:
        return (math.nan, math.nan)
    idx = bootstrap_indices(n, n_resamples, seed)
    return _percentile(_chunked(lambda rows: _loro_stat_rows(held, others, rows), idx), confidence)



# ------------------------------------------------------------------ one predictor


@dataclass
class Correlation:
    """Agreement of one predictor with a human target, with 95% bootstrap CIs.

    Attributes:
        n: Items with both values.
        rho, rho_ci: Spearman ρ and its CI.
        tau, tau_ci: Kendall τ-b and its CI.
        auc, auc_ci, n_pos, n_neg: AUC of separating the high from the low group (when given).
        partial_rho, partial_ci: Spearman ρ controlling for the covariates (when given).
    """

    n: int
    rho: float
    rho_ci: tuple[float, float]
    tau: float
    tau_ci: tuple[float, float]
    auc: float = math.nan
    auc_ci: tuple[float, float] = (math.nan, math.nan)
    n_pos: int = 0
    n_neg: int = 0
    partial_rho: float = math.nan
    partial_ci: tuple[float, float] = (math.nan, math.nan)

    def to_dict(self) -> dict[str, float | int | None]:
        """JSON-ready dict (NaN becomes None)."""

        def f(v: float) -> float | None:
            return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)

        return {
            "n": self.n, "rho": f(self.rho), "rho_ci_low": f(self.rho_ci[0]), "rho_ci_high": f(self.rho_ci[1]),
            "tau": f(self.tau), "tau_ci_low": f(self.tau_ci[0]), "tau_ci_high": f(self.tau_ci[1]),
            "auc": f(self.auc), "auc_ci_low": f(self.auc_ci[0]), "auc_ci_high": f(self.auc_ci[1]),
            "n_high": self.n_pos, "n_low": self.n_neg,
            "partial_rho": f(self.partial_rho), "partial_ci_low": f(self.partial_ci[0]),
            "partial_ci_high": f(self.partial_ci[1]),
        }


def correlate(
    pred: Array,
    target: Array,
    *,
    high: Sequence[bool] | np.ndarray | None = None,
    low: Sequence[bool] | np.ndarray | None = None,
    covariates: np.ndarray | None = None,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    tau_ci: bool = True,
) -> Correlation:
    """Spearman, Kendall, AUC (high vs low) and partial ρ of one predictor, each with a bootstrap CI.

    Items where the predictor, the target or a covariate is NaN are left out.

    Args:
        pred: Predictor values (greater = more novel).
        target: Human target (e.g. mean originality).
        high, low: Boolean masks of the two groups the AUC separates (positives = high).
        covariates: (n, k) values to control for in the partial correlation.
        n_resamples, confidence, seed: Bootstrap settings.
        tau_ci: Also bootstrap τ (the slowest part: one O(n log n) τ per resample).
    """
    p, t = _pair(pred, target)
    ok = ~(np.isnan(p) | np.isnan(t))
    z = None
    if covariates is not None:
        z = np.asarray(covariates, dtype=np.float64)
        z = z[:, None] if z.ndim == 1 else z
        ok &= ~np.isnan(z).any(axis=1)
    p, t = p[ok], t[ok]
    n = int(ok.sum())
    res = Correlation(n=n, rho=spearman(p, t), rho_ci=spearman_ci(p, t, n_resamples=n_resamples,
                                                                  confidence=confidence, seed=seed),
                      tau=kendall_tau(p, t),
                      tau_ci=paired_bootstrap_ci(kendall_tau, p, t, n_resamples=n_resamples, confidence=confidence,
                                                 seed=seed) if tau_ci else (math.nan, math.nan))
    if high is not None and low is not None:
        hi = np.asarray(high, dtype=bool)[ok]
        lo = np.asarray(low, dtype=bool)[ok]
        sel = hi | lo
        s, lab = p[sel], hi[sel]
        res.auc, res.n_pos, res.n_neg = auc(s, lab), int(lab.sum()), int((~lab).sum())
        if sel.sum() >= 2:
            idx = bootstrap_indices(int(sel.sum()), n_resamples, seed)
            res.auc_ci = _percentile(_chunked(lambda rows: _auc_rows(s[rows], lab[rows]), idx), confidence)
    if z is not None and n >= z.shape[1] + 3:
        zk = z[ok]
        res.partial_rho = partial_spearman(p, t, zk)
        idx = bootstrap_indices(n, n_resamples, seed)
        res.partial_ci = _percentile(_chunked(lambda rows: _partial_rows(p[rows], t[rows], zk[rows]), idx),
                                     confidence)
    return res


def _partial_rows(p: np.ndarray, t: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Partial Spearman of each resample row: p, t (m, n); z (m, n, k). Same as :func:`partial_spearman`."""
    m, n = p.shape
    zr = np.stack([rank_rows(z[:, :, j]) for j in range(z.shape[2])], axis=-1)
    design = np.concatenate([np.ones((m, n, 1)), zr], axis=-1)
    gram = np.einsum("mni,mnj->mij", design, design)
    out = []
    for v in (rank_rows(p), rank_rows(t)):
        rhs = np.einsum("mni,mn->mi", design, v)
        coef = _solve(gram, rhs)
        out.append(v - np.einsum("mni,mi->mn", design, coef))
    return _pearson_rows(out[0], out[1])


def _solve(gram: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Batched least-squares normal equations (pseudo-inverse where a block is singular)."""
    return np.einsum("mij,mj->mi", np.linalg.pinv(gram), rhs)
