"""Focus metrics against hand-computed values (Mind the Blind Spots, 4.3, 5.1, A.4)."""

import math

import numpy as np
import pytest
from scipy.stats import entropy

from noveval.metrics.focus import (
    ASPECTS,
    TARGETS,
    facet_counts,
    focus_distribution,
    kl_divergence,
    multiset_prf,
    per_facet_prf,
)


def test_distribution_counts_and_ignores_non_facets():
    labels = ["Method", "Method", "Experiment", "Review process", None, "Theory"]
    counts = facet_counts(labels, facets=TARGETS)
    assert counts.tolist() == [0, 0, 2, 1, 1, 0, 0]
    dist = focus_distribution(labels, facets=TARGETS)
    assert dist.tolist() == pytest.approx([0, 0, 0.5, 0.25, 0.25, 0, 0])
    assert focus_distribution([], facets=ASPECTS).tolist() == [0.0] * 5


def test_kl_hand_computed_and_scipy():
    p, q = [0.5, 0.5], [0.25, 0.75]
    expected = 0.5 * math.log(2) + 0.5 * math.log(0.5 / 0.75)
    assert kl_divergence(p, q, epsilon=0) == pytest.approx(expected)
    assert kl_divergence(p, q, epsilon=0, base=2) == pytest.approx(expected / math.log(2))
    rng = np.random.default_rng(0)
    for _ in range(5):
        a, b = rng.random(6), rng.random(6)
        assert kl_divergence(a, b, epsilon=0) == pytest.approx(entropy(a, b))
    assert kl_divergence(p, p) == 0.0


def test_kl_zero_bins():
    human, model = [0.5, 0.5, 0.0], [1.0, 0.0, 0.0]
    assert kl_divergence(human, model, epsilon=0) == math.inf
    # zero in p only: that term vanishes
    assert kl_divergence(model, human, epsilon=0) == pytest.approx(math.log(2))
    eps = 1e-3
    ps = (np.array(human) + eps) / (1 + 3 * eps)
    qs = (np.array(model) + eps) / (1 + 3 * eps)
    expected = float(np.sum(ps * np.log(ps / qs)))
    assert kl_divergence(human, model, epsilon=eps) == pytest.approx(expected)
    assert math.isfinite(kl_divergence(human, model))
    # an empty focus (all zeros) is uniform after smoothing
    assert kl_divergence([0, 0], [0.5, 0.5], epsilon=0) == pytest.approx(0.0)


def test_multiset_f1_hand_computed():
    human = [("Method", "Novelty"), ("Method", "Novelty"), ("Experiment", "Validity")]
    model = [("Method", "Novelty"), ("Experiment", "Validity"), ("Experiment", "Validity"),
             ("Paper", "Clarity")]
    p, r, f = multiset_prf(human, model)
    assert p == pytest.approx(2 / 4) and r == pytest.approx(2 / 3)
    assert f == pytest.approx(2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))
    assert multiset_prf([], []) is None
    assert multiset_prf(["a"], []) == (0.0, 0.0, 0.0)
    assert multiset_prf(["a", "a"], ["a", "a"]) == (1.0, 1.0, 1.0)


def test_per_facet_prf_hand_computed():
    human = {"p1": ["Method", "Method", "Theory"], "p2": ["Experiment"]}
    model = {"p1": ["Method", "Experiment"], "p2": ["Experiment", "Experiment"], "p3": ["Paper"]}
    res = per_facet_prf(human, model, facets=TARGETS)
    m = res["Method"]  # tp=1, nh=2, nm=1
    assert (m["precision"], m["recall"]) == (1.0, 0.5)
    assert m["f1"] == pytest.approx(2 / 3)
    e = res["Experiment"]  # p1: min(0,1)=0; p2: min(1,2)=1 -> tp=1, nh=1, nm=3
    assert e["precision"] == pytest.approx(1 / 3) and e["recall"] == 1.0
    assert e["f1"] == pytest.approx(0.5)
    assert res["Theory"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0,
                             "support_human": 1.0, "support_model": 0.0}
    assert res["Paper"]["support_model"] == 1.0 and res["Paper"]["f1"] == 0.0


def test_kl_from_counts_equals_kl_divergence_of_the_distributions() -> None:
    from noveval.metrics.focus import kl_from_counts

    p, q = np.array([3, 1, 0]), np.array([1, 1, 2])
    # counts are normalised first (3/4, 1/4, 0 and 1/4, 1/4, 1/2), then smoothed as kl_divergence does
    want = kl_divergence(p / 4, q / 4, epsilon=1e-3)
    assert kl_from_counts(p, q, epsilon=1e-3) == pytest.approx(want, abs=1e-12)
    # stacked, with an empty side (smoothed to uniform) and the raw KL's infinity
    got = kl_from_counts(np.array([p, [0, 0, 0], p]), np.array([q, q, [0, 1, 1]]), epsilon=0.0)
    assert got[0] == pytest.approx(entropy(p / 4, q / 4), abs=1e-12)
    assert got[1] == pytest.approx(entropy([1 / 3] * 3, q / 4), abs=1e-12)
    assert got[2] == math.inf


def test_kl_mean_of_counts_by_hand() -> None:
    from noveval.benchmarks.focus.scoring import (
        count_vector,
        facet_count_table,
        kl_mean_of_counts,
        kl_table,
    )

    def pt(pol: str, target: str, aspect: str) -> dict:
        return {"paper_id": "p", "polarity": pol, "target": target, "aspect": aspect}

    human = [pt("weakness", "Method", "Validity"), pt("weakness", "Theory", "Validity"), pt("strength", "Paper", "Impact")]
    model = [pt("weakness", "Method", "Clarity")]  # no strength: both strength distributions empty on one side
    v = count_vector({"human": facet_count_table(human), "model": facet_count_table(model)})
    assert v.shape == (48,) and v.sum() == 2 * 3 + 2 * 1
    for present in (False, True):
        want = kl_table(human, model, epsilon=1e-3, present_only=present)["mean"]
        assert kl_mean_of_counts(v, epsilon=1e-3, present_only=present) == pytest.approx(want, abs=1e-12)
    # present_only: the mean over the two weakness distributions only (targets Problem, Prior
    # Research, Method, Theory, ...; aspects Impact, Novelty, Clarity, Validity, Not-specific)
    wt = kl_divergence([0, 0, 0.5, 0.5, 0, 0, 0], [0, 0, 1, 0, 0, 0, 0], epsilon=1e-3)
    wa = kl_divergence([0, 0, 0, 1, 0], [0, 0, 1, 0, 0], epsilon=1e-3)
    assert kl_mean_of_counts(v, epsilon=1e-3, present_only=True) == pytest.approx((wt + wa) / 2, abs=1e-12)
    assert math.isnan(float(kl_mean_of_counts(np.zeros(48), epsilon=1e-3)))
