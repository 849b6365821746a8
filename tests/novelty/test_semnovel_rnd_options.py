"""SemNovel's t-SNE metric option and RND's P/Q options (issue 14, items 9-10)."""

from __future__ import annotations

import numpy as np
import pytest
from openTSNE import TSNE

from noveval.novelty import RND, SemNovel, get_metric


@pytest.fixture
def cloud() -> np.ndarray:
    rng = np.random.default_rng(0)
    x = rng.normal(size=16) + 0.4 * rng.normal(size=(45, 16))
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _independent_semnovel(x: np.ndarray, metric: str, seed: int) -> float:
    """Joint t-SNE (openTSNE, perplexity 30 clipped to (n-1)/3, PCA init), then the sum of the
    K = max(10, int(0.02 n)) smallest map distances from the last row to the others."""
    y = np.asarray(TSNE(perplexity=min(30.0, (len(x) - 1) / 3), metric=metric, initialization="pca",
                        random_state=seed, n_jobs=1, verbose=False).fit(x))
    d = np.linalg.norm(y[:-1] - y[-1], axis=1)
    return float(np.sort(d)[: max(10, int(0.02 * len(d)))].sum())


def test_semnovel_default_is_the_reference_cosine_tsne(cloud):
    m = SemNovel(seed=3)
    assert m.metric == "cosine"
    assert m.score(cloud[-1], cloud[:-1]) == pytest.approx(_independent_semnovel(cloud, "cosine", 3), rel=1e-9)
    e = SemNovel(seed=3, metric="euclidean")
    assert e.score(cloud[-1], cloud[:-1]) == pytest.approx(_independent_semnovel(cloud, "euclidean", 3), rel=1e-9)
    assert e.score(cloud[-1], cloud[:-1]) != pytest.approx(m.score(cloud[-1], cloud[:-1]), rel=1e-6)


def test_semnovel_fit_key_separates_metric_and_seed(cloud):
    keys = {SemNovel(seed=s, metric=mt).fit_key(cloud) for s in (0, 1) for mt in ("cosine", "euclidean")}
    assert len(keys) == 4
    assert SemNovel().fit_key(cloud) == SemNovel().fit_key(cloud.copy())
    with pytest.raises(ValueError, match="metric"):
        SemNovel(metric="manhattan")
    assert get_metric("semnovel", metric="euclidean").metric == "euclidean"


def test_rnd_p_and_q_are_options_with_hand_computed_value():
    # 1-D points on a unit circle: angles -> cosine distances we can reason about
    ang = np.array([0.0, 0.1, 0.2, 0.3, 1.5, 1.6])
    pool = np.c_[np.cos(ang), np.sin(ang)]
    focal = np.array([np.cos(0.9), np.sin(0.9)])
    assert (RND().p, RND().q) == (100, 50)
    # P = 2: focal's nearest pool papers are angles 1.5 and 0.3 (0.6 away each, ties by position)
    # Q = 1: ND(focal) = 1 - cos(0.6); ND(0.3) = 1 - cos(0.1) < ND(focal); ND(1.5) = 1 - cos(0.1) < ND(focal)
    assert RND(p=2, q=1).score(focal, pool) == pytest.approx(100.0)
    # Q = 5 (all others): ND(focal) = mean over all 6 angles' distances, larger Q changes the answer
    d = 1 - np.cos(np.abs(ang - 0.9))
    nd_f = np.sort(d)[:5].mean()
    nds = []
    for j in np.argsort(d, kind="stable")[:2]:
        dj = 1 - np.cos(np.abs(np.delete(ang, j) - ang[j]))
        nds.append(np.sort(dj)[:5].mean())
    assert RND(p=2, q=5).score(focal, pool) == pytest.approx(100.0 * np.mean(np.array(nds) < nd_f))
    # by hand: ND(focal) averages gaps 0.6, 0.6, 0.7, 0.7, 0.8; each neighbour's five gaps
    # include the 1.2-1.3 jumps across the circle, so neither is denser than the focal paper
    assert RND(p=2, q=5).score(focal, pool) == 0.0
