"""Rank correlation, AUC, partial correlation, bootstrap CIs and the leave-one-rater-out ceiling
(noveval.metrics.correlation), cross-checked against scipy, scikit-learn and statsmodels."""

import itertools
import math

import numpy as np
import pytest
import scipy.stats as ss

from noveval.metrics.correlation import (
    auc,
    bootstrap_indices,
    correlate,
    kendall_tau,
    loro_ceiling,
    loro_ci,
    loro_matched,
    loro_targets,
    paired_bootstrap_ci,
    partial_spearman,
    spearman,
    spearman_ci,
)


def _data(seed, n, ties=True):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    y = 0.4 * x + rng.normal(size=n)
    if ties:  # ratings-like targets: a few distinct values
        y = np.round(y * 2) / 2
        x = np.round(x, 1)
    return x, y


@pytest.mark.parametrize("seed,n,ties", [(0, 10, False), (1, 57, True), (2, 400, True), (3, 3, False)])
def test_spearman_and_kendall_match_scipy(seed, n, ties):
    x, y = _data(seed, n, ties)
    assert spearman(x, y) == pytest.approx(ss.spearmanr(x, y).statistic, abs=1e-12)
    assert kendall_tau(x, y) == pytest.approx(ss.kendalltau(x, y, variant="b").statistic, abs=1e-12)


def _tau_b_by_pairs(x, y):
    """Kendall tau-b from its definition, counting every pair (independent of scipy)."""
    c = d = tx = ty = 0
    for i, j in itertools.combinations(range(len(x)), 2):
        sx, sy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
        if sx == 0 and sy == 0:
            continue
        if sx == 0:
            tx += 1
        elif sy == 0:
            ty += 1
        elif sx == sy:
            c += 1
        else:
            d += 1
    return (c - d) / math.sqrt((c + d + tx) * (c + d + ty))


def test_kendall_tau_b_by_definition_with_ties():
    x, y = _data(5, 60, ties=True)
    assert kendall_tau(x, y) == pytest.approx(_tau_b_by_pairs(x, y), abs=1e-12)


def test_degenerate_inputs_are_nan():
    assert math.isnan(spearman([1, 1, 1], [1, 2, 3]))
    assert math.isnan(kendall_tau([1, 2, 3], [2, 2, 2]))
    assert math.isnan(spearman([1], [2]))
    with pytest.raises(ValueError):
        spearman([1, 2], [1, 2, 3])


def test_auc_matches_sklearn_with_ties():
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(7)
    s = np.round(rng.normal(size=200), 1)
    lab = rng.random(200) < 0.3 + 0.2 * (s > 0)
    assert auc(s, lab) == pytest.approx(roc_auc_score(lab, s), abs=1e-12)
    assert auc([1, 2, 3, 4], [False, False, True, True]) == 1.0
    assert auc([1, 1], [False, True]) == 0.5
    assert math.isnan(auc([1, 2], [True, True]))


def test_partial_spearman_one_covariate_formula():
    rng = np.random.default_rng(3)
    z = rng.normal(size=300)
    x = z + rng.normal(size=300)
    y = z + 0.3 * x + rng.normal(size=300)
    rxy, rxz, ryz = (ss.spearmanr(a, b).statistic for a, b in ((x, y), (x, z), (y, z)))
    expected = (rxy - rxz * ryz) / math.sqrt((1 - rxz**2) * (1 - ryz**2))
    assert partial_spearman(x, y, z) == pytest.approx(expected, abs=1e-10)


def test_partial_spearman_two_covariates_vs_statsmodels():
    import statsmodels.api as sm

    rng = np.random.default_rng(4)
    z = rng.normal(size=(250, 2))
    z[:, 1] = np.round(z[:, 1])  # a tied covariate (like a year)
    x = z @ [1.0, 0.5] + rng.normal(size=250)
    y = z @ [0.2, 1.0] + 0.3 * x + rng.normal(size=250)
    rz = np.column_stack([ss.rankdata(z[:, 0]), ss.rankdata(z[:, 1])])
    design = sm.add_constant(rz)
    ex = sm.OLS(ss.rankdata(x), design).fit().resid
    ey = sm.OLS(ss.rankdata(y), design).fit().resid
    assert partial_spearman(x, y, z) == pytest.approx(ss.pearsonr(ex, ey).statistic, abs=1e-10)


def test_bootstrap_ci_same_resamples_and_close_to_scipy():
    x, y = _data(11, 300)
    fast = spearman_ci(x, y, n_resamples=2000, seed=1)
    slow = paired_bootstrap_ci(spearman, x, y, n_resamples=2000, seed=1)
    assert fast == pytest.approx(slow, abs=1e-12)
    ref = ss.bootstrap((x, y), lambda a, b: ss.spearmanr(a, b).statistic, paired=True, vectorized=False,
                       n_resamples=2000, method="percentile", random_state=2).confidence_interval
    assert fast[0] == pytest.approx(ref.low, abs=0.02)
    assert fast[1] == pytest.approx(ref.high, abs=0.02)
    rho = spearman(x, y)
    assert fast[0] < rho < fast[1]


