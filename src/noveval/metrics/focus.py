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
* **Published label strings** -- the paper's prompts (Figures 9-12) and confusion
  matrices (Figures 13-14) name some facets differently from Table 1: "Overall
  Motivation" is ``Problem``, "Prior work" is ``Prior Research``, "Communication
  Clarity" is ``Clarity``, "Review Process" is ``Review process``; the prompts'
  answer format ``"Target 1: Overall Motivation"`` carries a number that depends on
  the prompt, so the number is dropped and the name is mapped.
  :func:`canonical_label` applies this map (:data:`LABEL_ALIASES`); a string it does
  not know raises ``ValueError`` -- it is never dropped.
* **Labels outside the facet set** (``Review process`` target, ``Irrelevant``
  aspect, annotation failures ``None``) are left out of the distributions: Table 1
  and Figure 4 only show the 7 targets and 5 aspects.
* **Set and multiset F1** -- Section 5.1 and Table 3 define the F1 "over the set of
  annotated (target, aspect) pairs": :func:`set_prf`, true positives
  ``|H & M|``. :func:`multiset_prf` counts duplicates (``sum_x min(count_h(x),
  count_m(x))``), noveval's default. Either way the reported F1 is the mean of the
  per-paper F1 over papers.
* **Per-facet P/R/F1** -- micro-averaged over papers with the same matching
  restricted to one facet: ``P_f = sum_p min(h_pf, m_pf) / sum_p m_pf`` (counts), or
  with ``binary=True`` presence per paper (``h_pf, m_pf in {0, 1}``), the set version.
