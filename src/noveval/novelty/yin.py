"""Yin et al. (2023) distance novelty with ``q = 0``, as used in Liu & Zhai (2026) §4.

Formula: ``Yin(f) = percentile_q { 1 - cos(e_f, e_x) : x in pool }``; with the paper's
``q = 0`` this is the minimum cosine distance from the focal paper to the pool.
Yin et al. used a custom word2vec model; Liu & Zhai replace it with BGE-M3 on
title+abstract (any embedder works here). Range [0, 2]; greater is more novel.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from noveval.novelty.knn import cosine_distance, pairwise_cosine_distance


@dataclass(frozen=True)
class Yin:
    """Distance of a document from the reference corpus (q-th percentile of cosine distances).

    Attributes:
        q: percentile in [0, 100] (Liu & Zhai: 0, i.e. the nearest pool paper).
    """

    q: float = 0.0
    name: str = "Yin"
    inputs: str = "embedding"

    def _reduce(self, d: np.ndarray) -> np.ndarray:
        if self.q == 0:
            return d.min(axis=-1)
        return np.percentile(d, self.q, axis=-1)

    def score(self, focal: np.ndarray, pool: np.ndarray) -> float:
        """Yin score of one focal embedding (d,) against pool embeddings (n, d)."""
        return float(self._reduce(pairwise_cosine_distance(np.asarray(focal)[None, :], pool)[0]))

    def score_many(self, focals: np.ndarray, pool: np.ndarray) -> np.ndarray:
        """Yin score of each focal row against the same pool (one matrix product)."""
        return np.asarray(self._reduce(pairwise_cosine_distance(focals, pool)), dtype=np.float64)

    def score_indexed(self, sim: np.ndarray | Any, focal: int, pool_idx: Sequence[int] | np.ndarray) -> float:
        """Yin score with the pool as row indices of a precomputed similarity matrix."""
        return float(self._reduce(cosine_distance(sim[focal, np.asarray(pool_idx)])))
