"""Inter-annotator agreement: pairwise span agreement and Krippendorff's alpha.

CLAIMCHECK (§3.4, §4.1, Tables 2 and 5):

* **Pairwise agreement.** For every pair of annotators, a symmetric score (``F1_edit`` or
  ``F1_exact`` from :mod:`noveval.metrics.spans`) is computed over the items both
  annotated, micro-averaged over those items; the aggregate is the mean over pairs.
  Adding the model as one more annotator gives the "with model" figure (§4.1: 45.8 ->
  43.2), and each annotator's *individual* average is the mean of the pairs it is part
  of (§4.1: GPT-4o 32.6 vs. worst human 37.1).
* **Krippendorff's alpha** (Krippendorff 1970), nominal for each binary weakness type
  and ordinal for the 1-5 agreement / subjectivity scales (Table 2, Table 5)::

      alpha = 1 - D_o / D_e = 1 - (n - 1) * sum_ck o_ck d2_ck / sum_ck n_c n_k d2_ck

  with the coincidence matrix ``o_ck = sum_u (#c-k pairs in unit u) / (m_u - 1)`` over
  units with ``m_u >= 2`` values, marginals ``n_c = sum_k o_ck``, ``n = sum_c n_c`` and
  the squared difference ``d2``: nominal ``1[c != k]``; ordinal
  ``(sum_{g=c}^{k} n_g - (n_c + n_k) / 2)^2``; interval ``(c - k)^2``.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from noveval.metrics.spans import f1_edit, f1_exact

__all__ = [
    "PairwiseAgreement",
    "krippendorff_alpha",
    "alpha_by_label",
    "pairwise_agreement",
    "agreement_with_model",
    "fleiss_kappa",
    "majority_vote",
    "majority_agreement",
    "spearman_rho",
]

Level = Literal["nominal", "ordinal", "interval"]
SpanMetric = Callable[[Sequence[Sequence[str]], Sequence[Sequence[str]]], float]


# --------------------------------------------------------------------------- alpha
def krippendorff_alpha(
    reliability_data: Sequence[Sequence[float]] | np.ndarray,
    *,
    level: Level = "nominal",
    value_domain: Sequence[float] | None = None,
) -> float:
    """Krippendorff's alpha for a coders x units matrix with missing values.

    Args:
        reliability_data: Array of shape ``(n_coders, n_units)``; ``nan`` (or ``None``)
            marks a missing rating. Values must be numeric (map categories to numbers).
        level: ``"nominal"``, ``"ordinal"`` or ``"interval"`` difference function.
        value_domain: The ordered set of possible values; defaults to the sorted
            distinct observed values (only matters for which values exist, since
            unobserved values have zero marginal).

    Returns:
        Alpha in ``[-1, 1]`` (it can fall below ``-1`` in degenerate cases); ``1`` is
        perfect agreement, ``0`` chance agreement. ``nan`` when fewer than two pairable
        values exist or the expected disagreement is zero (a single value observed).
    """
    data = np.asarray(reliability_data, dtype=float)
    if data.ndim != 2:
        raise ValueError("reliability_data must be 2-D (coders x units)")
    observed = np.unique(data[~np.isnan(data)])
    values = np.array(sorted(value_domain), dtype=float) if value_domain is not None else observed
    if not set(observed.tolist()) <= set(values.tolist()):
        raise ValueError("reliability_data holds values outside value_domain")
    if len(values) == 0:
        return float("nan")
    index = {v: i for i, v in enumerate(values.tolist())}
    n_units = data.shape[1]
    counts = np.zeros((n_units, len(values)))
    for coder_row in data:
        for u, v in enumerate(coder_row):
            if not np.isnan(v):
                counts[u, index[float(v)]] += 1
    m_u = counts.sum(axis=1)
    counts = counts[m_u >= 2]
    m_u = m_u[m_u >= 2]
    if len(m_u) == 0:
        return float("nan")
    coincidence = np.zeros((len(values), len(values)))
    for c_u, m in zip(counts, m_u, strict=True):
        coincidence += (np.outer(c_u, c_u) - np.diag(c_u)) / (m - 1)
    n_c = coincidence.sum(axis=0)
    n = n_c.sum()
    delta2 = _delta2(values, n_c, level)
    expected = (np.outer(n_c, n_c) * delta2).sum()
    if n <= 1 or expected == 0:
        return float("nan")
    return float(1.0 - (n - 1) * (coincidence * delta2).sum() / expected)


def _delta2(values: np.ndarray, n_c: np.ndarray, level: Level) -> np.ndarray:
    k = len(values)
    if level == "nominal":
        return 1.0 - np.eye(k)
    if level == "interval":
        return (values[:, None] - values[None, :]) ** 2
    if level == "ordinal":
        cum = np.concatenate([[0.0], np.cumsum(n_c)])
        d = np.zeros((k, k))
        for c in range(k):
            for e in range(c, k):
                between = cum[e + 1] - cum[c]  # sum_{g=c}^{e} n_g
                d[c, e] = d[e, c] = (between - (n_c[c] + n_c[e]) / 2.0) ** 2
        return d
    raise ValueError(f"unknown level {level!r}; use nominal, ordinal or interval")


def alpha_by_label(
    labels: Mapping[str, Mapping[str, Mapping[str, float | bool | None]]],
    levels: Mapping[str, Level],
) -> dict[str, float]:
    """Krippendorff's alpha for each label over annotators x items (Tables 2 and 5).

    Args:
        labels: ``{annotator: {item_id: {label: value}}}``. Booleans count as 0/1
            (nominal binary type labels); ``None`` or an absent item is missing.
        levels: ``{label: level}``, e.g. ``{"agreement": "ordinal", "novelty": "nominal"}``.

    Returns:
        ``{label: alpha}`` in the order of ``levels`` (``nan`` where undefined); best
        value ``1``.
    """
    annotators = list(labels)
    items = sorted({i for per in labels.values() for i in per})
    out: dict[str, float] = {}
    for name, level in levels.items():
        matrix = np.full((len(annotators), len(items)), np.nan)
        for a, ann in enumerate(annotators):
            for u, item in enumerate(items):
                value = labels[ann].get(item, {}).get(name)
                if value is not None:
                    matrix[a, u] = float(value)
        out[name] = krippendorff_alpha(matrix, level=level)
    return out


# ------------------------------------------------------------------ pairwise spans
@dataclass
class PairwiseAgreement:
    """Pairwise agreement between annotators (CLAIMCHECK §3.4, §4.1)."""

    mean: float
    """Mean of the pair scores (``nan`` when no pair shares an item)."""
    pairs: dict[tuple[str, str], float] = field(default_factory=dict)
    """Score of each annotator pair (names sorted within a pair)."""
    per_annotator: dict[str, float] = field(default_factory=dict)
    """Each annotator's individual average: mean over the pairs it belongs to."""
    shared_items: dict[tuple[str, str], int] = field(default_factory=dict)
    """How many items each pair has in common."""

    def to_dict(self) -> dict:
        """JSON-friendly form (pair keys joined by ``|``)."""
        return {
            "mean": self.mean,
            "pairs": {f"{a}|{b}": v for (a, b), v in self.pairs.items()},
            "per_annotator": dict(self.per_annotator),
            "shared_items": {f"{a}|{b}": v for (a, b), v in self.shared_items.items()},
        }


