"""Paired difference, bootstrap CI and permutation p (metrics/paired.py): by hand and against scipy."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from scipy import stats

from noveval.metrics.paired import (
    class_counts,
    f1_from_counts,
    holm,
    mean_combine,
    paired_difference,
)

# ---------------------------------------------------------------- hand-computed


def test_exact_permutation_n3_by_hand() -> None:
    # differences (3, 1, 1): the 8 sign patterns give sums 5, 3, 3, 1, -1, -3, -3, -5;
    # |sum| >= 5 for 2 of them -> p = 2/8
    r = paired_difference([0, 0, 0], [3, 1, 1], n_resamples=200)
    assert r.exact and r.n_permutations == 8
    assert r.p_value == pytest.approx(0.25)
    assert r.difference == pytest.approx(5 / 3)
    assert (r.a, r.b) == (0.0, pytest.approx(5 / 3))
    # differences (3, 1, -1): sums 3, 5, 1, 3, -3, -1, -5, -3 (observed 3) -> |sum| >= 3 for 6 of 8
    r = paired_difference([0, 0, 1], [3, 1, 0], n_resamples=200)
    assert r.p_value == pytest.approx(6 / 8)


def test_no_difference_gives_p_one_and_a_zero_interval() -> None:
    r = paired_difference([1, 0, 1, 0], [1, 0, 1, 0], n_resamples=300)
    assert r.difference == 0.0 and r.p_value == 1.0
    assert (r.ci_low, r.ci_high) == (0.0, 0.0)


def test_bootstrap_n2_by_hand() -> None:
    # differences (0, 1): a resample's mean difference is 0, 0.5 or 1 with chance 1/4, 1/2, 1/4,
    # so the 2.5% and 97.5% percentiles of 10,000 resamples are 0 and 1 (a quarter of the mass at each end)
    r = paired_difference([0, 0], [0, 1], n_resamples=10_000)
    assert (r.ci_low, r.ci_high) == (0.0, 1.0)
    # exact test: the 4 sign patterns give 1, 1, -1, -1 -> p = 1
    assert r.p_value == 1.0 and r.exact


def test_monte_carlo_p_is_never_zero() -> None:
    # 30 items all better in B: only the 2 all-same-sign assignments of 2^30 reach |t_obs|;
    # 999 random swaps (almost surely) hit neither -> p = (0 + 1) / (999 + 1)
    r = paired_difference(np.zeros(30), np.ones(30), n_permutations=999, n_resamples=200)
    assert not r.exact and r.n_permutations == 999
    assert r.p_value == pytest.approx(1 / 1000)


def test_holm_by_hand() -> None:
    # sorted 0.01, 0.03, 0.04 with m = 3: 0.03, max(0.03, 0.06), max(0.06, 0.04) = 0.03, 0.06, 0.06
    assert holm([0.04, 0.01, 0.03]) == pytest.approx([0.06, 0.03, 0.06])
    assert holm([0.5, 0.9]) == [1.0, 1.0]
    out = holm([0.02, math.nan])
    assert out[0] == pytest.approx(0.02) and math.isnan(out[1])


def test_holm_matches_statsmodels() -> None:
    multipletests = pytest.importorskip("statsmodels.stats.multitest").multipletests
    p = np.random.default_rng(3).uniform(0, 0.2, 9)
    assert holm(list(p)) == pytest.approx(list(multipletests(p, method="holm")[1]))


def test_f1_from_counts_by_hand() -> None:
    # gold 1 1 2 3, predicted 1 2 2 None (unparseable) over classes 1, 2, 3:
    # class 1: TP 1 FP 0 FN 1 -> 2/3; class 2: TP 1 FP 1 FN 0 -> 2/3; class 3: TP 0 FN 1 -> 0
    x = class_counts([1, 1, 2, 3], [1, 2, 2, None], [1, 2, 3])
    s = x.sum(axis=0)
    assert list(s) == [1, 1, 0, 0, 1, 0, 1, 0, 1]
    assert f1_from_counts(s, k=3, average="macro") == pytest.approx(4 / 9)
    assert f1_from_counts(s, k=3, average=0) == pytest.approx(2 / 3)
    # "present" leaves out classes with no gold and no prediction (here: none absent)
    s2 = class_counts([1, 1], [1, 1], [1, 2, 3]).sum(axis=0)
    assert f1_from_counts(s2, k=3, average="macro") == pytest.approx(1 / 3)
    assert f1_from_counts(s2, k=3, average="present") == pytest.approx(1.0)


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="shape"):
        paired_difference([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="not both"):
        paired_difference([1.0], [2.0], combine=mean_combine, statistic=np.mean)
    with pytest.raises(ValueError, match="confidence"):
        paired_difference([1.0], [2.0], confidence=1.5)


# ---------------------------------------------------------------- against scipy


def _diff_of_means(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.mean(b, axis=axis) - np.mean(a, axis=axis)


@pytest.mark.parametrize("method", ["percentile", "bca"])
@pytest.mark.parametrize("seed", [0, 7])
def test_bootstrap_ci_equals_scipy_paired(method: str, seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    a = rng.normal(0.0, 1.0, 40)
    b = a + rng.normal(0.3, 0.8, 40)
    ours = paired_difference(a, b, n_resamples=2000, ci_method=method, seed=seed)  # type: ignore[arg-type]
    ref = stats.bootstrap((a, b), _diff_of_means, paired=True, vectorized=True, n_resamples=2000,
                          method=method, rng=np.random.default_rng(seed))
    assert ours.ci_low == pytest.approx(ref.confidence_interval.low, abs=1e-12)
    assert ours.ci_high == pytest.approx(ref.confidence_interval.high, abs=1e-12)


def test_bootstrap_ci_of_macro_f1_equals_scipy_with_sklearn() -> None:
    from sklearn.metrics import f1_score

    rng = np.random.default_rng(5)
    n, labels = 60, [1, 2, 3, 4, 5]
    gold = rng.integers(1, 6, n)
    pa = np.where(rng.random(n) < 0.4, gold, rng.integers(1, 6, n))
    pb = np.where(rng.random(n) < 0.6, gold, rng.integers(1, 6, n))

    def macro(g: np.ndarray, p: np.ndarray) -> float:
        return float(f1_score(g, p, labels=labels, average="macro", zero_division=0))

    def stat(g: np.ndarray, xa: np.ndarray, xb: np.ndarray) -> float:
        return macro(g, xb) - macro(g, xa)

    def combine(s: np.ndarray) -> np.ndarray:
        return f1_from_counts(s, k=5, average="macro")

    ours = paired_difference(class_counts(gold, pa, labels), class_counts(gold, pb, labels), combine=combine,
                             n_resamples=400, n_permutations=400, seed=2)
    assert ours.a == pytest.approx(macro(gold, pa)) and ours.b == pytest.approx(macro(gold, pb))
    ref = stats.bootstrap((gold, pa, pb), stat, paired=True, vectorized=False, n_resamples=400,
                          method="percentile", rng=np.random.default_rng(2))
    assert ours.ci_low == pytest.approx(ref.confidence_interval.low, abs=1e-12)
    assert ours.ci_high == pytest.approx(ref.confidence_interval.high, abs=1e-12)


@pytest.mark.parametrize("n", [6, 11])
def test_exact_permutation_p_equals_scipy(n: int) -> None:
    rng = np.random.default_rng(n)
    a = rng.integers(0, 4, n).astype(float)
    b = a + rng.integers(-1, 3, n)
    ours = paired_difference(a, b, n_resamples=200, n_permutations=10_000)
    assert ours.exact
    ref = stats.permutation_test((a, b), _diff_of_means, permutation_type="samples", vectorized=True,
                                 n_resamples=10_000, alternative="two-sided")
    assert ours.p_value == pytest.approx(ref.pvalue, abs=1e-12)


def test_monte_carlo_permutation_p_agrees_with_scipy() -> None:
    rng = np.random.default_rng(11)
    a = rng.normal(0, 1, 50)
    b = a + rng.normal(0.25, 1, 50)
    ours = paired_difference(a, b, n_resamples=200, n_permutations=20_000, seed=1)
    assert not ours.exact
    ref = stats.permutation_test((a, b), _diff_of_means, permutation_type="samples", vectorized=True,
                                 n_resamples=20_000, alternative="two-sided", rng=np.random.default_rng(1))
    # two Monte Carlo estimates of the same p (different draws): SE of each ~ sqrt(p(1-p)/R) < 0.004
    assert 0.001 < ref.pvalue < 0.5
    assert ours.p_value == pytest.approx(ref.pvalue, abs=0.015)


def test_statistic_path_equals_combine_path() -> None:
    rng = np.random.default_rng(4)
    a, b = rng.normal(size=25), rng.normal(0.2, 1, 25)
    fast = paired_difference(a, b, n_resamples=500, n_permutations=500, ci_method="bca", seed=3)
    slow = paired_difference(a, b, statistic=lambda x: float(np.mean(x)), n_resamples=500, n_permutations=500,
                             ci_method="bca", seed=3)
    assert (slow.ci_low, slow.ci_high, slow.p_value) == pytest.approx((fast.ci_low, fast.ci_high, fast.p_value), abs=1e-12)


def test_seeded_and_reproducible() -> None:
    rng = np.random.default_rng(9)
    a, b = rng.normal(size=80), rng.normal(size=80)
    r1, r2 = paired_difference(a, b, seed=5), paired_difference(a, b, seed=5)
    assert r1 == r2
    assert paired_difference(a, b, seed=6).ci_low != r1.ci_low


# ---------------------------------------------------------------- a set statistic (Spearman), by hand


def _spearman_batched(stack: np.ndarray) -> np.ndarray:
    from noveval.metrics.correlation import spearman_rows

    return spearman_rows(stack[..., 0], stack[..., 1])


def test_set_statistic_exact_swaps_n3_by_hand() -> None:
    # items (prediction, target): A predicts 1, 2, 3 and B 3, 2, 1 for targets 1, 2, 3, so
    # rho_A = 1, rho_B = -1, observed -2. Item 2 predicts 2 in both runs (its swap changes
    # nothing); swapping item 1 alone gives B' = (1, 2, 1), A' = (3, 2, 3): both rho 0
    # (ranks (1.5, 3, 1.5) against (1, 2, 3): covariance 0), likewise item 3 alone; swapping
    # both gives rho_B' = 1, rho_A' = -1. The 8 assignments: T = -2, -2, 0, 0, 0, 0, +2, +2
    # -> |T| >= 2 for 4 of 8: p = 0.5.
    a = np.array([[1, 1], [2, 2], [3, 3]], dtype=float)
    b = np.array([[3, 1], [2, 2], [1, 3]], dtype=float)
    r = paired_difference(a, b, statistic=_spearman_batched, batched=True, n_resamples=2000)
    assert (r.a, r.b, r.difference) == (1.0, -1.0, -2.0)
    assert r.exact and r.n_permutations == 8 and r.p_value == 0.5
    # every resample with two or more distinct items has rho_A = 1, rho_B = -1 (one distinct
    # item: both constant, rho undefined, left out): the interval is the point [-2, -2]
    assert (r.ci_low, r.ci_high) == (-2.0, -2.0)


def test_set_statistic_equals_scipy_spearmanr_on_the_same_resamples_and_swaps() -> None:
    rng = np.random.default_rng(11)
    n = 9
    target = rng.normal(size=n)
    a = np.column_stack([target + rng.normal(0, 1.0, n), target])
    b = np.column_stack([np.round(target + rng.normal(0, 0.5, n)), target])  # ties in B
    r = paired_difference(a, b, statistic=_spearman_batched, batched=True, n_resamples=3000, seed=7)

    def rho(x: np.ndarray) -> float:
        return float(stats.spearmanr(x[:, 0], x[:, 1]).statistic)

    # the bootstrap: the same indices (np.random.default_rng(seed).integers(0, n, (R, n))),
    # scipy's Spearman on each resample, undefined resamples left out, percentile interval
    idx = np.random.default_rng(7).integers(0, n, (3000, n))
    with warnings.catch_warnings():  # scipy warns on a constant resample (rho undefined)
        warnings.simplefilter("ignore")
        dist = np.array([rho(b[i]) - rho(a[i]) for i in idx])
    dist = dist[~np.isnan(dist)]
    lo, hi = np.quantile(dist, [0.025, 0.975])
    assert (r.ci_low, r.ci_high) == (pytest.approx(lo, abs=1e-12), pytest.approx(hi, abs=1e-12))
    # the permutation test: all 2^9 swaps enumerated with scipy
    obs = rho(b) - rho(a)
    hits = 0
    for flips in itertools.product([False, True], repeat=n):
        f = np.array(flips)[:, None]
        hits += abs(rho(np.where(f, a, b)) - rho(np.where(f, b, a))) >= abs(obs) - 1e-12
    assert r.exact and r.difference == pytest.approx(obs, abs=1e-12) and r.p_value == pytest.approx(hits / 2**n)
    # the one-call-per-resample path gives the same numbers
    slow = paired_difference(a, b, statistic=lambda x: float(_spearman_batched(x[None])[0]), n_resamples=3000,
                             seed=7)
    assert (slow.ci_low, slow.ci_high, slow.p_value) == (r.ci_low, r.ci_high, r.p_value)
