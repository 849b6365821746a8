"""Prior-only candidates and exact retrieval (noveval.benchmarks.validate.pool)."""

from __future__ import annotations

import numpy as np
import pytest

from noveval.benchmarks.validate.pool import Candidates, build_candidates, field_pools, retrieve
from noveval.corpus import Corpus
from noveval.errors import InputError


def _cands(emb, years, titles=None, fields=None):
    n = len(years)
    emb = np.asarray(emb, dtype=np.float32)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    return Candidates(rows=np.arange(n), ids=[f"c{i}" for i in range(n)], titles=titles or [f"T{i}" for i in range(n)],
                      abstracts=["a"] * n, years=np.asarray(years), fields=fields or ["ML"] * n, emb=emb,
                      text_hashes=[f"h{i}" for i in range(n)])


def test_retrieve_is_exact_prior_only_and_never_self():
    # candidate 0 is the focal paper itself under the same title (an earlier listing),
    # candidate 1 is newer than the focal paper, 2 and 3 tie in similarity.
    c = _cands([[1, 0], [1, 0.01], [1, 0.5], [1, -0.5], [0, 1]], [2020, 2025, 2021, 2022, 2019],
               titles=["Focal Paper!", "x", "y", "z", "w"])
    f = np.array([[1.0, 0.0]], dtype=np.float32)
    r = retrieve(c, f, ["focal paper"], [2025], k=3)
    assert r.idx.tolist() == [[2, 3, 4]]  # 0 excluded (same normalised title), 1 not prior; tie 2/3 by position
    assert r.self_matches == 1
    assert r.sim[0, 0] == pytest.approx(r.sim[0, 1])
    # with fewer eligible candidates than k the row is padded
    r = retrieve(c, f, ["focal paper"], [2020], k=3)
    assert r.neighbours(0).tolist() == [4] and r.idx[0].tolist() == [4, -1, -1]


def test_field_pools_are_seeded_samples_shared_per_field_and_year():
    c = _cands(np.eye(6) + 0.1, [2020] * 5 + [2024], fields=["ML", "ML", "ML", "CV", "ML", "ML"])
    pools, sizes = field_pools(c, ["ML", "ML", "CV"], [2024, 2024, 2024], pool_size=3, seed=0)
    assert sizes[("ML", 2024)] == 4 and len(pools[0]) == 3 and pools[0] is pools[1]
    assert set(pools[0]) <= {0, 1, 2, 4} and pools[2].tolist() == [3]
    again, _ = field_pools(c, ["ML"], [2024], pool_size=3, seed=0)
    assert again[0].tolist() == pools[0].tolist()
    with pytest.raises(InputError, match="Robotics"):
        field_pools(c, ["Robotics"], [2024], pool_size=3)


def test_build_candidates_filters_years_field_and_abstracts():
    from noveval.models.embed import get_embedder

    emb = get_embedder("local")
    corpus = Corpus(ids=["a", "b", "c", "d", "e"], titles=["A", "B", "C", "D", "E"],
                    abstracts=["x", "", "x", "x", "x"], years=np.array([2020, 2021, 2025, 0, 2024]),
                    fields=["ML", "ML", "ML", "ML", "CV"])
    c = build_candidates(corpus, emb, before_year=2025)
    assert c.ids == ["a", "e"] and c.summary["candidates"] == 2
    assert c.emb.shape == (2, 384) and np.allclose(np.linalg.norm(c.emb, axis=1), 1, atol=1e-5)
    assert c.pool_key([0, 1]) != c.pool_key([1, 0]) and c.pool_key([0]) == c.pool_key(np.array([0]))
    assert build_candidates(corpus, emb, before_year=2025, field="cv").ids == ["e"]
    with pytest.raises(InputError):
        build_candidates(corpus, emb, before_year=2020)
