"""Hand-computed checks of F1_edit / F1_exact (CLAIMCHECK §3.4)."""

import pytest

from noveval.metrics.spans import (
    SpanCounts,
    edit_similarity,
    f1_edit,
    f1_exact,
    normalize_span,
    span_counts,
    spans_from_offsets,
)


def test_edit_similarity_values():
    assert edit_similarity("abcd", "abce") == pytest.approx(0.75)
    assert edit_similarity("", "") == 1.0
    assert edit_similarity("xyz", "abce") == 0.0
    assert edit_similarity("kitten", "sitting") == pytest.approx(1 - 3 / 7)


def test_partial_overlap_single_pair():
    assert f1_edit([["abcd"]], [["abce"]]) == pytest.approx(0.75)
    assert f1_exact([["abcd"]], [["abce"]]) == 0.0


def test_unmatched_gold_span_lowers_recall():
    # M = 0.75 (abcd~abce), xyz unmatched: P = .75/1, R = .75/2 -> F1 = 0.5
    assert f1_edit([["abcd", "xyz"]], [["abce"]]) == pytest.approx(0.5)
    # symmetric
    assert f1_edit([["abce"]], [["abcd", "xyz"]]) == pytest.approx(0.5)


def test_exact_counts_multiset_intersection_and_whitespace():
    # 1 shared of 2 gold / 3 pred -> P=1/3, R=1/2, F1=0.4
    assert f1_exact([["a b", "c"]], [["a \n b ", "d", "e"]]) == pytest.approx(0.4)
    assert f1_exact([["a b"]], [["a  b"]], normalize=False) == 0.0
    assert normalize_span("  a\t b\n") == "a b"


def test_empty_sides():
    assert f1_edit([[]], [[]]) == 1.0
    assert f1_edit([[]], [[]], zero_division=0.0) == 0.0
    assert f1_edit([["abc"]], [[]]) == 0.0
    assert f1_exact([[]], [["abc"]]) == 0.0


def test_micro_average_pools_items():
    # item1: M=1 (1 gold, 1 pred); item2: 0 gold, 1 pred -> P=1/2, R=1, F1=2/3
    assert f1_edit([["abcd"], []], [["abcd"], ["q"]]) == pytest.approx(2 / 3)
    # macro would give (1 + 0)/2; micro differs on purpose
    # item weights: item1 4 spans at 0.75 each vs item2 1 exact match
    g = [["aaaa", "bbbb", "cccc", "dddd"], ["zz"]]
    p = [["aaax", "bbbx", "cccx", "dddx"], ["zz"]]
    assert f1_edit(g, p) == pytest.approx((4 * 0.75 + 1) / 5)


def test_assignment_is_optimal_not_greedy():
    table = {("g1", "p1"): 0.9, ("g1", "p2"): 0.8, ("g2", "p1"): 0.7, ("g2", "p2"): 0.0}
    counts = span_counts(["g1", "g2"], ["p1", "p2"], similarity=lambda a, b: table[(a, b)])
    assert counts == SpanCounts(pytest.approx(1.5), 2, 2)
    assert counts.f1() == pytest.approx(0.75)


def test_bad_shapes_raise():
    with pytest.raises(ValueError):
        f1_edit([["a"]], [])
    with pytest.raises(TypeError):
        f1_edit(["abc"], ["abc"])


def test_spans_from_offsets():
    assert spans_from_offsets("hello world", [(0, 5), (6, 11)]) == ["hello", "world"]
    with pytest.raises(ValueError):
        spans_from_offsets("abc", [(2, 9)])


def test_f1_from_span_sums_by_hand_and_against_f1_edit() -> None:
    import numpy as np

    from noveval.metrics.spans import f1_from_span_sums, span_counts

    # M = 1.5 over 3 gold and 2 predicted spans: P = 0.75, R = 0.5, F1 = 2PR/(P+R) = 0.6 = 2M/(3+2)
    assert f1_from_span_sums(np.array([1.5, 3, 2])) == pytest.approx(0.6)
    # both sides empty: zero_division; one side empty: 0; vectorised over leading axes
    got = f1_from_span_sums(np.array([[[0, 0, 0], [0, 2, 0]], [[0, 0, 4], [2, 2, 2]]]))
    assert got.shape == (2, 2) and got.tolist() == [[1.0, 0.0], [0.0, 1.0]]
    gold = [["a cat sat", "on the mat"], [], ["dogs bark"]]
    pred = [["a cat sits"], ["extra"], ["dogs bark", "loudly"]]
    sums = np.sum([[c.matched, c.n_gold, c.n_pred] for c in map(span_counts, gold, pred)], axis=0)
    assert f1_from_span_sums(sums) == pytest.approx(f1_edit(gold, pred), abs=1e-12)
