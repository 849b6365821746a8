"""Pairwise agreement and Krippendorff's alpha (CLAIMCHECK §3.4, §4.1, Tables 2/5)."""

import math

import numpy as np
import pytest

from noveval.metrics.agreement import (
    agreement_with_model,
    alpha_by_label,
    krippendorff_alpha,
    pairwise_agreement,
)

ANNOTATIONS = {
    "A": {"r1": ["abcd"]},
    "B": {"r1": ["abce"]},
    "C": {"r1": ["abcd"], "r2": ["x"]},
}


def test_pairwise_average_and_individuals():
    res = pairwise_agreement(ANNOTATIONS)
    assert res.pairs == {("A", "B"): pytest.approx(0.75), ("A", "C"): 1.0,
                         ("B", "C"): pytest.approx(0.75)}
    assert res.mean == pytest.approx(2.5 / 3)
    assert res.per_annotator == {"A": pytest.approx(0.875), "B": pytest.approx(0.75),
                                 "C": pytest.approx(0.875)}
    assert res.shared_items[("A", "C")] == 1
    exact = pairwise_agreement(ANNOTATIONS, metric="exact")
    assert exact.mean == pytest.approx(1 / 3)


def test_with_and_without_model():
    out = agreement_with_model(ANNOTATIONS, {"r1": [], "r2": ["x"]}, model_name="gpt")
    assert out["humans_only"].mean == pytest.approx(2.5 / 3)
    # model vs A, B: 0 (empty vs one span); vs C: r1 0 + r2 1 match -> P=1, R=1/2
    assert out["with_model"].pairs[("C", "gpt")] == pytest.approx(2 / 3)
    assert out["model_individual"] == pytest.approx((0 + 0 + 2 / 3) / 3)
    assert out["with_model"].mean == pytest.approx((2.5 + 2 / 3) / 6)
    with pytest.raises(ValueError):
        agreement_with_model(ANNOTATIONS, {}, model_name="A")


def test_no_shared_items():
    res = pairwise_agreement({"A": {"r1": ["a"]}, "B": {"r2": ["a"]}})
    assert math.isnan(res.mean) and res.pairs == {}


def test_alpha_nominal_by_hand():
    # coincidences o11=4, o12=o21=1, o22=2; n1=5, n2=3, n=8 -> 1 - 7*2/30
    data = [[1, 1, 2, 2], [1, 1, 2, 1]]
    assert krippendorff_alpha(data, level="nominal") == pytest.approx(1 - 14 / 30)


def test_alpha_degenerate():
    assert math.isnan(krippendorff_alpha([[1, 1], [1, 1]]))
    assert math.isnan(krippendorff_alpha([[1, np.nan], [np.nan, 2]]))
    assert krippendorff_alpha([[1, 2, 3], [1, 2, 3]], level="ordinal") == 1.0


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_alpha_matches_krippendorff_package(level):
    krippendorff = pytest.importorskip("krippendorff")
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(60):
        m = rng.integers(1, 6, size=(rng.integers(2, 7), rng.integers(3, 40))).astype(float)
        m[rng.random(m.shape) < 0.35] = np.nan
        if level == "nominal" and rng.random() < 0.5:
            m = np.where(np.isnan(m), np.nan, (m > 2).astype(float))  # binary type labels
        try:
            ref = krippendorff.alpha(reliability_data=m, level_of_measurement=level)
        except (ValueError, ZeroDivisionError):
            continue
        got = krippendorff_alpha(m, level=level)
        if np.isnan(ref):
            assert np.isnan(got)
        else:
            assert got == pytest.approx(ref, abs=1e-10)
            checked += 1
    assert checked > 40


def test_alpha_by_label():
    labels = {
        "A": {"w1": {"agreement": 5, "novelty": True}, "w2": {"agreement": 1, "novelty": False}},
        "B": {"w1": {"agreement": 4, "novelty": True}, "w2": {"agreement": 2, "novelty": False}},
        "C": {"w1": {"agreement": None, "novelty": True}},
    }
    out = alpha_by_label(labels, {"agreement": "ordinal", "novelty": "nominal"})
    assert list(out) == ["agreement", "novelty"]
    assert out["novelty"] == 1.0
    ref = krippendorff_alpha([[5, 1], [4, 2], [np.nan, np.nan]], level="ordinal")
    assert out["agreement"] == pytest.approx(ref)
