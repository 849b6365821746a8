"""Evidence per contribution: the closest prior works of each claimed contribution, the
sentences of their abstracts that overlap it, and a verdict with its quotes.

Pure functions over vectors and texts (no model). For each contribution:

1. The candidate works (the retrieval pool, each with its vector) are ranked by cosine
   similarity to the contribution's embedding; the top ``works_per_contribution`` are kept
   (ties: better retrieval rank).
2. Each kept work's abstract is split into sentences; a sentence's **overlap** with the
   contribution is the IDF-weighted share of the contribution's content terms it contains,
   ``sum_{t in C and S} idf(t) / sum_{t in C} idf(t)`` (range [0, 1], greater = more of the
   contribution's distinctive wording occurs in the sentence). A sentence is **quoted**
   when its overlap is at least ``quote_overlap`` and it shares at least two terms. Quotes
   are verbatim sentences of the abstract.
3. Verdict from the best work: ``anticipated`` when its similarity is at least
   ``anticipated_similarity`` and its best quote's overlap at least
   ``anticipated_overlap``; ``partly anticipated`` when its similarity is at least
   ``partly_similarity`` and it has a quote; otherwise ``new`` (nothing retrieved is close
   and overlapping). Thresholds: :class:`EvidenceThresholds` (calibration in docs/check.md).

Terms: lower-cased words without English stopwords, Snowball-stemmed when PyStemmer is
installed (:func:`term_set`). :func:`ground_point` applies the same overlap test to the
model's points: a point is grounded only when it has content and a sentence of a work it
cites overlaps it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from noveval.check.parse import Part, sentences

__all__ = ["EvidenceThresholds", "Work", "term_set", "overlap", "contribution_evidence", "ground_point", "VERDICTS",
           "idf_from_texts"]

VERDICTS = ("new", "partly anticipated", "anticipated")


@dataclass(frozen=True)
class EvidenceThresholds:
    """Where the verdicts and quotes start, set on citation gold with the bundled MiniLM
    (``perf/retrieval_quality.py --calibrate-check``; docs/check.md): for the 1,178
    contributions of 388 NeurIPS 2025 papers and the closest work each paper cites, a quote
    needs the overlap of the top quarter of those pairs (75th percentile 0.15), "partly
    anticipated" their median similarity (0.46), "anticipated" both similarity and overlap
    above their 95th percentiles (0.65, 0.26): evidence stronger than 95% of accepted papers'
    contributions have in the work they cite.

    Attributes:
        quote_overlap: Least overlap for a sentence to be quoted (also for a model's point to be grounded).
        partly_similarity: Least contribution-work cosine for "partly anticipated" (with a quote).
        anticipated_similarity: Least cosine for "anticipated".
        anticipated_overlap: Least quote overlap for "anticipated".
    """

    quote_overlap: float = 0.15
    partly_similarity: float = 0.46
    anticipated_similarity: float = 0.65
    anticipated_overlap: float = 0.26


@dataclass(frozen=True)
class Work:
    """A retrieved prior work as the evidence sees it.

    Attributes:
        rank: Its number in the retrieval ranking (1-based, the ``[n]`` of citations).
        title, abstract, year: The paper.
        similarity: Cosine similarity of the work to the whole input.
    """

    rank: int
    title: str
    abstract: str
    year: int | None
    similarity: float


_WORD = re.compile(r"(?u)\b\w\w+\b")
_STEM: dict[str, Any] = {}


def _stopwords() -> frozenset[str]:
    if "stop" not in _STEM:
        try:
            from bm25s.stopwords import STOPWORDS_EN

            _STEM["stop"] = frozenset(STOPWORDS_EN)
        except ImportError:  # pragma: no cover - bm25s comes with the index extra
            _STEM["stop"] = frozenset()
    return _STEM["stop"]  # type: ignore[no-any-return]


def _stemmer() -> Any:
    if "stemmer" not in _STEM:
        try:
            import Stemmer

            _STEM["stemmer"] = Stemmer.Stemmer("english")
        except ImportError:  # pragma: no cover - PyStemmer comes with the index extra
            _STEM["stemmer"] = None
    return _STEM["stemmer"]


def term_set(text: str) -> set[str]:
    """Content terms of ``text``: words of 2+ characters, no stopwords or numbers, stemmed when possible."""
    stop = _stopwords()
    words = [w for w in _WORD.findall(text.lower()) if w not in stop and not w.isdigit()]
    st = _stemmer()
    return set(st.stemWords(words)) if st is not None and words else set(words)


def idf_from_texts(texts: Sequence[str]) -> Callable[[str], float]:
    """``term -> ln(1 + (N - df + 0.5) / (df + 0.5))`` over ``texts`` (unknown terms: df 0)."""
    df: dict[str, int] = {}
    for t in texts:
        for w in term_set(t):
            df[w] = df.get(w, 0) + 1
    n = len(texts)
    return lambda w: math.log(1.0 + (n - df.get(w, 0) + 0.5) / (df.get(w, 0) + 0.5))


def overlap(claim: set[str], sentence: set[str], idf: Callable[[str], float]) -> tuple[float, list[str]]:
    """IDF-weighted share of ``claim``'s terms found in ``sentence`` (0-1) and the shared terms (rarest first)."""
    total = sum(idf(t) for t in claim)
    shared = sorted(claim & sentence, key=lambda t: (-idf(t), t))
    if total <= 0:
        return 0.0, shared
    return sum(idf(t) for t in shared) / total, shared


def _quotes(claim: set[str], work: Work, idf: Callable[[str], float], th: EvidenceThresholds,
            limit: int = 2) -> list[dict[str, Any]]:
    scored = []
    for i, s in enumerate(sentences(work.abstract)):
        ov, shared = overlap(claim, term_set(s), idf)
        if ov >= th.quote_overlap and len(shared) >= 2:
            scored.append((ov, i, s, shared))
    scored.sort(key=lambda x: (-x[0], x[1]))
    return [{"sentence": s, "overlap": round(ov, 4), "shared_terms": shared[:8]} for ov, _i, s, shared in scored[:limit]]


def _verdict(similarity: float, best_overlap: float, has_quote: bool, th: EvidenceThresholds) -> tuple[str, str]:
    if similarity >= th.anticipated_similarity and best_overlap >= th.anticipated_overlap:
        return "anticipated", (f"similarity {similarity:.2f} ≥ {th.anticipated_similarity} and a quote covering "
                               f"{best_overlap:.0%} of its terms (≥ {th.anticipated_overlap:.0%})")
    if similarity >= th.partly_similarity and has_quote:
        return "partly anticipated", (f"similarity {similarity:.2f} ≥ {th.partly_similarity} with an overlapping "
                                      f"sentence ({best_overlap:.0%} of its terms)")
    why = (f"closest work's similarity {similarity:.2f} < {th.partly_similarity}" if similarity < th.partly_similarity
           else f"no sentence of the closest works shares {th.quote_overlap:.0%} of its terms")
    return "new", why


def contribution_evidence(contributions: Sequence[Part], contribution_vectors: np.ndarray, works: Sequence[Work],
                          work_vectors: np.ndarray, idf: Callable[[str], float], *,
                          thresholds: EvidenceThresholds | None = None, works_per_contribution: int = 3) -> list[dict[str, Any]]:
    """Closest works, quotes and a verdict for each contribution (see the module docstring).

    Args:
        contributions: The claimed contributions.
        contribution_vectors: (m, d) L2-normalised embeddings of the contributions.
        works: The candidate prior works (the retrieval pool).
        work_vectors: (n, d) their L2-normalised embeddings.
        idf: ``term -> idf`` (from the index's document frequencies, or the pool's).
        thresholds: Verdict and quote thresholds.
        works_per_contribution: Works kept per contribution.

    Returns:
        One JSON-ready dict per contribution: ``n, text, how, verdict, reason, works``
        (each ``rank, title, year, similarity, overlap, quotes``).
    """
    th = thresholds or EvidenceThresholds()
    out: list[dict[str, Any]] = []
    wv = np.asarray(work_vectors, dtype=np.float32)
    ranks = np.asarray([w.rank for w in works])
    for j, c in enumerate(contributions):
        claim = term_set(c.text)
        sims = wv @ np.asarray(contribution_vectors[j], dtype=np.float32) if len(works) else np.zeros(0)
        order: list[int] = [int(i) for i in np.lexsort((ranks, -sims))[:works_per_contribution]] if len(works) else []
        kept: list[dict[str, Any]] = []
        for i in order:
            w = works[int(i)]
            qs = _quotes(claim, w, idf, th)
            kept.append({"rank": w.rank, "title": w.title, "year": w.year, "similarity": round(float(sims[i]), 4),
                         "overlap": qs[0]["overlap"] if qs else 0.0, "quotes": qs})
        best_sim = float(kept[0]["similarity"]) if kept else -1.0
        quoted = [k for k in kept if k["quotes"]]
        best = max(quoted, key=lambda k: (k["overlap"], k["similarity"])) if quoted else None
        sim_for = float(best["similarity"]) if best else best_sim
        verdict, reason = _verdict(sim_for, float(best["overlap"]) if best else 0.0, best is not None, th)
        out.append({"n": j + 1, "text": c.text, "how": c.how, "verdict": verdict, "reason": reason,
                    "evidence_rank": best["rank"] if best else None, "works": kept})
    return out


def ground_point(text: str, cites: Sequence[int], quote: str | None, works: dict[int, Work],
                 idf: Callable[[str], float], thresholds: EvidenceThresholds | None = None,
                 min_terms: int = 3) -> dict[str, Any]:
    """Is a model's point grounded in the works it cites? (a point quoting nothing is not).

    Args:
        text: The point (citation marks like ``[2]`` are ignored as content).
        cites: The work numbers it cites.
        quote: The sentence the model quoted, or None.
        works: Number -> the works the model was shown.
        idf: ``term -> idf``.
        thresholds: ``quote_overlap`` is the least overlap.
        min_terms: Fewer content terms than this = no content.

    Returns:
        ``{"grounded": bool, "quote": sentence or None, "work": n or None, "overlap", "why"}``.
    """
    th = thresholds or EvidenceThresholds()
    terms = term_set(re.sub(r"\[[\d,\s]+\]", " ", text))
    cited = [int(c) for c in cites if int(c) in works]
    if len(terms) < min_terms:
        return {"grounded": False, "quote": None, "work": None, "overlap": 0.0,
                "why": f"no content: {len(terms)} content word(s), at least {min_terms} needed"}
    if not cited:
        return {"grounded": False, "quote": None, "work": None, "overlap": 0.0, "why": "cites no work it was shown"}
    best: tuple[float, int, str] | None = None
    qterms = term_set(quote) if quote else set()
    for n in cited:
        for s in sentences(works[n].abstract):
            st = term_set(s)
            if qterms and len(qterms) >= 2 and overlap(qterms, st, lambda _t: 1.0)[0] >= 0.8:
                return {"grounded": True, "quote": s, "work": n, "overlap": round(overlap(terms, st, idf)[0], 4),
                        "why": "its quote is a sentence of the cited work"}
            ov, shared = overlap(terms, st, idf)
            if len(shared) >= 2 and (best is None or ov > best[0]):
                best = (ov, n, s)
    if best is not None and best[0] >= th.quote_overlap:
        return {"grounded": True, "quote": best[2], "work": best[1], "overlap": round(best[0], 4),
                "why": "a sentence of the cited work shares its terms"}
    got = f"best overlap {best[0]:.0%}" if best else "no shared terms"
    return {"grounded": False, "quote": None, "work": None, "overlap": round(best[0], 4) if best else 0.0,
            "why": f"no sentence of the cited works overlaps it ({got}; {th.quote_overlap:.0%} needed)"
            + ("; its quote is not in the cited works" if quote else "")}


def work_dicts(works: Sequence[Work]) -> list[dict[str, Any]]:
    """JSON-ready works."""
    return [asdict(w) for w in works]
