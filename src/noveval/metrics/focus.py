"""Focus-level metrics of "Mind the Blind Spots" (Shin et al.), pure functions.

The paper (``shared/seeds/002_351465a7da69f6e9.txt``) defines a review's *focus*
as the normalised distribution of its strength and weakness points over a fixed
set of facets (Section 2, Section 4.3): four distributions, strength/weakness x
target/aspect. Model and human focus are compared with the KL divergence and the
F1 over each paper's (target, aspect) labels (Section 5.1, Table 3), and with
per-facet precision/recall/F1 (Appendix A.4, Tables 7-12).

Choices the paper leaves open, fixed here and stated once:

* **KL direction** -- ``KL(human || model)``: the human (expert) distribution is
  the reference ``P``, the model's is the approximation ``Q``. A facet the experts
  use and the model neglects (a "blind spot") costs the most.
* **Log base** -- natural log (nats), as ``scipy.stats.entropy``'s default.
* **Smoothing of empty facets** -- ``epsilon`` (default ``1e-3``) is added to every
  bin of both distributions, which are then renormalised, so a facet with zero
  mass gives a large but finite divergence. ``epsilon=0`` gives the raw KL
  (``inf`` when the model leaves a human facet empty).
* **Labels outside the facet set** (``Review process`` target, ``Irrelevant``
  aspect, annotation failures) are left out of the distributions: Table 1 and
  Figure 4 only show the 7 targets and 5 aspects.
* **Multiset F1** -- per paper, the true positives of two multisets are
  ``sum_x min(count_h(x), count_m(x))``; the paper's reported F1 is the mean of the
  per-paper F1 over papers.
* **Per-facet P/R/F1** -- micro-averaged over papers with the same multiset
  matching restricted to one facet: ``P_f = sum_p min(h_pf, m_pf) / sum_p m_pf``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence

import numpy as np

TARGETS: tuple[str, ...] = (
    "Problem",
    "Prior Research",
    "Method",
    "Theory",
    "Experiment",
    "Conclusion",
    "Paper",
)
"""The seven target facets (Table 1, Appendix A.2.2)."""

ASPECTS: tuple[str, ...] = ("Impact", "Novelty", "Clarity", "Validity", "Not-specific")
"""The five aspect facets (Table 1, Appendix A.2.2)."""

EXTRA_TARGET = "Review process"
"""Annotator-only target for points about the rebuttal (Figures 9-10); not a facet."""

EXTRA_ASPECT = "Irrelevant"
"""Annotator-only aspect for points that do not evaluate the paper (Figures 11-12)."""

DEFAULT_EPSILON = 1e-3

__all__ = [
    "ASPECTS",
    "DEFAULT_EPSILON",
    "EXTRA_ASPECT",
    "EXTRA_TARGET",
    "TARGETS",
    "facet_counts",
    "focus_distribution",
    "kl_divergence",
    "multiset_prf",
    "per_facet_prf",
]


def facet_counts(labels: Iterable[str | None], *, facets: Sequence[str]) -> np.ndarray:
    """Count how many labels fall on each facet, in ``facets`` order.

    Labels not in ``facets`` (``None``, ``Irrelevant``, ...) are ignored.

    Args:
        labels: One label per review point.
        facets: The facet set, e.g. :data:`TARGETS` or :data:`ASPECTS`.

    Returns:
        Integer counts of shape ``(len(facets),)``.
    """
    index = {f: i for i, f in enumerate(facets)}
    counts = np.zeros(len(facets), dtype=np.int64)
    for label in labels:
        if label in index:
            counts[index[label]] += 1
    return counts


def focus_distribution(labels: Iterable[str | None], *, facets: Sequence[str]) -> np.ndarray:
    """Focus distribution F = (f_1, ..., f_N): relative frequency of each facet.

    Section 2 and Section 4.3: the normalised frequency of the annotated facets over
    all points of one polarity (strengths for F+, weaknesses for F-) pooled over
    the paper corpus.

    Args:
        labels: One label per review point (all papers pooled).
        facets: The facet set; labels outside it are ignored.

    Returns:
        Float vector in [0, 1] summing to 1, or all zeros when no label falls on a
        facet (an empty focus; :func:`kl_divergence` smooths it).
    """
    counts = facet_counts(labels, facets=facets).astype(np.float64)
    total = counts.sum()
    return counts / total if total > 0 else counts


def _smooth(p: np.ndarray, epsilon: float) -> np.ndarray:
    p = np.asarray(p, dtype=np.float64)
    if p.ndim != 1 or p.size == 0:
        raise ValueError("a distribution must be a non-empty 1-D vector")
    if np.any(p < 0) or not np.all(np.isfinite(p)):
        raise ValueError("a distribution must be finite and non-negative")
    p = p + epsilon
    total = p.sum()
    if total <= 0:
        return np.full(p.shape, 1.0 / p.size)
    return p / total


def kl_divergence(
    p: Sequence[float] | np.ndarray,
    q: Sequence[float] | np.ndarray,
    *,
    epsilon: float = DEFAULT_EPSILON,
    base: float | None = None,
) -> float:
    """KL(P || Q) = sum_i p_i log(p_i / q_i) after additive smoothing.

    Section 5.1 ("we measured Kullback-Leibler divergence between the focus
    distributions of the models and human experts"). Pass the human distribution
    as ``p`` and the model's as ``q`` (the convention of this package).

    Args:
        p: Reference distribution (human experts). Counts are accepted too: both
            vectors are normalised.
        q: Compared distribution (model).
        epsilon: Added to every bin of both vectors before renormalising. With 0,
            an empty ``q`` bin under a non-empty ``p`` bin gives ``inf``; an
            all-zero vector becomes uniform.
        base: Logarithm base; ``None`` means natural log (nats).

    Returns:
        A value in [0, inf); 0 is best (identical focus).
    """
    if epsilon < 0:
        raise ValueError("epsilon must be >= 0")
    ps, qs = _smooth(np.asarray(p), epsilon), _smooth(np.asarray(q), epsilon)
    if ps.shape != qs.shape:
        raise ValueError(f"shape mismatch: {ps.shape} vs {qs.shape}")
    total = 0.0
    for pi, qi in zip(ps, qs, strict=True):
        if pi == 0:
            continue
        if qi == 0:
            return math.inf
        total += pi * math.log(pi / qi)
    if base is not None:
        total /= math.log(base)
    return max(total, 0.0)


def multiset_prf(
    human: Iterable[Hashable], model: Iterable[Hashable]
) -> tuple[float, float, float] | None:
    """Precision, recall and F1 between two multisets of labels of one paper.

    Section 5.1 / Table 3: F1 "over the set of annotated (target, aspect) pairs" of
    a paper's expert and model review points; duplicates count (a review with two
    (Experiment, Validity) weaknesses can match two such expert weaknesses).
    True positives are ``sum_x min(count_human(x), count_model(x))``.

    Args:
        human: The expert labels of one paper, e.g. ``("Method", "Novelty")`` tuples.
        model: The model's labels of the same paper.

    Returns:
        ``(precision, recall, f1)``, each in [0, 1] (1 is best), or ``None`` when both
        multisets are empty (undefined; leave the paper out of the mean). When only
        one is empty all three are 0.
    """
    h, m = Counter(human), Counter(model)
    nh, nm = sum(h.values()), sum(m.values())
    if nh == 0 and nm == 0:
        return None
    tp = sum(min(c, m[x]) for x, c in h.items())
    precision = tp / nm if nm else 0.0
    recall = tp / nh if nh else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return precision, recall, f1


def per_facet_prf(
    human: Mapping[str, Iterable[str | None]],
    model: Mapping[str, Iterable[str | None]],
    *,
    facets: Sequence[str],
) -> dict[str, dict[str, float]]:
    """Per-facet precision, recall and F1 over papers (Appendix A.4, Tables 7-12).

    For facet ``f`` and paper ``p`` let ``h_pf`` and ``m_pf`` be the number of expert
    and model points labelled ``f``. Micro-averaged over papers present in either
    mapping::

        P_f = sum_p min(h_pf, m_pf) / sum_p m_pf
        R_f = sum_p min(h_pf, m_pf) / sum_p h_pf
        F1_f = 2 P_f R_f / (P_f + R_f)

    A zero denominator gives 0 (scikit-learn's ``zero_division=0``).

    Args:
        human: Paper id -> expert labels of that paper (one facet family).
        model: Paper id -> model labels of that paper.
        facets: The facet set to report.

    Returns:
        ``{facet: {"precision", "recall", "f1", "support_human", "support_model"}}``;
        scores in [0, 1], 1 is best.
    """
    papers = sorted(set(human) | set(model))
    out: dict[str, dict[str, float]] = {}
    h_counts = {p: facet_counts(human.get(p, ()), facets=facets) for p in papers}
    m_counts = {p: facet_counts(model.get(p, ()), facets=facets) for p in papers}
    for i, facet in enumerate(facets):
        tp = sum(int(min(h_counts[p][i], m_counts[p][i])) for p in papers)
        nh = sum(int(h_counts[p][i]) for p in papers)
        nm = sum(int(m_counts[p][i]) for p in papers)
        precision = tp / nm if nm else 0.0
        recall = tp / nh if nh else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
        out[facet] = {
            "precision": precision,
            "recall": recall,
            "f1": f1,
            "support_human": float(nh),
            "support_model": float(nm),
        }
    return out
