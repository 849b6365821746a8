"""Corpus novelty metrics for one input, as percentiles within the corpus.

Each metric is :mod:`noveval.novelty`'s implementation (never re-implemented here).
A raw score means little on its own, so it is placed among the scores of the corpus's
own papers, each scored leave-one-out against the rest of the same pool: percentile
``100 * (#below + #tied / 2) / n``. Higher = more novel than the corpus's typical paper.

For speed the pool is at most ``pool_size`` papers (a seeded random sample of the
corpus; the exact kNN retrieval still searches the whole corpus). Approximations, stated
in each result: the input's SemNovel is exact (one t-SNE of pool + input) and the
corpus papers' reference SemNovel scores are read off that same map instead of one refit
each; the corpus papers' FastTextLOF scores share the pool's fastText model (their own
title was part of its training).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

__all__ = ["METRIC_NOTES", "MetricResult", "corpus_metrics", "percentile"]

METRIC_NOTES: dict[str, dict[str, str]] = {
    "Yin": {
        "measures": "How far the input is from the single closest corpus paper (1 - cosine similarity "
                    "of title+abstract embeddings). Low = something very close already exists.",
        "failure_modes": "Looks only at the nearest paper: it detects copies and paraphrases well (axioms 1, 2, 4: "
                         "~100% in Liu & Zhai's benchmark) but barely sees ideas assembled from several prior "
                         "papers (axiom 3 gradient 31%), treats the papers a work cites like any other (axioms 5/6: 59%) "
                         "and does not drop when newer related work is added (axiom 8: 11%).",
    },
    "RND": {
        "measures": "Relative neighbour density: the share of the input's 100 nearest corpus papers that sit in "
                    "a denser neighbourhood than the input does. High = the input is in a sparser spot than its "
                    "neighbours.",
        "failure_modes": "Best overall in Liu & Zhai's benchmark (71.5% of axiom checks) and strongest on cited "
                         "work, but nearly blind to partial overlap (axiom 3 gradient 6%) and unreliable under time "
                         "shifts of the corpus (axioms 7/8: 48%/44%). A rank among neighbours, so a copy in the "
                         "corpus lowers it without forcing it to zero.",
    },
    "SemNovel": {
        "measures": "Sum of 2-D distances to the K nearest corpus papers (K = max(10, 2% of the pool)) after a "
                    "t-SNE projection. High = far from its neighbours on the map.",
        "failure_modes": "Weakest in Liu & Zhai's benchmark (46.5% of checks): t-SNE does not preserve distances, "
                         "so adding a copy or paraphrase often fails to lower it (axioms 1/2: 44%/41%) and a distant "
                         "field can look less novel (axiom 4: 31%).",
    },
    "FastTextLOF": {
        "measures": "Local Outlier Factor of the title's fastText vector (trained on the corpus titles) among "
                    "corpus titles. Around 1 for ordinary titles, higher for outlier titles.",
        "failure_modes": "Uses titles only (no abstract), with a coarse word model: it often misses copies and "
                         "paraphrases (axioms 1/2: 44%), 51% of axiom checks overall. Not computed for ideas "
                         "without a title.",
    },
}
"""Plain-words description and known failure modes (Liu & Zhai 2026, Table 2 and §6.1)."""


@dataclass
class MetricResult:
    """One metric's outcome for the input.

    Attributes:
        name: Metric name.
        score: Raw score (greater = more novel), or None when not computed.
        percentile: Percentile among corpus papers (0-100, greater = more novel), or None.
        n_reference: Corpus papers in the percentile's reference distribution.
        measures: What it measures, in plain words.
        failure_modes: Known failure modes.
        note: Approximation used or why it was not computed.
    """

    name: str
    score: float | None
    percentile: float | None
    n_reference: int
    measures: str
    failure_modes: str
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)


def percentile(value: float, reference: np.ndarray) -> float:
    """Mid-rank percentile of ``value`` in ``reference`` (0-100; ties count half)."""
    ref = np.asarray(reference, dtype=np.float64)
    ref = ref[np.isfinite(ref)]
    if len(ref) == 0 or not np.isfinite(value):
        return float("nan")
    tol = 1e-9
    below = np.sum(ref < value - tol)
    tied = np.sum(np.abs(ref - value) <= tol)
    return float(100.0 * (below + 0.5 * tied) / len(ref))


def _result(name: str, score: float, ref: np.ndarray, note: str = "") -> MetricResult:
    n = METRIC_NOTES[name]
    return MetricResult(name, float(score), percentile(score, ref), int(np.isfinite(ref).sum()),
                        n["measures"], n["failure_modes"], note)


def _skipped(name: str, why: str) -> MetricResult:
    n = METRIC_NOTES[name]
    return MetricResult(name, None, None, 0, n["measures"], n["failure_modes"], why)


def corpus_metrics(
    focal: np.ndarray,
    focal_title: str | None,
    pool: np.ndarray,
    pool_titles: list[str],
    *,
    metrics: tuple[str, ...] = ("Yin", "RND", "SemNovel", "FastTextLOF"),
    n_reference: int = 500,
    min_pool: int = 30,
    seed: int = 0,
) -> list[MetricResult]:
    """Score the input on each metric and place it among the pool's own papers.

    Args:
        focal: (d,) L2-normalised embedding of the input.
        focal_title: The input's title (FastTextLOF), or None.
        pool: (n, d) embeddings of the metric pool.
        pool_titles: Titles of the pool papers.
        metrics: Which metrics.
        n_reference: Pool papers scored leave-one-out for the percentile.
        min_pool: Below this pool size no percentile is computed.
        seed: Sampling and t-SNE seed.
    """
    from noveval.novelty import RND, FastTextLOF, SemNovel, Yin
    from noveval.novelty.fasttext_lof import euclidean, lof_scores

    n = len(pool)
    if n < min_pool:
        return [_skipped(m, f"not computed: the corpus has {n} papers, a percentile needs at least {min_pool}")
                for m in metrics]
    rng = np.random.default_rng(seed)
    ref = np.sort(rng.choice(n, size=min(n_reference, n), replace=False))
    everyone = np.arange(n)
    out: list[MetricResult] = []
    sim: np.ndarray | None = None
    for name in metrics:
        if name in ("Yin", "RND") and sim is None:
            p64 = np.asarray(pool, dtype=np.float64)
            sim = p64 @ p64.T
        if name == "Yin":
            assert sim is not None
            yin = Yin()
            scores = np.array([yin.score_indexed(sim, int(i), np.delete(everyone, i)) for i in ref])
            out.append(_result(name, yin.score(focal, pool), scores))
        elif name == "RND":
            assert sim is not None
            rnd = RND()
            scores = np.array([rnd.score_indexed(sim, int(i), np.delete(everyone, i)) for i in ref])
            out.append(_result(name, rnd.score(focal, pool), scores))
        elif name == "SemNovel":
            from noveval.novelty.semnovel import tsne_2d

            sem = SemNovel(seed=seed)
            xy = tsne_2d(np.vstack([pool, np.asarray(focal)[None, :]]), perplexity=sem.perplexity, seed=seed)
            scores = np.array([sem.from_map(np.vstack([np.delete(xy[:-1], i, axis=0), xy[i]])) for i in ref])
            out.append(_result(name, sem.from_map(xy), scores,
                               "one t-SNE map of pool + input; corpus papers' reference scores read off the same map"))
        elif name == "FastTextLOF":
            if not focal_title:
                out.append(_skipped(name, "not computed: the input has no title"))
                continue
            ft = FastTextLOF(seed=seed)
            wv = ft.train(pool_titles)
            pv = ft.vectors(wv, pool_titles)
            scores = lof_scores(euclidean(pv, pv), ft.n_neighbors)[ref]
            fv = ft.vectors(wv, [focal_title])[0]
            out.append(_result(name, ft.lof_of_focal(fv, pv), scores,
                               "corpus papers' reference scores share the pool's fastText model"))
    return out
