"""FastTextLOF, Jeon et al. (2023), as configured in Liu & Zhai (2026) §4.

Formula: train fastText from scratch on the pool's titles (Liu & Zhai: library defaults,
``minCount = 1``); a title vector is the mean of the L2-normalised word vectors of its
tokens (fastText's ``get_sentence_vector`` for unsupervised models); the score is the
Local Outlier Factor (Breunig et al. 2000) of the focal title vector among the pool
title vectors with ``k = 20`` (scikit-learn's default ``n_neighbors``, clipped to n-1):

``LOF_k(f) = mean_{o in N_k(f)} lrd(o) / lrd(f)``,
``lrd(p) = 1 / (mean_{o in N_k(p)} max(k-dist(o), ||p - o||) + 1e-10)``,

computed over pool ∪ {focal} (scikit-learn's ``negative_outlier_factor_`` sign-flipped).
Range [0, inf), about 1 for inliers; greater is more novel.

fastText defaults (Facebook ``train_unsupervised``): skip-gram, dim 100, window 5,
5 epochs, 5 negatives, character n-grams 3-6, 2,000,000 hash buckets; trained with one
worker and a fixed seed (gensim's implementation) so that results are reproducible.
The model is trained on the pool only (not the focal title), so a pool's model is
shared by every focal paper scored against it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from noveval.novelty.knn import DECIMALS

_TOKEN = re.compile(r"\w+", re.UNICODE)


def tokenize(title: str) -> list[str]:
    """Lower-cased word tokens of a title."""
    return _TOKEN.findall(title.lower())


def lof_scores(dist: np.ndarray, k: int = 20) -> np.ndarray:
    """LOF of every point from a full (n, n) distance matrix (scikit-learn's definition).

    Args:
        dist: symmetric distances with a zero diagonal.
        k: neighbours (clipped to n - 1); each point's own row entry is excluded.

    Returns:
        (n,) LOF values (``-negative_outlier_factor_`` of scikit-learn).
    """
    n = dist.shape[0]
    k = max(1, min(k, n - 1))
    d = np.array(dist, dtype=np.float64, copy=True)
    np.fill_diagonal(d, np.inf)
    nbr = np.argpartition(d, k - 1, axis=1)[:, :k]
    nd = np.take_along_axis(d, nbr, axis=1)
    kdist = nd.max(axis=1)
    reach = np.maximum(nd, kdist[nbr])
    lrd = 1.0 / (reach.mean(axis=1) + 1e-10)
    return (lrd[nbr] / lrd[:, None]).mean(axis=1)


def euclidean(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Euclidean distances (rounded to ``DECIMALS``) between rows of a and b."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    sq = (a * a).sum(1)[:, None] + (b * b).sum(1)[None, :] - 2.0 * a @ b.T
    return np.round(np.sqrt(np.maximum(sq, 0.0)), DECIMALS)


@dataclass(frozen=True)
class FastTextLOF:
    """FastTextLOF metric (see module docstring).

    Attributes:
        vector_size, window, epochs, negative, min_n, max_n, bucket, sg: fastText settings
            (library defaults, skip-gram).
        min_count: 1 (Liu & Zhai: titles are short).
        n_neighbors: LOF k (scikit-learn default 20).
        seed: training seed (one worker, deterministic).
    """

    vector_size: int = 100
    window: int = 5
    epochs: int = 5
    negative: int = 5
    min_n: int = 3
    max_n: int = 6
    bucket: int = 2_000_000
    sg: int = 1
    min_count: int = 1
    n_neighbors: int = 20
    seed: int = 0
    name: str = "FastTextLOF"
    inputs: str = "title"

    def key(self, titles: Sequence[str]) -> str:
        """Content hash of a training set and the settings."""
        h = hashlib.sha1("\x1e".join(titles).encode())
        h.update(repr(self).encode())
        return h.hexdigest()

    def train(self, titles: Sequence[str]):
        """Train fastText from scratch on ``titles``; returns the gensim ``KeyedVectors``."""
        from gensim.models import FastText

        sents = [tokenize(t) or ["<empty>"] for t in titles]
        model = FastText(
            sentences=sents, vector_size=self.vector_size, window=self.window,
            epochs=self.epochs, negative=self.negative, min_n=self.min_n, max_n=self.max_n,
            bucket=self.bucket, sg=self.sg, min_count=self.min_count, seed=self.seed, workers=1,
        )
        return model.wv

    def vectors(self, wv, titles: Sequence[str]) -> np.ndarray:
        """Title vectors: mean of L2-normalised word vectors (zeros for an empty title)."""
        out = np.zeros((len(titles), self.vector_size), dtype=np.float64)
        for i, t in enumerate(titles):
            toks = tokenize(t)
            if not toks:
                continue
            v = np.stack([wv[w] for w in toks]).astype(np.float64)
            norms = np.linalg.norm(v, axis=1, keepdims=True)
            out[i] = (v / np.where(norms > 0, norms, 1.0)).mean(axis=0)
        return out

    def lof_of_focal(self, focal_vec: np.ndarray, pool_vecs: np.ndarray) -> float:
        """LOF of the focal vector among pool ∪ {focal} (focal is the last point)."""
        x = np.vstack([pool_vecs, np.asarray(focal_vec)[None, :]])
        return float(lof_scores(euclidean(x, x), self.n_neighbors)[-1])

    def score(self, focal: str, pool: Sequence[str]) -> float:
        """FastTextLOF of one focal title against pool titles."""
        wv = self.train(pool)
        return self.lof_of_focal(self.vectors(wv, [focal])[0], self.vectors(wv, pool))

    def score_many(self, focals: Sequence[str], pool: Sequence[str]) -> np.ndarray:
        """Score each focal title against the same pool (one fastText model for the pool)."""
        wv = self.train(pool)
        pv = self.vectors(wv, pool)
        return np.array([self.lof_of_focal(v, pv) for v in self.vectors(wv, focals)])