def test_bootstrap_ci_is_the_percentile_of_the_resampled_statistic():
    x, y = _data(12, 50)
    idx = bootstrap_indices(50, 300, seed=9)
    stats = [kendall_tau(x[r], y[r]) for r in idx]
    lo, hi = paired_bootstrap_ci(kendall_tau, x, y, n_resamples=300, seed=9)
    assert (lo, hi) == pytest.approx((np.quantile(stats, 0.025), np.quantile(stats, 0.975)))


def test_correlate_drops_missing_and_matches_references():
    from sklearn.metrics import roc_auc_score

    x, y = _data(13, 200)
    x[[3, 7]] = np.nan
    z = np.column_stack([np.arange(200.0), np.ones(200)])
    z[5, 0] = np.nan
    high, low = y >= 0.5, y <= -0.5
    c = correlate(x, y, high=high, low=low, covariates=z, n_resamples=200, seed=0)
    ok = ~np.isnan(x) & ~np.isnan(z[:, 0])
    assert c.n == 197
    assert c.rho == pytest.approx(ss.spearmanr(x[ok], y[ok]).statistic)
    assert c.tau == pytest.approx(ss.kendalltau(x[ok], y[ok]).statistic)
    sel = ok & (high | low)
    assert c.auc == pytest.approx(roc_auc_score(high[sel], x[sel]))
    assert (c.n_pos, c.n_neg) == (int((ok & high).sum()), int((ok & low).sum()))
    assert c.rho_ci[0] < c.rho < c.rho_ci[1] and c.auc_ci[0] < c.auc < c.auc_ci[1]
    assert c.tau_ci[0] < c.tau < c.tau_ci[1]
    assert not math.isnan(c.partial_rho) and c.partial_ci[0] < c.partial_rho < c.partial_ci[1]
    d = c.to_dict()
    assert d["n"] == 197 and d["rho"] == c.rho


# --------------------------------------------------------------- the human ceiling by hand
#
# Paper A: [1, 2, 3]; B: [4, 4, 2]; C: [2, 3, 3, 4]  (min_raters = 3: all three papers)
# slot 0: held [1, 4, 2], others [2.5, 3, 3.333]  -> ranks [1,3,2] vs [1,2,3]: rho = 0.5
# slot 1: held [2, 4, 3], others [2, 3, 3]        -> ranks [1,3,2] vs [1,2.5,2.5]: rho = 1.5/sqrt(3)
# slot 2: held [3, 2, 3], others [1.5, 4, 3]      -> ranks [2.5,1,2.5] vs [1,3,2]: rho = -1.5/sqrt(3)
# ceiling = (0.5 + 0.866025 - 0.866025) / 3 = 1/6
RATINGS = [[1, 2, 3], [4, 4, 2], [2, 3, 3, 4]]


def test_loro_targets_by_hand():
    t = loro_targets(RATINGS, min_raters=3)
    assert t.n == 3
    np.testing.assert_allclose(t.held_out, [[1, 4, 2], [2, 4, 3], [3, 2, 3]])
    np.testing.assert_allclose(t.others, [[2.5, 3, 10 / 3], [2, 3, 3], [1.5, 4, 3]])


def test_loro_ceiling_by_hand():
    assert loro_ceiling(RATINGS, min_raters=3) == pytest.approx(1 / 6)
    # two slots only: (0.5 + 1.5 / sqrt(3)) / 2
    assert loro_ceiling(RATINGS, min_raters=2) == pytest.approx((0.5 + 1.5 / math.sqrt(3)) / 2)
    assert math.isnan(loro_ceiling(RATINGS, min_raters=4))  # only paper C has four ratings


def test_loro_matched_by_hand():
    # pred ranks [1,3,2]; vs others slot 0 [1,2,3]: 0.5; slot 1 [1,2.5,2.5]: 1.5/sqrt(3); slot 2 [1,3,2]: 1
    assert loro_matched([0.1, 0.5, 0.3], RATINGS, min_raters=3) == pytest.approx((0.5 + 1.5 / math.sqrt(3) + 1) / 3)
    # B without a value is left out: A and C remain, and C's others' mean exceeds A's in every
    # slot (3.33 > 2.5, 3 > 2, 3 > 1.5), so each slot's rho is +1 (or -1 with the order reversed)
    assert loro_matched([0.1, np.nan, 0.3], RATINGS, min_raters=3) == pytest.approx(1.0)
    assert loro_matched([0.3, np.nan, 0.1], RATINGS, min_raters=3) == pytest.approx(-1.0)


def test_loro_ci_covers_the_estimate_on_random_panels():
    rng = np.random.default_rng(0)
    quality = rng.normal(size=300)
    ratings = [list(np.clip(np.round(2.5 + q + rng.normal(scale=1.0, size=rng.integers(3, 6))), 1, 4))
               for q in quality]
    rho = loro_ceiling(ratings)
    lo, hi = loro_ci(ratings, n_resamples=300, seed=1)
    assert 0.2 < rho < 0.8 and lo < rho < hi
    pred = quality + rng.normal(scale=0.5, size=300)
    m = loro_matched(pred, ratings)
    mlo, mhi = loro_ci(ratings, pred, n_resamples=300, seed=1)
    assert mlo < m < mhi
    # the matched rho is the slot-average of scipy's Spearman against each slot's others
    t = loro_targets(ratings)
    ref = np.mean([ss.spearmanr(pred[t.keep], t.others[j]).statistic for j in range(3)])
    assert m == pytest.approx(ref)
