"""SemNovel, Peng et al. (2025), as configured in Liu & Zhai (2026) §4.

Formula: embed the pool and the focal paper (title+abstract), project all of them
jointly to 2-D with t-SNE (van der Maaten & Hinton 2008) and score

``SemNovel(f) = sum of the K smallest Euclidean distances ||y_f - y_x||, x in pool``,
with ``K = max(10, int(0.02 * |pool|))`` (Liu & Zhai's dynamic K).

Range [0, inf); greater is more novel. t-SNE settings of the reference SemNovel code
(``2_semantic_space/dimension_reduction.py``: openTSNE, perplexity 30, cosine metric,
openTSNE's default PCA initialisation): perplexity 30 (clipped to ``(n - 1) / 3`` for tiny
pools), ``metric="cosine"`` (``"euclidean"`` on the L2-normalised embeddings was
noveval's choice before issue 14), PCA initialisation, openTSNE defaults otherwise, and
a fixed ``seed`` (the reference uses 42). t-SNE is stochastic: on the axioms benchmark a
change of seed alone moves the scores as much as any setting (Spearman 0.71 between two
seeds), so the benchmark reports SemNovel over several seeds (``--seeds``).
The exact computation refits t-SNE for every (pool, focal) pair.
``SemNovelMap`` offers the documented fast approximation: fit t-SNE once on a pool and
place new points with openTSNE's ``transform`` (the reference map stays fixed).
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from typing import Any

import numpy as np

from noveval.novelty.knn import knn_sum


def semnovel_k(n_pool: int, *, k_min: int = 10, k_frac: float = 0.02) -> int:
    """Liu & Zhai's ``K = max(k_min, int(k_frac * n_pool))``, clipped to the pool size."""
    return max(1, min(n_pool, max(k_min, int(k_frac * n_pool))))


TSNE_METRICS = ("cosine", "euclidean")
"""t-SNE input metrics: ``cosine`` (the reference SemNovel code, default) or ``euclidean``."""


def _tsne(perplexity: float, seed: int, n_jobs: int, n: int, metric: str = "cosine"):
    from openTSNE import TSNE

    lg = logging.getLogger("openTSNE")
    lg.setLevel(max(lg.level, logging.WARNING))  # one INFO line per fit otherwise; never louder than the CLI set

    perp = max(1.0, min(perplexity, (n - 1) / 3.0))
    return TSNE(
        perplexity=perp, metric=metric, initialization="pca",
        random_state=seed, n_jobs=n_jobs, verbose=False,
    )


def _pools(n_jobs: int) -> Any:
    """Inside the block the BLAS and OpenMP thread pools t-SNE calls into use ``n_jobs`` threads.

    Their default (every core) spins at barriers for cores other processes hold: on a shared
    2-core machine a fit plus transform of 200 points took 2.6-4.5 CPU-s on the default pools
    and 0.75 CPU-s on one thread, with bit-identical maps.
    """
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=max(1, n_jobs))


def tsne_2d(x: np.ndarray, *, perplexity: float = 30.0, seed: int = 0, n_jobs: int = 1,
            metric: str = "cosine") -> np.ndarray:
    """Exact t-SNE of ``x`` (n, d) to (n, 2) with the SemNovel settings (``metric``: input metric)."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    with _pools(n_jobs):
        return np.asarray(_tsne(perplexity, seed, n_jobs, len(x), metric).fit(x))


def content_key(x: np.ndarray, **params: object) -> str:
    """Hash of an array's bytes and parameters (cache key for t-SNE maps)."""
    h = hashlib.sha1(np.ascontiguousarray(x, dtype=np.float32).tobytes())
    h.update(repr(sorted(params.items())).encode())
    return h.hexdigest()


@dataclass(frozen=True)
class SemNovel:
    """SemNovel metric (exact: one t-SNE per scored pool+focal set).

    Attributes:
        k_min: lower bound of K (10).
        k_frac: K as a fraction of the pool size (0.02).
        perplexity: t-SNE perplexity (30).
        seed: t-SNE random state.
        n_jobs: threads for one t-SNE fit (openTSNE and the BLAS/OpenMP pools it calls).
        metric: t-SNE input metric, ``"cosine"`` (reference code, default) or ``"euclidean"``.
    """

    k_min: int = 10
    k_frac: float = 0.02
    perplexity: float = 30.0
    seed: int = 0
    n_jobs: int = 1
    metric: str = "cosine"
    name: str = "SemNovel"
    inputs: str = "embedding"

    def __post_init__(self) -> None:
        if self.metric not in TSNE_METRICS:
            raise ValueError(f"SemNovel metric must be one of {', '.join(TSNE_METRICS)}, got {self.metric!r}")

    def fit_key(self, x: np.ndarray) -> str:
        """Cache key of one exact fit: the t-SNE input and every setting the score depends on."""
        return content_key(x, perplexity=self.perplexity, seed=self.seed, k=(self.k_min, self.k_frac),
                           metric=self.metric)

    def from_map(self, y: np.ndarray) -> float:
        """Score from a 2-D map whose last row is the focal paper and other rows the pool."""
        d = np.sqrt(((y[:-1] - y[-1]) ** 2).sum(axis=1))
        return knn_sum(d, semnovel_k(len(d), k_min=self.k_min, k_frac=self.k_frac))

    def score(self, focal: np.ndarray, pool: np.ndarray) -> float:
        """SemNovel of one focal embedding (d,) against pool embeddings (n, d)."""
        x = np.vstack([np.asarray(pool), np.asarray(focal)[None, :]])
        return self.from_map(tsne_2d(x, perplexity=self.perplexity, seed=self.seed, n_jobs=self.n_jobs,
                                     metric=self.metric))

    def score_many(self, focals: np.ndarray, pool: np.ndarray) -> np.ndarray:
        """Exact SemNovel of each focal row (one t-SNE per focal paper, as the metric defines)."""
        return np.array([self.score(f, pool) for f in focals])


class SemNovelMap:
    """Fast approximation: one t-SNE map of a pool, new points placed by ``transform``.

    ``score(focal, extra=None, keep=None)`` places the focal paper (and optional extra pool
    points, e.g. a paraphrase) into the fixed map and sums its K nearest pool distances;
    ``keep`` restricts the pool to a subset of the mapped rows (no refit).
    """

    def __init__(self, pool: np.ndarray, metric: SemNovel) -> None:
        from openTSNE import TSNE  # noqa: F401  (import check)

        self.metric = metric
        x = np.ascontiguousarray(pool, dtype=np.float64)
        with _pools(metric.n_jobs):
            self._emb = _tsne(metric.perplexity, metric.seed, metric.n_jobs, len(x), metric.metric).fit(x)
        self.coords = np.asarray(self._emb)

    def place(self, points: np.ndarray) -> np.ndarray:
        """2-D coordinates of new points in the fixed map."""
        pts = np.ascontiguousarray(np.atleast_2d(points), dtype=np.float64)
        with _pools(self.metric.n_jobs):
            return np.asarray(self._emb.transform(pts))

    def score_coords(self, focal_xy: np.ndarray, pool_xy: np.ndarray) -> float:
        """SemNovel from already-placed coordinates."""
        return self.metric.from_map(np.vstack([pool_xy, np.asarray(focal_xy)[None, :]]))
