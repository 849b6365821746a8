"""RINoBench metrics (Schopf & Färber, 2026, "Is this Idea Novel?"), pure functions.

Novelty-score metrics (Section 4.2.1): per-class F1 for the rubric classes 1..5,
macro-averaged F1 (the primary metric) and the mean absolute error (MAE).
Justification metrics (Section 4.2.2): Recall (Eq. 1), Additional Ratio (Eq. 2)
and Hallucination Rate (Eq. 3), each computed per item for known-aspect (KA) and
novelty-aspect (NA) arguments from the judge's per-argument verdicts.

Unparseable predictions. A prediction whose score could not be read is passed as
``None``. For F1 it is a wrong answer: it is a false negative for the gold class and
a false positive for no class (equivalent to scikit-learn with an extra label outside
``labels``). For MAE the default rule ``unparseable="exclude"`` averages over the
parsed predictions only and the count of unparseable ones is reported beside it;
``unparseable="worst"`` instead charges each unparseable prediction the largest
possible error for its gold score, ``max(g - 1, 5 - g)``.

Labels (``f1_labels``). ``"fixed"`` (default) computes F1 over the rubric classes 1..5
(Table 3 reports all five columns) with ``zero_division=0``: a class that is neither in
the gold nor predicted gets F1 = 0 and still counts in the macro average. ``"present"``
reproduces the authors' released ``eval.py``: the macro average runs over the classes
that occur in the gold or in the (parsed) predictions, as scikit-learn's ``f1_score``
does by default, and per-class F1 is reported only for the classes present in the gold.
On the full test set (all five classes in the gold) the two agree; on a subset they
differ (gold ``[4, 4]``, predictions ``[4, 4]``: fixed 0.2, present 1.0). An unparseable
prediction never adds a class to the ``present`` set; it stays a wrong answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

__all__ = [
    "SCORE_LABELS",
    "F1_LABEL_MODES",
    "f1_labels",
    "per_class_f1",
    "macro_f1",
    "f1_scores",
    "mean_absolute_error",
    "confusion_matrix",
    "score_distribution",
    "argument_recall",
    "additional_ratio",
    "hallucination_rate",
    "aspect_metrics",
]

SCORE_LABELS: tuple[int, ...] = (1, 2, 3, 4, 5)
"""The rubric classes of Table 1 (1 = not novel ... 5 = highly novel)."""

Score = int | None

F1Labels = Literal["fixed", "present"]
F1_LABEL_MODES: tuple[str, ...] = ("fixed", "present")
"""Values of ``f1_labels``: the rubric classes 1..5, or the classes present (released code)."""


def _check_scores(y_true: Sequence[int], y_pred: Sequence[Score]) -> None:
    if len(y_true) != len(y_pred):
        raise ValueError(f"y_true has {len(y_true)} items but y_pred has {len(y_pred)}")
    for g in y_true:
        if g not in SCORE_LABELS:
            raise ValueError(f"gold score {g!r} is not one of {SCORE_LABELS}")
    for p in y_pred:
        if p is not None and p not in SCORE_LABELS:
            raise ValueError(f"predicted score {p!r} is neither None nor one of {SCORE_LABELS}")


def per_class_f1(
    y_true: Sequence[int], y_pred: Sequence[Score], *, labels: Sequence[int] = SCORE_LABELS
) -> dict[int, float]:
    """F1 of each rubric class, one-vs-rest (Section 4.2.1, "F1").

    Args:
        y_true: Gold scores in 1..5.
        y_pred: Predicted scores in 1..5, ``None`` for an unparseable answer (always wrong).
        labels: Classes to report.

    Returns:
        ``{label: f1}``; each value in [0, 1], best 1. A class with no gold and no
        predicted instance gets 0 (``zero_division=0``).
    """
    _check_scores(y_true, y_pred)
    out: dict[int, float] = {}
    for c in labels:
        tp = sum(1 for g, p in zip(y_true, y_pred, strict=True) if g == c and p == c)
        fp = sum(1 for g, p in zip(y_true, y_pred, strict=True) if g != c and p == c)
        fn = sum(1 for g, p in zip(y_true, y_pred, strict=True) if g == c and p != c)
        denom = 2 * tp + fp + fn
        out[int(c)] = 0.0 if denom == 0 else 2 * tp / denom
    return out


def macro_f1(
    y_true: Sequence[int],
    y_pred: Sequence[Score],
    *,
    labels: Sequence[int] | F1Labels = SCORE_LABELS,
) -> float:
    """Macro-averaged F1 over the rubric classes, the primary metric (Section 4.2.1).

    Each class weighs the same regardless of its frequency. Range [0, 1], best 1.

    Args:
        y_true: Gold scores in 1..5.
        y_pred: Predicted scores, ``None`` when unparseable.
        labels: The classes to average over, or a mode of :func:`f1_labels`
            (``"fixed"`` = 1..5, ``"present"`` = classes in gold or predictions).
    """
    if isinstance(labels, str):
        labels = f1_labels(y_true, y_pred, mode=labels)[0]  # type: ignore[arg-type]
    f1 = per_class_f1(y_true, y_pred, labels=labels)
    return float(np.mean(list(f1.values()))) if f1 else 0.0


def f1_labels(y_true: Sequence[int], y_pred: Sequence[Score], *, mode: F1Labels = "fixed") -> tuple[list[int], list[int]]:
    """The classes F1 is averaged over and the classes reported one by one.

    Args:
        y_true: Gold scores in 1..5.
        y_pred: Predicted scores, ``None`` when unparseable.
        mode: ``"fixed"``: 1..5 for both. ``"present"`` (released ``eval.py``): the
            sorted classes in the gold or the parsed predictions for the macro average
            (scikit-learn's default label set), the sorted gold classes for per-class F1.

    Returns:
        ``(macro_labels, reported_labels)``.

    Raises:
        ValueError: unknown ``mode``.
    """
    if mode == "fixed":
        return list(SCORE_LABELS), list(SCORE_LABELS)
    if mode != "present":
        raise ValueError(f"f1_labels must be one of {F1_LABEL_MODES}, got {mode!r}")
    gold = sorted({int(g) for g in y_true})
    both = sorted(set(gold) | {int(p) for p in y_pred if p is not None})
    return both, gold


def f1_scores(y_true: Sequence[int], y_pred: Sequence[Score], *, labels: F1Labels = "fixed") -> dict[str, float]:
    """Per-class and macro F1 keyed as in the published evaluation files.

    Args:
        y_true: Gold scores in 1..5.
        y_pred: Predicted scores, ``None`` when unparseable (always wrong).
        labels: ``"fixed"`` (classes 1..5) or ``"present"`` (the released ``eval.py``:
            macro over the classes in gold or predictions, per-class keys only for the
            gold classes); see :func:`f1_labels`.

    Returns:
        ``{"1": f1_1, ..., "5": f1_5, "macro": macro_f1}`` (``"present"``: only the gold
        classes' keys, then ``"macro"``), each in [0, 1], best 1.
    """
    _check_scores(y_true, y_pred)
    macro_labels, reported = f1_labels(y_true, y_pred, mode=labels)
    per = per_class_f1(y_true, y_pred, labels=sorted(set(macro_labels) | set(reported)))
    out = {str(k): per[k] for k in reported}
    out["macro"] = float(np.mean([per[k] for k in macro_labels])) if macro_labels else 0.0
    return out


def mean_absolute_error(
    y_true: Sequence[int],
    y_pred: Sequence[Score],
    *,
    unparseable: Literal["exclude", "worst"] = "exclude",
) -> float:
    """Mean absolute error between predicted and gold scores (Section 4.2.1, "MAE").

    Args:
        y_true: Gold scores in 1..5.
        y_pred: Predicted scores, ``None`` when unparseable.
        unparseable: ``"exclude"`` (default) averages over parsed predictions only;
            ``"worst"`` charges an unparseable prediction ``max(g - 1, 5 - g)``.

    Returns:
        MAE in [0, 4], best 0; ``nan`` when no prediction is left to average.
    """
    _check_scores(y_true, y_pred)
    errs: list[float] = []
    for g, p in zip(y_true, y_pred, strict=True):
        if p is None:
            if unparseable == "worst":
                errs.append(float(max(g - 1, 5 - g)))
            elif unparseable != "exclude":
                raise ValueError(f"unparseable must be 'exclude' or 'worst', got {unparseable!r}")
        else:
            errs.append(float(abs(g - p)))
    return float(np.mean(errs)) if errs else float("nan")


def confusion_matrix(y_true: Sequence[int], y_pred: Sequence[Score]) -> dict[str, dict[str, int]]:
    """Gold x predicted counts, with an extra ``"unparseable"`` prediction column.

    Returns:
        ``{gold: {pred: count}}`` with gold in ``"1".."5"`` and pred in
        ``"1".."5", "unparseable"``. Counts sum to ``len(y_true)``.
    """
    _check_scores(y_true, y_pred)
    cols = [str(c) for c in SCORE_LABELS] + ["unparseable"]
    m = {str(g): dict.fromkeys(cols, 0) for g in SCORE_LABELS}
    for g, p in zip(y_true, y_pred, strict=True):
        m[str(g)]["unparseable" if p is None else str(p)] += 1
    return m


def score_distribution(scores: Sequence[Score]) -> dict[str, int]:
    """How often each score was given (predicted or gold), unparseable counted apart.

    Makes visible the Section 5 finding that models avoid the extremes 1 and 5.

    Returns:
        ``{"1": n1, ..., "5": n5, "unparseable": n}``.
    """
    out = {str(c): 0 for c in SCORE_LABELS}
    out["unparseable"] = 0
    for s in scores:
        if s is None:
            out["unparseable"] += 1
        elif s in SCORE_LABELS:
            out[str(s)] += 1
        else:
            raise ValueError(f"score {s!r} is neither None nor one of {SCORE_LABELS}")
    return out


def _nonneg(name: str, value: int) -> None:
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value}")


def argument_recall(n_supported: int, n_gold: int) -> float:
    """Recall of gold arguments, Eq. 1 (Known / Novelty Aspects Recall, Section 4.2.2).

    ``min(1, N_supp / N_gold)`` if ``N_gold > 0`` else 0, where ``N_supp`` counts the
    model's arguments of one kind (KA or NA) that the gold justification supports and
    ``N_gold`` the gold arguments of that kind.

    Returns:
        Value in [0, 1], best 1. ``N_gold = 0`` gives 0 (as the paper defines it).
    """
    _nonneg("n_supported", n_supported)
    _nonneg("n_gold", n_gold)
    if n_gold == 0:
        return 0.0
    return min(1.0, n_supported / n_gold)


def additional_ratio(n_additional: int, n_gold: int) -> float:
    """Additional Ratio, Eq. 2: ``N_additional / max(N_gold, 1)`` (Section 4.2.2).

    ``N_additional`` counts the model's arguments of one kind that the gold does not
    support but that are grounded (KA: in the related works; NA: in the idea).

    Returns:
        Value in [0, inf); not a better/worse score but a measure of how much the model
        adds beyond the gold (Section 5 reads values > 1 as more elaborate justifications).
    """
    _nonneg("n_additional", n_additional)
    _nonneg("n_gold", n_gold)
    return n_additional / max(n_gold, 1)


def hallucination_rate(n_hallucinated: int, n_generated: int) -> float:
    """Hallucination Rate, Eq. 3 (Section 4.2.2).

    ``N_hallucinated / N_generated`` if ``N_generated > 0`` else 0, where
    ``N_generated`` counts the model's arguments of one kind and ``N_hallucinated``
    those not grounded (KA: in any related work; NA: in the research idea).

    Returns:
        Value in [0, 1], best 0.
    """
    _nonneg("n_hallucinated", n_hallucinated)
    _nonneg("n_generated", n_generated)
    if n_hallucinated > n_generated:
        raise ValueError("n_hallucinated cannot exceed n_generated")
    if n_generated == 0:
        return 0.0
    return n_hallucinated / n_generated


def aspect_metrics(
    n_gold: int, supported: Sequence[bool], grounded: Sequence[bool | None]
) -> dict[str, float | int]:
    """Eqs. 1-3 for one item and one argument kind from per-argument verdicts.

    Args:
        n_gold: Number of gold arguments of this kind.
        supported: For each generated argument, whether the gold justification supports it.
        grounded: For each generated argument, whether it is grounded in the context
            (KA: related works; NA: research idea). ``None`` means "not checked", which
            is only allowed for gold-supported arguments: those count as grounded,
            because the gold justifications were filtered to be fully grounded
            (Section 4.1.1, quality filter), so support by the gold implies grounding.

    Returns:
        ``recall`` (Eq. 1), ``additional_ratio`` (Eq. 2), ``hallucination_rate``
        (Eq. 3) and the counts ``n_gold, n_generated, n_supported, n_additional,
        n_hallucinated``.
    """
    if len(supported) != len(grounded):
        raise ValueError("supported and grounded must have one verdict per generated argument")
    n_supp = n_add = n_hall = 0
    for s, g in zip(supported, grounded, strict=True):
        if s:
            n_supp += 1
            if g is False:
                n_hall += 1
        else:
            if g is None:
                raise ValueError("an argument the gold does not support needs a grounding verdict")
            if g:
                n_add += 1
            else:
                n_hall += 1
    n_gen = len(supported)
    return {
        "recall": argument_recall(n_supp, n_gold),
        "additional_ratio": additional_ratio(n_add, n_gold),
        "hallucination_rate": hallucination_rate(n_hall, n_gen),
        "n_gold": n_gold,
        "n_generated": n_gen,
        "n_supported": n_supp,
        "n_additional": n_add,
        "n_hallucinated": n_hall,
    }
