"""Novelty metrics on tiny hand-made pools, cross-checked against scikit-learn."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.neighbors import LocalOutlierFactor, NearestNeighbors

from noveval.novelty import RND, FastTextLOF, SemNovel, Yin, get_metric, lof_scores, semnovel_k
from noveval.novelty.knn import nearest_indices, smallest_k_mean


def _norm(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=1, keepdims=True)


@pytest.fixture
def cloud() -> np.ndarray:
    rng = np.random.default_rng(0)
    centre = rng.normal(size=16)
    return _norm(centre + 0.3 * rng.normal(size=(60, 16)))


def test_yin_is_min_cosine_distance(cloud: np.ndarray) -> None:
    f = cloud[0]
    pool = cloud[1:]
    assert Yin().score(f, pool) == pytest.approx(1 - (pool @ f).max(), abs=1e-8)
    assert Yin().score(f, np.vstack([pool, f])) == pytest.approx(0.0, abs=1e-8)


@pytest.mark.parametrize("metric", [RND(p=20, q=5), Yin()])
def test_duplicate_makes_non_novel_and_outlier_highest(metric, cloud: np.ndarray) -> None:
    pool = cloud[:50]
    inlier = cloud[55]
    rng = np.random.default_rng(3)
    outlier = _norm(rng.normal(size=(1, 16)))[0]
    base = metric.score(inlier, pool)
    assert metric.score(inlier, np.vstack([pool, inlier])) < base
    many = metric.score_many(np.vstack([cloud[50:55], outlier]), pool)
    assert np.argmax(many) == 5


def test_semnovel_copies_non_novel_and_outlier_highest(cloud: np.ndarray) -> None:
    # t-SNE does not preserve single distances (the paper's Ax1 failures), so the
    # hand-made case uses K copies: the K nearest map distances then collapse to ~0.
    m = SemNovel(seed=1)
    pool, inlier = cloud[:50], cloud[55]
    copies = np.vstack([pool] + [inlier[None]] * 10)
    assert m.score(inlier, copies) < 0.5 * m.score(inlier, pool)
    rng = np.random.default_rng(3)
    outlier = _norm(rng.normal(size=(1, 16)))[0]
    assert np.argmax(m.score_many(np.vstack([cloud[50:53], outlier]), pool)) == 3


def test_rnd_matches_sklearn_neighbours(cloud: np.ndarray) -> None:
    pool, f = cloud[:50], cloud[50]
    p, q = 10, 5
    nn = NearestNeighbors(n_neighbors=q + 1, metric="cosine").fit(pool)
    d_pool, _ = nn.kneighbors(pool)  # first column is the point itself
    nd_pool = d_pool[:, 1:].mean(axis=1)
    d_f, idx_f = NearestNeighbors(n_neighbors=p, metric="cosine").fit(pool).kneighbors(f[None])
    nd_f = d_f[0, :q].mean()
    expected = 100 * np.mean(nd_pool[idx_f[0]] < nd_f)
    assert RND(p=p, q=q).score(f, pool) == pytest.approx(expected)
    sim = cloud @ cloud.T
    assert RND(p=p, q=q).score_indexed(sim, 50, np.arange(50)) == pytest.approx(expected)


def test_knn_helpers_match_sklearn(cloud: np.ndarray) -> None:
    d = 1 - cloud[:5] @ cloud[5:].T
    nn = NearestNeighbors(n_neighbors=7, metric="cosine").fit(cloud[5:])
    dist, idx = nn.kneighbors(cloud[:5])
    np.testing.assert_allclose(smallest_k_mean(d, 7), dist.mean(axis=1), atol=1e-9)
    for i in range(5):
        assert list(nearest_indices(d[i], 7)) == list(idx[i])


def test_lof_matches_sklearn() -> None:
    rng = np.random.default_rng(1)
    x = np.vstack([rng.normal(size=(80, 5)), [[6, 6, 6, 6, 6]]])
    lof = LocalOutlierFactor(n_neighbors=20).fit(x)
    dist = np.sqrt(((x[:, None] - x[None]) ** 2).sum(-1))
    np.testing.assert_allclose(lof_scores(dist, 20), -lof.negative_outlier_factor_, rtol=1e-7)
    assert np.argmax(lof_scores(dist, 20)) == 80


def test_fasttext_lof_duplicate_and_outlier() -> None:
    words = ["robot", "grasp", "planning", "motion", "learning", "policy", "control", "arm"]
    rng = np.random.default_rng(0)
    pool = [" ".join(rng.choice(words, size=5)) for _ in range(60)]
    m = FastTextLOF(bucket=20_000, n_neighbors=10, epochs=5)
    inlier = pool[0]
    outlier = "quantum chromodynamics lattice gauge hadron spectroscopy"
    s = m.score_many([inlier, outlier], pool[1:])
    assert s[1] > s[0]
    assert m.score(inlier, pool[1:] + [inlier]) <= m.score(inlier, pool[1:]) + 1e-9
    # deterministic training
    assert m.score(outlier, pool) == m.score(outlier, pool)


def test_semnovel_k_and_registry() -> None:
    assert semnovel_k(300) == 10
    assert semnovel_k(1500) == 30
    assert semnovel_k(5) == 5
    assert get_metric("rnd").name == "RND"
    with pytest.raises(KeyError):
        get_metric("nope")