def _metric(metric: str | SpanMetric) -> SpanMetric:
    if callable(metric):
        return metric
    return {"edit": f1_edit, "exact": f1_exact}[metric]


def pairwise_agreement(
    annotations: Mapping[str, Mapping[str, Sequence[str]]],
    *,
    metric: Literal["edit", "exact"] | SpanMetric = "edit",
) -> PairwiseAgreement:
    """Average pairwise span agreement over annotator pairs (§3.4).

    For each pair, the span metric is micro-averaged over the items both annotated
    (an annotator that saw an item but selected nothing must be given an empty list
    for it; an absent item means "not annotated").

    Args:
        annotations: ``{annotator: {item_id: [span text, ...]}}``.
        metric: ``"edit"`` (:func:`~noveval.metrics.spans.f1_edit`), ``"exact"``
            (:func:`~noveval.metrics.spans.f1_exact`) or a callable with their
            signature.

    Returns:
        :class:`PairwiseAgreement`; scores in ``[0, 1]``, best value ``1``.
    """
    fn = _metric(metric)
    pairs: dict[tuple[str, str], float] = {}
    shared: dict[tuple[str, str], int] = {}
    for a, b in itertools.combinations(sorted(annotations), 2):
        items = sorted(set(annotations[a]) & set(annotations[b]))
        if not items:
            continue
        pairs[(a, b)] = fn([list(annotations[a][i]) for i in items],
                           [list(annotations[b][i]) for i in items])
        shared[(a, b)] = len(items)
    per: dict[str, float] = {}
    for name in sorted(annotations):
        mine = [v for k, v in pairs.items() if name in k]
        per[name] = float(np.mean(mine)) if mine else float("nan")
    mean = float(np.mean(list(pairs.values()))) if pairs else float("nan")
    return PairwiseAgreement(mean, pairs, per, shared)


