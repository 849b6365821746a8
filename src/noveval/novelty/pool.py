"""Novelty of papers against one shared pool, vectorised: the metrics of :mod:`noveval.novelty` at scale.

:func:`score_group` scores many papers that share a pool (:class:`ScorePool`) and lists
each one's nearest pool papers; :class:`RNDPool` computes RND against a fixed pool while
reading only the neighbours' rows. Yin and RND scale to 10^5-paper pools; SemNovel (one
t-SNE of the pool per paper) and FastTextLOF (pairwise distances over the pool) refuse
pools above :data:`MAX_QUADRATIC_POOL` papers. Greater is more novel for every metric.
Pure: arrays in, numbers out (``noveval novelty score`` reads files and indexes in
:mod:`noveval.index.novelty`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from noveval.errors import InputError
from noveval.novelty import get_metric
from noveval.novelty.knn import nearest_indices, pairwise_cosine_distance, smallest_k_mean

__all__ = ["MAX_QUADRATIC_POOL", "RNDPool", "ScorePool", "pool_limit", "score_group"]

MAX_QUADRATIC_POOL = 20_000
"""Largest pool SemNovel and FastTextLOF accept (their cost grows with the pool squared)."""


class RNDPool:
    """RND against one fixed pool, reading only neighbour rows; equal to :meth:`RND.score`.

    The density ``ND(y)`` of a pool paper depends on the pool alone, so it is computed once
    per pool paper and reused across focal papers.

    Args:
        pool: (n, d) L2-normalised pool vectors.
        p, q: RND's neighbours and density neighbours (Wang et al.: 100, 50).
        block: Pool rows whose densities are computed per matrix product.
    """

    def __init__(self, pool: np.ndarray, *, p: int = 100, q: int = 50, block: int = 256) -> None:
        self.pool = np.asarray(pool)
        self.p, self.q, self.block = p, q, block
        self._nd: dict[int, float] = {}

    def _densities(self, rows: np.ndarray) -> np.ndarray:
        n = len(self.pool)
        need = [int(r) for r in rows if int(r) not in self._nd]
        for s in range(0, len(need), self.block):
            part = np.asarray(need[s:s + self.block], dtype=np.int64)
            d = pairwise_cosine_distance(self.pool[part], self.pool)
            d[np.arange(len(part)), part] = np.inf
            for r, v in zip(part, smallest_k_mean(d, min(self.q, n - 1))):
                self._nd[int(r)] = float(v)
        return np.asarray([self._nd[int(r)] for r in rows])

    def score(self, focal: np.ndarray) -> float:
        """RND in [0, 100] of one focal vector (NaN for pools under 2 papers)."""
        n = len(self.pool)
        if n < 2:
            return float("nan")
        d_f = pairwise_cosine_distance(np.asarray(focal)[None, :], self.pool)[0]
        pos = nearest_indices(d_f, self.p)
        if len(pos) == 0:
            return float("nan")
        nd_f = smallest_k_mean(d_f[None, :], min(self.q, n))[0]
        return float(100.0 * np.mean(self._densities(pos) < nd_f))


@dataclass
class ScorePool:
    """A pool: vectors (for embedding metrics), titles, and the caller's ids for its rows."""

    vectors: np.ndarray | None
    titles: list[str]
    ids: list[str]
    note: dict[str, Any]


def score_group(vecs: np.ndarray | None, titles: Sequence[str], pool: ScorePool, metrics: Sequence[str],
                top_k: int) -> list[dict[str, Any]]:
    """Scores and nearest pool papers of papers that share ``pool``.

    Args:
        vecs: (m, d) paper vectors (None when no embedding metric or neighbour list is needed).
        titles: The papers' titles.
        pool: Their pool.
        metrics: Metric names (``Yin``, ``RND``, ``SemNovel``, ``FastTextLOF``).
        top_k: Nearest pool papers listed per paper.

    Returns:
        Per paper ``{"scores": {metric: value}, "neighbours": [...]}``.
    """
    m = len(titles)
    n = len(pool.titles)
    scores: dict[str, np.ndarray] = {}
    for name in metrics:
        metric = get_metric(name)
        if name in ("SemNovel", "FastTextLOF") and n > MAX_QUADRATIC_POOL:
            raise InputError(None, None, "--metric", f"{name} needs work quadratic in the pool; this pool has {n} papers "
                             f"(at most {MAX_QUADRATIC_POOL}); narrow it with --field/--before-year or drop {name}")
        if n == 0:
            scores[name] = np.full(m, np.nan)
        elif metric.inputs == "title":
            scores[name] = np.asarray(metric.score_many(list(titles), pool.titles), dtype=np.float64)
        elif name == "RND":
            rp = RNDPool(pool.vectors, p=getattr(metric, "p", 100), q=getattr(metric, "q", 50))  # type: ignore[arg-type]
            scores[name] = np.asarray([rp.score(v) for v in vecs])  # type: ignore[union-attr]
        else:
            scores[name] = np.asarray(metric.score_many(vecs, pool.vectors), dtype=np.float64)  # type: ignore[arg-type]
    out = []
    for i in range(m):
        nbrs: list[dict[str, Any]] = []
        if top_k and n and vecs is not None and pool.vectors is not None:
            d = pairwise_cosine_distance(vecs[i][None, :], pool.vectors)[0]
            nbrs = [{"id": pool.ids[j], "title": pool.titles[j], "similarity": float(1.0 - d[j])}
                    for j in nearest_indices(d, top_k)]
        out.append({"scores": {k: float(v[i]) for k, v in scores.items()}, "neighbours": nbrs})
    return out


def pool_limit(before_year: int | None, year: int | None) -> int | None:
    """The tighter of two "published before" limits (None: no limit)."""
    lims = [y for y in (before_year, year) if y is not None]
    return min(lims) if lims else None
