"""NovBench metrics (Wu et al., Section 3.2, Eqs. 1-7) and Appendix D agreement."""

import math

import numpy as np
import pytest
from scipy.spatial.distance import cityblock
from scipy.stats import spearmanr
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from noveval.metrics.agreement import (
    fleiss_kappa,
    majority_agreement,
    majority_vote,
    spearman_rho,
)
from noveval.metrics.novbench import (
    SENTIMENTS,
    avg_ims,
    clarity,
    coverage,
    dist_acc,
    extract_keywords,
    filter_items,
    fluency_score,
    ims_from_cosine,
    keyword_coverage,
    length_score,
)

# ---------------------------------------------------------------- Eq. 1 Relevance


def test_ims_clips_negative_cosines_and_above_one():
    assert ims_from_cosine(-0.4) == pytest.approx(1.0)
    assert ims_from_cosine(0.0) == pytest.approx(1.0)
    assert ims_from_cosine(0.5) == pytest.approx(3.0)
    assert ims_from_cosine(1.0000001) == pytest.approx(5.0)


def test_avg_ims_hand_computed():
    # row 1: max(IMS(0.5)=3, IMS(-0.2)=1) = 3; row 2: both negative -> 1. Mean 2.
    cos = np.array([[0.5, -0.2], [-0.3, -0.9]])
    assert avg_ims(cos) == pytest.approx(2.0)


def test_avg_ims_ties_and_single():
    assert avg_ims(np.array([[0.25, 0.25]])) == pytest.approx(2.0)
    assert avg_ims(np.array([[1.0], [0.0], [0.75]])) == pytest.approx((5 + 1 + 4) / 3)


def test_avg_ims_empty_output_scores_zero_and_empty_source_errors():
    assert avg_ims(np.zeros((3, 0))) == 0.0
    with pytest.raises(ValueError):
        avg_ims(np.zeros((0, 2)))
    with pytest.raises(ValueError):
        avg_ims(np.zeros(3))


# ---------------------------------------------------------------- Eq. 2 DistAcc


def test_dist_acc_hand_computed():
    # t = (2/3, 0, 1/3), p = (1/2, 1/2, 0): L1 = 1/6 + 1/2 + 1/3 = 1 -> 0.5
    assert dist_acc(["positive", "positive", "negative"], ["positive", "neutral"]) == pytest.approx(
        0.5
    )
    assert dist_acc(["positive"], ["positive", "positive"]) == 1.0
    assert dist_acc(["positive"], ["negative"]) == 0.0
    # order does not matter, only proportions
    assert dist_acc(["neutral", "positive"], ["positive", "neutral"]) == 1.0


def test_dist_acc_empty_sides():
    assert dist_acc(["positive"], []) == 0.0
    assert math.isnan(dist_acc([], ["positive"]))
    with pytest.raises(ValueError):
        dist_acc(["positive"], ["great"])


def test_dist_acc_matches_independent_l1_on_random_inputs():
    rng = np.random.default_rng(7)
    for _ in range(200):
        t = rng.integers(0, 3, rng.integers(1, 12))
        p = rng.integers(0, 3, rng.integers(1, 12))
        td = np.bincount(t, minlength=3) / len(t)
        pd_ = np.bincount(p, minlength=3) / len(p)
        expected = 1 - cityblock(td, pd_) / 2
        got = dist_acc([SENTIMENTS[i] for i in t], [SENTIMENTS[i] for i in p])
        assert got == pytest.approx(expected)


# ---------------------------------------------------------------- Eq. 3 Coverage


def test_coverage_tau_boundary_is_inclusive():
    cos = np.array([[0.7, 0.1], [0.6999, 0.2], [0.9, 0.95]])
    assert coverage(cos) == pytest.approx(2 / 3)
    assert coverage(cos, tau=0.95) == pytest.approx(1 / 3)
    assert coverage(cos, tau=0.0) == 1.0


def test_coverage_negative_cosines_and_empty():
    assert coverage(np.array([[-0.9, -0.1]])) == 0.0
    assert coverage(np.zeros((2, 0))) == 0.0  # empty model output
    assert math.isnan(coverage(np.zeros((0, 2))))  # no gold item


# ---------------------------------------------------------------- Eqs. 4-7 Clarity


def test_filter_items_drops_short_and_none():
    items = ["None", " none ", "too short", "exactly10!", "A real evaluation sentence.", ""]
    assert filter_items(items) == ["exactly10!", "A real evaluation sentence."]


def test_extract_keywords_length_over_five_and_hyphens():
    kws = extract_keywords(["We propose a self-attention model for parsing.", "Parsing again!"])
    assert kws == ["propose", "self-attention", "parsing"]
    assert extract_keywords(["short words only here"]) == []


def test_keyword_coverage_token_vs_substring():
    kws = ["parsing", "propose"]
    texts = ["The parsings are good enough today", "It proposes nothing", "We PROPOSE it"]
    assert keyword_coverage(texts, kws, match="token") == pytest.approx(1 / 3)
    assert keyword_coverage(texts, kws, match="substring") == 1.0
    assert keyword_coverage([], kws) == 0.0
    assert keyword_coverage(texts, []) == 0.0