def agreement_with_model(
    humans: Mapping[str, Mapping[str, Sequence[str]]],
    model: Mapping[str, Sequence[str]],
    *,
    model_name: str = "model",
    metric: Literal["edit", "exact"] | SpanMetric = "edit",
) -> dict[str, PairwiseAgreement | float]:
    """Pairwise agreement with and without the model as an extra annotator (§4.1).

    Args:
        humans: ``{annotator: {item_id: [span, ...]}}``.
        model: ``{item_id: [span, ...]}`` predicted by the model.
        model_name: Name the model takes among the annotators (must be new).
        metric: As in :func:`pairwise_agreement`.

    Returns:
        ``{"humans_only": PairwiseAgreement, "with_model": PairwiseAgreement,
        "model_individual": float}``; all in ``[0, 1]``, best ``1``.
    """
    if model_name in humans:
        raise ValueError(f"model_name {model_name!r} collides with a human annotator")
    humans_only = pairwise_agreement(humans, metric=metric)
    with_model = pairwise_agreement({**humans, model_name: model}, metric=metric)
    return {
        "humans_only": humans_only,
        "with_model": with_model,
        "model_individual": with_model.per_annotator[model_name],
    }


# --------------------------------------------------------------------------------
# NovBench agreement helpers (Fleiss' kappa, majority vote) belong below this line.


# --- NovBench human agreement (Wu et al., Appendix D) ------------------------------


def fleiss_kappa(ratings: Sequence[Sequence[Hashable]]) -> float:
    """Fleiss' kappa (Fleiss, 1971) for a fixed number of raters per item.

    NovBench Appendix D reports kappa = 0.72 among four annotators' A/B preferences.

    Args:
        ratings: ``ratings[i][j]`` is rater j's category for item i. Every item must
            have the same number (>= 2) of ratings; categories are any hashables.

    Returns:
        kappa in [-1, 1], higher is better (1 = perfect agreement, 0 = chance level).
        NaN when chance agreement is 1 (one category used throughout).

    Raises:
        ValueError: no items, fewer than two raters, or ragged rows.
    """
    if len(ratings) == 0:
        raise ValueError("fleiss_kappa needs at least one item")
    n_raters = len(ratings[0])
    if n_raters < 2:
        raise ValueError("fleiss_kappa needs at least two raters per item")
    if any(len(r) != n_raters for r in ratings):
        raise ValueError("every item must have the same number of ratings")
    cats = sorted({c for row in ratings for c in row}, key=repr)
    index = {c: k for k, c in enumerate(cats)}
    table = np.zeros((len(ratings), len(cats)), dtype=float)
    for i, row in enumerate(ratings):
        for c in row:
            table[i, index[c]] += 1
    p_j = table.sum(axis=0) / (table.shape[0] * n_raters)
    p_i = (np.square(table).sum(axis=1) - n_raters) / (n_raters * (n_raters - 1))
    p_e = float(np.square(p_j).sum())
    if math.isclose(p_e, 1.0):
        return math.nan
    return float((p_i.mean() - p_e) / (1.0 - p_e))


