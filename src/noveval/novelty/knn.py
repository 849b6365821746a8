"""Vectorised exact kNN helpers shared by the novelty metrics.

All distances are cosine distances ``1 - cos(a, b)`` on L2-normalised rows,
rounded to ``DECIMALS`` decimals so that two code paths computing the same
dot product with a different BLAS summation order (a full pool matrix versus
a gathered sub-block of a precomputed similarity matrix) resolve ties the
same way. Ties in neighbour order are broken by position (stable sort).
"""

from __future__ import annotations

import numpy as np

DECIMALS = 9


def cosine_distance(sim: np.ndarray) -> np.ndarray:
    """Cosine distance ``1 - sim`` in float64, rounded to ``DECIMALS``."""
    return np.round(1.0 - np.asarray(sim, dtype=np.float64), DECIMALS)


def pairwise_cosine_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine distances between rows of ``a`` (m, d) and ``b`` (n, d) (both L2-normalised)."""
    a64 = np.asarray(a, dtype=np.float64)
    b64 = np.asarray(b, dtype=np.float64)
    return cosine_distance(a64 @ b64.T)


def smallest_k_mean(dist: np.ndarray, k: int) -> np.ndarray:
    """Mean of the ``k`` smallest entries of each row of ``dist`` (inf entries ignored by callers).

    Args:
        dist: (m, n) distances.
        k: number of smallest entries to average; clipped to ``n``.

    Returns:
        (m,) float64 means.
    """
    dist = np.atleast_2d(dist)
    k = max(1, min(int(k), dist.shape[1]))
    part = np.partition(dist, k - 1, axis=1)[:, :k]
    return part.mean(axis=1)


def nearest_indices(dist: np.ndarray, k: int) -> np.ndarray:
    """Positions of the ``k`` smallest entries of a 1-D array, nearest first (stable ties)."""
    dist = np.asarray(dist)
    k = max(0, min(int(k), dist.shape[0]))
    if k == 0:
        return np.zeros(0, dtype=np.int64)
    if k < dist.shape[0]:
        cand = np.argpartition(dist, k - 1)[:k]
        # include every entry tied with the k-th value so that the stable order is exact
        kth = dist[cand].max()
        cand = np.flatnonzero(dist <= kth)
    else:
        cand = np.arange(dist.shape[0])
    order = np.lexsort((cand, dist[cand]))
    return cand[order][:k]


def knn_sum(dist: np.ndarray, k: int) -> float:
    """Sum of the ``k`` smallest entries of a 1-D distance array."""
    dist = np.asarray(dist, dtype=np.float64)
    k = max(1, min(int(k), dist.shape[0]))
    return float(np.partition(dist, k - 1)[:k].sum())
