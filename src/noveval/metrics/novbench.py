"""NovBench metrics: Relevance, Correctness, Coverage and Clarity.

Pure functions (numbers and strings in, numbers out) implementing Section 3.2 of
Wu et al., *NovBench: Evaluating Large Language Models on Academic Paper Novelty
Assessment* (Eqs. 1-7). Embeddings, perplexities and model calls are computed
elsewhere (``noveval.benchmarks.novbench.scoring``) and passed in.

Two Clarity variants exist (DESIGN.md §1, "faithful first"):

* ``variant="paper"`` (default): Eq. 7, ``(KC + LS + FS) / 3`` with token-level
  keyword matching (Eq. 4 and the paragraph after it). **This is the variant to
  compare with the paper's Table 2**: the authors' own result files
  (``rebuttal_result/result_dict_coling.json`` in njust-winchy/llm4novelty) give the
  COLING 2020 gold a Clarity of 0.5327, which the three-term formula fits (its ceiling
  is ``(2 + FS) / 3``, and every Clarity in Table 2 is ≤ 0.6682), while the released
  ``comment_evaluate.py`` formula gives 0.7996 on the same gold.
* ``variant="reference"``: what the authors' released ``comment_evaluate.py``
  computes, ``0.5 * KC + 0.5 * LS`` with case-insensitive *substring* keyword matching
  and no fluency term. Their published numbers were not produced by it.

Conventions shared by every function here, following the released code:

* Evaluation items shorter than 10 characters or equal to "none" (case-insensitive,
  after stripping) are dropped before scoring (:func:`filter_items`).
* An empty model output (no items left after filtering) scores 0 on every metric.
* Token length for the Length Score is the number of whitespace-separated tokens.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Literal

import numpy as np

__all__ = [
    "SENTIMENTS",
    "COVERAGE_TAU",
    "filter_items",
    "ims_from_cosine",
    "avg_ims",
    "sentiment_distribution",
    "dist_acc",
    "coverage",
    "extract_keywords",
    "keyword_coverage",
    "length_score",
    "fluency_score",
    "clarity",
]

SENTIMENTS: tuple[str, str, str] = ("positive", "neutral", "negative")
"""The three sentiment classes of a structured novelty evaluation (Section 3.2)."""

COVERAGE_TAU: float = 0.7
"""Coverage threshold τ used in the paper (Section 3.2, after Eq. 3)."""

_KEYWORD_RE = re.compile(r"\b[A-Za-z0-9\-]+\b")
_MIN_ITEM_CHARS = 10
_MIN_KEYWORD_CHARS = 6  # "length greater than 5"


def filter_items(items: Iterable[str]) -> list[str]:
    """Drop evaluation items that carry no content.

    An item is dropped when, after stripping whitespace, it is shorter than 10
    characters or equals "none" (case-insensitive). This is the filter of the
    authors' released scoring code, applied to both model and gold evaluations.

    Args:
        items: Evaluation sentences (one bullet each).

    Returns:
        The kept items, stripped, in input order.
    """
    kept = []
    for item in items:
        if not isinstance(item, str):
            continue
        s = item.strip()
        if s.lower() == "none" or len(s) < _MIN_ITEM_CHARS:
            continue
        kept.append(s)
    return kept


def ims_from_cosine(cos: np.ndarray | float) -> np.ndarray:
    """Information Matching Score from a cosine similarity.

    IMS(a, b) = 1 + 4 · clip(cos(e_a, e_b), 0, 1) (Wright et al., 2022, as used by
    NovBench Section 3.2 for Relevance). Negative cosines are clipped to 0.

    Args:
        cos: Cosine similarity or array of them, in [-1, 1].

    Returns:
        IMS values in [1, 5]; 5 is a perfect match.
    """
    return 1.0 + 4.0 * np.clip(np.asarray(cos, dtype=float), 0.0, 1.0)


def avg_ims(cos: np.ndarray) -> float:
    """Relevance: Maximum Matching Average IMS (Section 3.2, Eq. 1).

    ``AvgIMS = (1/N) Σ_i max_j S_ij`` where ``S_ij`` is the IMS between the i-th
    novelty-description sentence and the j-th generated evaluation sentence.

    Args:
        cos: Cosine similarities, shape ``(N, M)``: rows are the source
            (novelty-description) sentences, columns the evaluation sentences.

    Returns:
        AvgIMS in [1, 5], higher is better (best 5). 0.0 when the evaluation is empty
        (``M == 0``), the convention for empty model outputs.

    Raises:
        ValueError: ``cos`` is not 2-D or has no source sentence (``N == 0``).
    """
    s = np.asarray(cos, dtype=float)
    if s.ndim != 2:
        raise ValueError(f"expected a 2-D similarity matrix, got shape {s.shape}")
    if s.shape[0] == 0:
        raise ValueError("AvgIMS needs at least one source sentence")
    if s.shape[1] == 0:
        return 0.0
    return float(ims_from_cosine(s).max(axis=1).mean())


def sentiment_distribution(labels: Sequence[str]) -> dict[str, float]:
    """Proportion of each sentiment class among evaluation items.

    Args:
        labels: One label per item, each in :data:`SENTIMENTS`.

    Returns:
        ``{"positive": p, "neutral": p, "negative": p}`` summing to 1, or all zeros
        when ``labels`` is empty.

    Raises:
        ValueError: a label is not one of the three classes.
    """
    counts = Counter(labels)
    bad = set(counts) - set(SENTIMENTS)
    if bad:
        raise ValueError(f"unknown sentiment label(s) {sorted(bad)}; expected {SENTIMENTS}")
    n = sum(counts.values())
    return {c: (counts[c] / n if n else 0.0) for c in SENTIMENTS}


def dist_acc(true_labels: Sequence[str], pred_labels: Sequence[str]) -> float:
    """Correctness: distribution accuracy of sentiment proportions (Eq. 2).

    ``DistAcc = 1 - Σ_i |p_i - t_i| / 2`` over the positive/neutral/negative
    proportions of the model's items (``p``) and the human items (``t``).

    Args:
        true_labels: Sentiment label of each gold (human) evaluation item.
        pred_labels: Sentiment label of each model evaluation item.

    Returns:
        DistAcc in [0, 1], higher is better (best 1: identical distributions). 0.0
        when the model output is empty; NaN when the gold side is empty (undefined).
    """
    if len(pred_labels) == 0:
        return 0.0
    if len(true_labels) == 0:
        return math.nan
    t = sentiment_distribution(true_labels)
    p = sentiment_distribution(pred_labels)
    l1 = sum(abs(p[c] - t[c]) for c in SENTIMENTS)
    return float(1.0 - l1 / 2.0)


def coverage(cos: np.ndarray, *, tau: float = COVERAGE_TAU) -> float:
    """Coverage of the human evaluation points by the model (Section 3.2, Eq. 3).

    ``Coverage = (1/|G|) Σ_g 1[max_m cos(g, m) ≥ τ]``.

    Args:
        cos: Cosine similarities, shape ``(|G|, |M|)``: rows are gold (human)
            evaluation items, columns model items.
        tau: Threshold τ (inclusive); the paper uses 0.7.

    Returns:
        Coverage in [0, 1], higher is better (best 1). 0.0 when the model output is
        empty; NaN when there is no gold item (undefined).

    Raises:
        ValueError: ``cos`` is not 2-D.
    """
    s = np.asarray(cos, dtype=float)
    if s.ndim != 2:
        raise ValueError(f"expected a 2-D similarity matrix, got shape {s.shape}")
    if s.shape[1] == 0:
        return 0.0
    if s.shape[0] == 0:
        return math.nan
    return float((s.max(axis=1) >= tau).mean())


def extract_keywords(sentences: Iterable[str]) -> list[str]:
    """Keywords ``K`` of Clarity (Section 3.2, text after Eq. 4).

    Alphanumeric and hyphenated tokens (regex ``\\b[A-Za-z0-9-]+\\b``) longer than 5
    characters, taken from the novelty-description sentences, lower-cased and
    de-duplicated in first-seen order.

    Args:
        sentences: The paper's novelty-description sentences.

    Returns:
        The keyword list (possibly empty).
    """
    seen: dict[str, None] = {}
    for s in sentences:
        for tok in _KEYWORD_RE.findall(s):
            if len(tok) >= _MIN_KEYWORD_CHARS:
                seen.setdefault(tok.lower(), None)
    return list(seen)


def _tokens(text: str) -> set[str]:
    return {t.lower() for t in _KEYWORD_RE.findall(text)}


def keyword_coverage(
    texts: Sequence[str],
    keywords: Iterable[str],
    *,
    match: Literal["token", "substring"] = "token",
) -> float:
    """Keyword Coverage KC (Section 3.2, Eq. 4).

    Fraction of evaluation sentences containing at least one keyword,
    case-insensitive. ``match="token"`` (the paper's text) compares whole tokens so
    that "model" does not match "models"; ``match="substring"`` (the released code)
    accepts any substring occurrence.

    Args:
        texts: Evaluation sentences ``T``.
        keywords: Keywords ``K`` (see :func:`extract_keywords`).
        match: ``"token"`` or ``"substring"``.

    Returns:
        KC in [0, 1], higher is better (best 1). 0.0 when ``texts`` is empty.
    """
    if not texts:
        return 0.0
    kws = [k.lower() for k in keywords]
    if match == "token":
        kwset = set(kws)
        hits = sum(1 for t in texts if _tokens(t) & kwset)
    elif match == "substring":
        hits = sum(1 for t in texts if any(k in t.lower() for k in kws))
    else:
        raise ValueError(f"match must be 'token' or 'substring', got {match!r}")
    return hits / len(texts)


def length_score(texts: Sequence[str], *, norm: int = 20) -> float:
    """Length Score LS (Section 3.2, Eq. 5).

    ``LS = min(mean_t len(t) / 20, 1)`` with ``len`` the number of
    whitespace-separated tokens.

    Args:
        texts: Evaluation sentences ``T``.
        norm: The normaliser (20 in the paper).

    Returns:
        LS in [0, 1], higher is better (best 1: sentences of ≥ 20 tokens on
        average). 0.0 when ``texts`` is empty.
    """
    if not texts:
        return 0.0
    mean_len = sum(len(t.split()) for t in texts) / len(texts)
    return float(min(mean_len / norm, 1.0))


def fluency_score(
    perplexities: Sequence[float], *, nonfinite: Literal["zero", "drop"] = "zero"
) -> float:
    """Fluency Score FS (Section 3.2, Eq. 6): ``mean_t 1 / (1 + PPL(t))``.

    Every sentence of ``T`` counts. A perplexity that is not finite (``inf``, or NaN
    when a text has no token the model can score) contributes ``1 / (1 + inf) = 0``,
    as Eq. 6 gives it, and stays in the denominator ``|T|``.

    Args:
        perplexities: Perplexity of each evaluation sentence (≥ 1, or not finite).
        nonfinite: ``"zero"`` (default, Eq. 6) or ``"drop"``: leave such sentences out
            of the mean (what noveval did before; not the paper).

    Returns:
        FS in [0, 1), higher is better (best → 1 as perplexity → 0; in practice
        ≤ 0.5 since perplexity ≥ 1). 0.0 when empty (or, with ``"drop"``, when no
        perplexity is finite).

    Raises:
        ValueError: unknown ``nonfinite`` rule.
    """
    if nonfinite not in ("zero", "drop"):
        raise ValueError(f"nonfinite must be 'zero' or 'drop', got {nonfinite!r}")
    ppl = [float(p) for p in perplexities]
    if nonfinite == "drop":
        ppl = [p for p in ppl if math.isfinite(p)]
    if not ppl:
        return 0.0
    return float(np.mean([1.0 / (1.0 + p) if math.isfinite(p) else 0.0 for p in ppl]))


def clarity(
    texts: Sequence[str],
    keywords: Iterable[str],
    *,
    perplexities: Sequence[float] | None = None,
    variant: Literal["paper", "reference"] = "paper",
) -> float:
    """Clarity (Section 3.2, Eqs. 4-7).

    * ``variant="paper"``: ``(KC_token + LS + FS) / 3`` (Eq. 7); needs
      ``perplexities`` (one per text).
    * ``variant="reference"``: ``0.5 · KC_substring + 0.5 · LS`` (released code).

    Args:
        texts: Evaluation sentences ``T`` (already filtered).
        keywords: Keywords from the novelty description.
        perplexities: Per-sentence perplexities, required for ``"paper"``.
        variant: ``"paper"`` (default) or ``"reference"``.

    Returns:
        Clarity in [0, 1], higher is better (best 1 for the reference variant; the
        paper variant is bounded by ``(2 + 1/(1+min PPL)) / 3``). 0.0 when empty.

    Raises:
        ValueError: unknown variant, or missing / mismatched perplexities.
    """
    if not texts:
        return 0.0
    kws = list(keywords)
    ls = length_score(texts)
    if variant == "reference":
        return 0.5 * keyword_coverage(texts, kws, match="substring") + 0.5 * ls
    if variant != "paper":
        raise ValueError(f"variant must be 'paper' or 'reference', got {variant!r}")
    if perplexities is None or len(perplexities) != len(texts):
        raise ValueError("the paper variant of Clarity needs one perplexity per text")
    kc = keyword_coverage(texts, kws, match="token")
    return (kc + ls + fluency_score(perplexities)) / 3.0