def majority_vote(labels: Sequence[Hashable]) -> Hashable | None:
    """Strict-majority label of one item (NovBench Appendix D).

    Returns:
        The label chosen by more than half of the annotators, or ``None`` when no
        label has a strict majority (such items are excluded from agreement).
    """
    if not labels:
        return None
    label, count = Counter(labels).most_common(1)[0]
    return label if count * 2 > len(labels) else None


def majority_agreement(
    human: Sequence[Sequence[Hashable]], metric: Sequence[Hashable]
) -> tuple[float, int]:
    """Agreement of a metric with the human majority (NovBench Appendix D, Eq. 8).

    ``Agreement = (1/|D|) sum_{i in D} 1(H_i = M_i)``, ``H_i`` the strict-majority human
    label, ``D`` the items that have one.

    Args:
        human: Per item, the list of annotator labels.
        metric: Per item, the metric's label.

    Returns:
        ``(agreement, |D|)``; agreement in [0, 1], higher is better (best 1). NaN when
        no item has a strict majority.

    Raises:
        ValueError: ``human`` and ``metric`` differ in length.
    """
    if len(human) != len(metric):
        raise ValueError(f"{len(human)} human items but {len(metric)} metric labels")
    hits = n = 0
    for labels, m in zip(human, metric, strict=True):
        h = majority_vote(labels)
        if h is None:
            continue
        n += 1
        hits += int(h == m)
    return (hits / n if n else math.nan), n


def _average_ranks(x: np.ndarray) -> np.ndarray:
    order = np.argsort(x, kind="mergesort")
    ranks = np.empty(len(x), dtype=float)
    sx = x[order]
    i = 0
    while i < len(x):
        j = i
        while j + 1 < len(x) and sx[j + 1] == sx[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return ranks


def spearman_rho(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """Spearman rank correlation (average ranks for ties) and its p-value.

    NovBench Appendix D correlates metric and human preferences (rho = 0.61).

    Args:
        x: First variable.
        y: Second variable, same length (>= 3).

    Returns:
        ``(rho, p_value)``; rho in [-1, 1], higher means stronger agreement (best 1).
        Two-sided p-value from the t approximation with n - 2 degrees of freedom.
        ``(nan, nan)`` when either variable is constant.

    Raises:
        ValueError: lengths differ or fewer than 3 pairs.
    """
    a = np.asarray(x, dtype=float)
    b = np.asarray(y, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError("x and y must be 1-D and of the same length")
    n = len(a)
    if n < 3:
        raise ValueError("spearman_rho needs at least 3 pairs")
    ra, rb = _average_ranks(a), _average_ranks(b)
    ra -= ra.mean()
    rb -= rb.mean()
    denom = math.sqrt(float((ra**2).sum() * (rb**2).sum()))
    if denom == 0.0:
        return math.nan, math.nan
    rho = float(np.clip((ra * rb).sum() / denom, -1.0, 1.0))
    if abs(rho) == 1.0:
        return rho, 0.0
    from scipy.stats import t as t_dist

    t = rho * math.sqrt((n - 2) / (1.0 - rho**2))
    return rho, float(2 * t_dist.sf(abs(t), n - 2))
