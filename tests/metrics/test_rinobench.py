"""RINoBench metrics: F1/MAE against scikit-learn, Eqs. 1-3 on hand-made argument sets."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from sklearn.metrics import f1_score
from sklearn.metrics import mean_absolute_error as sk_mae

from noveval.metrics.rinobench import (
    additional_ratio,
    argument_recall,
    aspect_metrics,
    confusion_matrix,
    f1_scores,
    hallucination_rate,
    macro_f1,
    mean_absolute_error,
    per_class_f1,
    score_distribution,
)

LABELS = [1, 2, 3, 4, 5]


@pytest.mark.parametrize("seed", range(25))
def test_f1_and_mae_match_sklearn_on_random_inputs(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    y_true = rng.integers(1, 6, n).tolist()
    y_pred = rng.integers(1, 6, n).tolist()
    ref = f1_score(y_true, y_pred, labels=LABELS, average=None, zero_division=0)
    got = per_class_f1(y_true, y_pred)
    assert [got[c] for c in LABELS] == pytest.approx(ref.tolist())
    assert macro_f1(y_true, y_pred) == pytest.approx(
        f1_score(y_true, y_pred, labels=LABELS, average="macro", zero_division=0)
    )
    assert mean_absolute_error(y_true, y_pred) == pytest.approx(sk_mae(y_true, y_pred))


@pytest.mark.parametrize("seed", range(10))
def test_unparseable_counts_as_wrong_for_f1(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    n = 40
    y_true = rng.integers(1, 6, n).tolist()
    y_pred: list[int | None] = rng.integers(1, 6, n).tolist()
    for i in rng.choice(n, 7, replace=False):
        y_pred[int(i)] = None
    # scikit-learn with a sentinel label outside 1..5 is the same rule
    sentinel = [0 if p is None else p for p in y_pred]
    ref = f1_score(y_true, sentinel, labels=LABELS, average=None, zero_division=0)
    got = f1_scores(y_true, y_pred)
    assert [got[str(c)] for c in LABELS] == pytest.approx(ref.tolist())
    assert got["macro"] == pytest.approx(float(np.mean(ref)))
    keep = [i for i, p in enumerate(y_pred) if p is not None]
    assert mean_absolute_error(y_true, y_pred) == pytest.approx(
        sk_mae([y_true[i] for i in keep], [y_pred[i] for i in keep])
    )


def test_mae_worst_rule_and_all_unparseable() -> None:
    assert mean_absolute_error([1, 3, 5], [None, None, None], unparseable="worst") == pytest.approx(
        (4 + 2 + 4) / 3
    )
    assert math.isnan(mean_absolute_error([1, 3], [None, None]))
    assert mean_absolute_error([2, 4], [2, None], unparseable="worst") == pytest.approx(1.5)


def test_f1_keys_match_published_files() -> None:
    out = f1_scores([1, 2, 3, 4, 5], [1, 2, 3, 4, 4])
    assert list(out) == ["1", "2", "3", "4", "5", "macro"]
    assert out["5"] == 0.0 and out["1"] == 1.0
    assert out["4"] == pytest.approx(2 / 3)


def test_invalid_scores_are_rejected() -> None:
    with pytest.raises(ValueError):
        macro_f1([1, 2], [1])
    with pytest.raises(ValueError):
        macro_f1([0, 2], [1, 2])
    with pytest.raises(ValueError):
        mean_absolute_error([1, 2], [6, 2])


def test_confusion_matrix_and_distribution() -> None:
    cm = confusion_matrix([1, 1, 5, 3], [3, None, 4, 3])
    assert cm["1"]["3"] == 1 and cm["1"]["unparseable"] == 1 and cm["5"]["4"] == 1
    assert sum(sum(r.values()) for r in cm.values()) == 4
    assert score_distribution([3, 4, 4, None]) == {"1": 0, "2": 0, "3": 1, "4": 2, "5": 0, "unparseable": 1}


def test_eq1_recall() -> None:
    assert argument_recall(2, 4) == 0.5
    assert argument_recall(5, 3) == 1.0  # capped at 1
    assert argument_recall(0, 0) == 0.0  # N_gold = 0
    assert argument_recall(3, 0) == 0.0


def test_eq2_additional_ratio() -> None:
    assert additional_ratio(3, 2) == 1.5  # may exceed 1
    assert additional_ratio(2, 0) == 2.0  # max(N_gold, 1)
    assert additional_ratio(0, 0) == 0.0


def test_eq3_hallucination_rate() -> None:
    assert hallucination_rate(1, 4) == 0.25
    assert hallucination_rate(0, 0) == 0.0  # N_generated = 0
    with pytest.raises(ValueError):
        hallucination_rate(2, 1)


def test_aspect_metrics_hand_made_sets() -> None:
    # gold has 3 known-aspect args; model has 4: two supported by the gold,
    # one extra grounded in the related works, one extra not grounded.
    m = aspect_metrics(3, [True, True, False, False], [None, None, True, False])
    assert m["recall"] == pytest.approx(2 / 3)
    assert m["additional_ratio"] == pytest.approx(1 / 3)
    assert m["hallucination_rate"] == pytest.approx(1 / 4)
    assert (m["n_supported"], m["n_additional"], m["n_hallucinated"]) == (2, 1, 1)
    # N_generated = 0
    m0 = aspect_metrics(2, [], [])
    assert m0["recall"] == 0.0 and m0["additional_ratio"] == 0.0 and m0["hallucination_rate"] == 0.0
    # N_gold = 0: recall 0, additional over max(0, 1) = 1
    m1 = aspect_metrics(0, [False, False], [True, True])
    assert m1["recall"] == 0.0 and m1["additional_ratio"] == 2.0 and m1["hallucination_rate"] == 0.0
    # a supported argument found ungrounded when checked still counts as hallucinated
    m2 = aspect_metrics(1, [True], [False])
    assert m2["recall"] == 1.0 and m2["hallucination_rate"] == 1.0
    with pytest.raises(ValueError):
        aspect_metrics(1, [False], [None])


# --- f1_labels="present": the released eval.py (scikit-learn's default label set) ---


def _released_f1(y_true: list[int], y_pred: list[int]) -> dict[str, float]:
    """What the released eval.py computes, keys as its JSON file has them."""
    labels = np.unique(y_true)
    per = f1_score(y_true, y_pred, average=None, labels=labels)
    out = {str(int(k)): float(v) for k, v in zip(labels, per, strict=True)}
    out["macro"] = float(f1_score(y_true, y_pred, average="macro"))
    return out


def test_present_labels_hand_computed() -> None:
    # gold [4, 4], predictions [4, 4]: only class 4 exists, so the released code says 1.0
    assert f1_scores([4, 4], [4, 4], labels="present") == {"4": 1.0, "macro": 1.0}
    # the fixed 1..5 set averages four empty classes (F1 0) with class 4 (F1 1): 1/5
    assert f1_scores([4, 4], [4, 4])["macro"] == pytest.approx(0.2)
    # a predicted class absent from the gold enters the macro average but gets no key:
    # gold [3, 4], predictions [3, 5]: F1_3 = 1, F1_4 = 0, F1_5 = 0 -> macro 1/3
    out = f1_scores([3, 4], [3, 5], labels="present")
    assert list(out) == ["3", "4", "macro"]
    assert out["macro"] == pytest.approx(1 / 3)
    assert macro_f1([3, 4], [3, 5], labels="present") == out["macro"]


@pytest.mark.parametrize("seed", range(40))
def test_present_labels_equal_sklearn_default_on_small_sets(seed: int) -> None:
    rng = np.random.default_rng(500 + seed)
    n = int(rng.integers(1, 9))
    # few distinct classes on each side, so the present set is usually smaller than 1..5
    y_true = rng.choice(rng.choice(LABELS, int(rng.integers(1, 4)), replace=False), n).tolist()
    y_pred = rng.choice(rng.choice(LABELS, int(rng.integers(1, 4)), replace=False), n).tolist()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn warns about ill-defined precision
        ref = _released_f1(y_true, y_pred)
    got = f1_scores(y_true, y_pred, labels="present")
    assert got == ref and list(got) == list(ref)  # same keys in the same order, same floats
    assert macro_f1(y_true, y_pred, labels="present") == ref["macro"]


def test_present_labels_ignore_unparseable_as_a_class() -> None:
    # an unparseable answer is a miss for its gold class and adds no class of its own
    out = f1_scores([2, 2, 5], [2, None, 5], labels="present")
    assert out == {"2": pytest.approx(2 / 3), "5": 1.0, "macro": pytest.approx((2 / 3 + 1) / 2)}
    with pytest.raises(ValueError, match="f1_labels"):
        f1_scores([1], [1], labels="all")  # type: ignore[arg-type]