def test_length_score_hand_computed_and_clipped():
    five = "a b c d e"
    fifteen = " ".join("x" * 15)
    assert length_score([five, fifteen]) == pytest.approx(0.5)  # mean 10 tokens / 20
    assert length_score([" ".join("w" * 30)]) == 1.0
    assert length_score([]) == 0.0


def test_fluency_score_hand_computed():
    assert fluency_score([1.0, 3.0]) == pytest.approx((0.5 + 0.25) / 2)
    assert fluency_score([]) == 0.0


def test_fluency_score_nonfinite_perplexity_counts_as_zero():
    # Eq. 6: 1 / (1 + inf) = 0, and the sentence stays in |T|
    assert fluency_score([1.0, math.inf]) == pytest.approx((0.5 + 0.0) / 2)
    assert fluency_score([3.0, math.nan, 1.0]) == pytest.approx((0.25 + 0.0 + 0.5) / 3)  # NaN: nothing scorable
    assert fluency_score([math.inf, math.inf]) == 0.0
    # the old rule, kept as an option, leaves them out of the mean
    assert fluency_score([1.0, math.inf], nonfinite="drop") == pytest.approx(0.5)
    assert fluency_score([math.nan], nonfinite="drop") == 0.0
    with pytest.raises(ValueError):
        fluency_score([1.0], nonfinite="skip")  # type: ignore[arg-type]
    texts = ["The parsing method is new", "Reparsing everything is not new at all here"]
    # token KC 1/2, LS 0.325, FS (1/2 + 0)/2: Clarity (Eq. 7) = (0.5 + 0.325 + 0.25) / 3
    assert clarity(texts, ["parsing"], perplexities=[1.0, math.inf]) == pytest.approx((0.5 + 0.325 + 0.25) / 3)


def test_clarity_variants_hand_computed():
    kws = ["parsing"]
    texts = ["The parsing method is new", "Reparsing everything is not new at all here"]
    # token KC = 1/2, substring KC = 1, LS = mean(5, 8)/20 = 0.325, FS = mean(1/2, 1/5)
    fs = (0.5 + 0.2) / 2
    assert clarity(texts, kws, perplexities=[1.0, 4.0]) == pytest.approx((0.5 + 0.325 + fs) / 3)
    assert clarity(texts, kws, variant="reference") == pytest.approx(0.5 * 1.0 + 0.5 * 0.325)
    assert clarity([], kws, variant="reference") == 0.0
    with pytest.raises(ValueError):
        clarity(texts, kws)  # paper variant needs perplexities
    with pytest.raises(ValueError):
        clarity(texts, kws, variant="other", perplexities=[1.0, 1.0])


# ---------------------------------------------------------------- Appendix D agreement


def test_fleiss_kappa_hand_computed():
    # 2 items, 2 raters: perfect agreement on different categories -> 1
    assert fleiss_kappa([["A", "A"], ["B", "B"]]) == pytest.approx(1.0)
    # Fleiss (1971)-style small table: p_j = (0.5, 0.5), P_i = (1, 0) -> (0.5 - 0.5)/0.5 = 0
    assert fleiss_kappa([["A", "A"], ["A", "B"], ["B", "B"], ["B", "A"]]) == pytest.approx(0.0)
    assert math.isnan(fleiss_kappa([["A", "A"], ["A", "A"]]))
    with pytest.raises(ValueError):
        fleiss_kappa([["A", "B"], ["A"]])


def test_fleiss_kappa_matches_statsmodels_on_random_inputs():
    rng = np.random.default_rng(3)
    for _ in range(50):
        n_items, n_raters = rng.integers(5, 40), rng.integers(2, 6)
        ratings = rng.integers(0, 3, (n_items, n_raters))
        table, _ = aggregate_raters(ratings)
        expected = sm_fleiss_kappa(table, method="fleiss")
        assert fleiss_kappa(ratings.tolist()) == pytest.approx(expected, abs=1e-12)


def test_majority_vote_strict_and_agreement():
    assert majority_vote(["A", "A", "B"]) == "A"
    assert majority_vote(["A", "A", "B", "B"]) is None  # tie: no strict majority
    assert majority_vote(["A", "B", "C"]) is None
    human = [["A", "A", "B", "A"], ["A", "B", "A", "B"], ["B", "B", "B", "C"]]
    agree, n = majority_agreement(human, ["A", "A", "A"])
    assert n == 2 and agree == pytest.approx(0.5)
    agree, n = majority_agreement([["A", "B"]], ["A"])
    assert n == 0 and math.isnan(agree)


def test_spearman_matches_scipy_on_random_inputs():
    rng = np.random.default_rng(11)
    for _ in range(50):
        n = int(rng.integers(3, 40))
        x = rng.integers(0, 4, n).astype(float)  # many ties
        y = x + rng.normal(0, 1.5, n)
        if np.all(x == x[0]):
            continue
        rho, p = spearman_rho(x, y)
        ref = spearmanr(x, y)
        assert rho == pytest.approx(ref.statistic, abs=1e-12)
        assert p == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-12)
    assert all(math.isnan(v) for v in spearman_rho([1, 1, 1], [1, 2, 3]))