"""

from __future__ import annotations

import math
import re
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

LABEL_ALIASES: dict[str, str] = {
    "overall motivation": "Problem",
    "prior work": "Prior Research",
    "communication clarity": "Clarity",
}
"""Published label strings (lower case) -> facet names. "Overall Motivation" is target 1
of Figures 9-10 (Table 1 calls it Problem); "Prior work" is Figure 13's name for Prior
Research; "Communication Clarity" is the Clarity aspect of Figures 11-12. Case,
spacing, hyphens and underscores are ignored everywhere, so "Review Process" (Figure 13)
is ``Review process`` and "not specific" is ``Not-specific``."""

_PROMPT_PREFIX = re.compile(r"^\s*(?:final\s+)?(?:target|aspect)\s*(?:\[?\d+\]?)?\s*[:.-]\s*", re.I)

__all__ = [
    "ASPECTS",
    "DEFAULT_EPSILON",
    "EXTRA_ASPECT",
    "EXTRA_TARGET",
    "LABEL_ALIASES",
    "TARGETS",
    "canonical_label",
    "facet_counts",
    "focus_distribution",
    "kl_divergence",
    "kl_from_counts",
    "multiset_prf",
    "per_facet_prf",
    "set_prf",
]


def family_labels(family: str) -> tuple[str, ...]:
    """Every label of one family: the facets plus the annotator-only extra label.

    Args:
        family: ``"target"`` or ``"aspect"``.
    """
    if family == "target":
        return (*TARGETS, EXTRA_TARGET)
    if family == "aspect":
        return (*ASPECTS, EXTRA_ASPECT)
    raise ValueError(f"family must be 'target' or 'aspect', got {family!r}")


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[-_]", " ", text).split()).strip(" .*\"'").lower()


def canonical_label(label: str, family: str | None = None) -> str:
    """Map a label string, as published or as written by a model, to noveval's name.

    Accepts the facet names of Table 1 and the extra labels in any case and spacing,
    the published aliases of :data:`LABEL_ALIASES` ("Overall Motivation",
    "Communication Clarity", "Prior work", ...) and the prompts' answer format
    ``"Target 1: Overall Motivation"`` / ``"Aspect 3: Communication Clarity"`` (the
    number is ignored: it differs between the strength and weakness prompts).

    Args:
        label: The label string.
        family: ``"target"`` or ``"aspect"`` to accept only that family's labels;
            ``None`` accepts either.

    Returns:
        The canonical label (one of :data:`TARGETS`, :data:`ASPECTS`,
        :data:`EXTRA_TARGET`, :data:`EXTRA_ASPECT`).

    Raises:
        ValueError: The string is not a known label of the family (never dropped).
    """
    families = ("target", "aspect") if family is None else (family,)
    key = _norm(_PROMPT_PREFIX.sub("", label))
    key = _norm(LABEL_ALIASES.get(key, key))
    for fam in families:
        for name in family_labels(fam):
            if key == _norm(name):
                return name
    known = [n for fam in families for n in family_labels(fam)]
    raise ValueError(
        f"unknown {family or 'facet'} label {label!r}; expected one of {known} "
        f"or a published alias {sorted(LABEL_ALIASES)}"
    )


def facet_counts(labels: Iterable[str | None], *, facets: Sequence[str]) -> np.ndarray:
    """Count how many labels fall on each facet, in ``facets`` order.

    ``None`` (an annotation failure) and the annotator-only labels ``Review process``
    and ``Irrelevant`` are not facets and are skipped; published aliases are mapped
    (:func:`canonical_label`); any other string raises.

    Args:
        labels: One label per review point.
        facets: The facet set, e.g. :data:`TARGETS` or :data:`ASPECTS`.

    Returns:
        Integer counts of shape ``(len(facets),)``.

    Raises:
        ValueError: A label that is neither a facet, an extra label, an alias nor ``None``.
    """
    index = {f: i for i, f in enumerate(facets)}
    skip = {EXTRA_TARGET, EXTRA_ASPECT}
    counts = np.zeros(len(facets), dtype=np.int64)
    for label in labels:
        if label is None:
            continue
        name = label if label in index else canonical_label(label)
        if name in index:
            counts[index[name]] += 1
        elif name not in skip:
            raise ValueError(f"label {label!r} is not one of the facets {list(facets)}")
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


def kl_from_counts(p_counts: np.ndarray, q_counts: np.ndarray, *, epsilon: float = DEFAULT_EPSILON) -> np.ndarray:
    """:func:`kl_divergence` of facet counts, vectorised over leading axes (natural log).

    Each count vector is normalised to its focus distribution (all zeros when empty, as
    :func:`focus_distribution`), then smoothed as :func:`kl_divergence` smooths it: plus
    ``epsilon`` in every bin, renormalised (an all-zero vector with ``epsilon = 0``
    becomes uniform). Used to recompute the pooled KL on resamples of papers.

    Args:
        p_counts: ``(..., k)`` reference (human) counts.
        q_counts: ``(..., k)`` compared (model) counts.
        epsilon: Smoothing, >= 0.

    Returns:
        ``(...)`` KL(P || Q) in [0, inf]; 0 best.
    """

    def smooth(c: np.ndarray) -> np.ndarray:
        c = np.asarray(c, dtype=np.float64)
        total = c.sum(axis=-1, keepdims=True)
        d = np.divide(c, total, out=np.zeros_like(c), where=total > 0) + epsilon
        z = d.sum(axis=-1, keepdims=True)
        return np.divide(d, z, out=np.full_like(d, 1.0 / d.shape[-1]), where=z > 0)

    if epsilon < 0:
        raise ValueError("epsilon must be >= 0")
    ps, qs = smooth(p_counts), smooth(q_counts)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(ps > 0, ps * np.log(np.where(ps > 0, ps, 1.0) / qs), 0.0)
    return np.maximum(terms.sum(axis=-1), 0.0)


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


def set_prf(
    human: Iterable[Hashable], model: Iterable[Hashable]
) -> tuple[float, float, float] | None:
    """Precision, recall and F1 between the *sets* of labels of one paper.

    Section 5.1: "F1 scores over the set of annotated (target, aspect) pairs"; Table 3:
    "computed by comparing the (target, aspect) set between expert and LLM reviews".
    Duplicates collapse: two (Experiment, Validity) weaknesses are one element.
    ``P = |H & M| / |M|``, ``R = |H & M| / |H|``.

    Args:
        human: The expert labels of one paper.
        model: The model's labels of the same paper.

    Returns:
        ``(precision, recall, f1)`` in [0, 1] (1 is best), ``None`` when both sets are
        empty, all zeros when one is.
    """
    return multiset_prf(set(human), set(model))


def per_facet_prf(
    human: Mapping[Hashable, Iterable[str | None]],
    model: Mapping[Hashable, Iterable[str | None]],
    *,
    facets: Sequence[str],
    binary: bool = False,
) -> dict[str, dict[str, float]]:
    """Per-facet precision, recall and F1 over papers (Appendix A.4, Tables 7-12).

    For facet ``f`` and paper ``p`` let ``h_pf`` and ``m_pf`` be the number of expert
    and model points labelled ``f``. Micro-averaged over papers present in either
    mapping::

        P_f = sum_p min(h_pf, m_pf) / sum_p m_pf
        R_f = sum_p min(h_pf, m_pf) / sum_p h_pf
        F1_f = 2 P_f R_f / (P_f + R_f)

    A zero denominator gives 0 (scikit-learn's ``zero_division=0``). With
    ``binary=True`` the counts become presence (``min(count, 1)``): the set matching
    of :func:`set_prf`, restricted to one facet.

    Args:
        human: Group id (a paper, or a (paper, polarity) pair) -> expert labels.
        model: Group id -> model labels of that group.
        facets: The facet set to report.
        binary: Count each facet at most once per group (set matching).

    Returns:
        ``{facet: {"precision", "recall", "f1", "support_human", "support_model"}}``;
        scores in [0, 1], 1 is best.
    """
    papers = sorted(set(human) | set(model), key=repr)
    out: dict[str, dict[str, float]] = {}
    h_counts = {p: facet_counts(human.get(p, ()), facets=facets) for p in papers}
    m_counts = {p: facet_counts(model.get(p, ()), facets=facets) for p in papers}
    if binary:
        h_counts = {p: np.minimum(c, 1) for p, c in h_counts.items()}
        m_counts = {p: np.minimum(c, 1) for p, c in m_counts.items()}
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
