"""The corpus index: BM25, dense and RRF rankings on hand-checked cases, filters, build/add, resume."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("bm25s")

from index_helpers import PAPERS, WordBackend  # noqa: E402
from index_helpers import embedder_for as _embedder
from index_helpers import write_jsonl as _write
from noveval.errors import InputError  # noqa: E402
from noveval.index import BM25Index, BM25Params, build_index, open_index, rank_scores, rrf, search  # noqa: E402
from noveval.index.build import add_papers, fill_vectors, read_corpus  # noqa: E402
from noveval.index.dense import exact_search  # noqa: E402

# ---------------------------------------------------------------------------- BM25


def test_bm25_scores_match_hand_computed_lucene_bm25():
    docs = ["cat sat mat", "dog dog park", "cat dog"]
    idx = BM25Index.build(docs, BM25Params(stem=False))
    s = idx.scores("dog")
    n, df, k1, b = 3, 2, 1.5, 0.75
    avgdl = (3 + 3 + 2) / 3
    idf = math.log(1 + (n - df + 0.5) / (df + 0.5))

    def term(tf: int, dl: int) -> float:
        return idf * tf / (tf + k1 * (1 - b + b * dl / avgdl))

    assert s[0] == 0.0
    assert s[1] == pytest.approx(term(2, 3), rel=1e-5)
    assert s[2] == pytest.approx(term(1, 2), rel=1e-5)
    rows, _ = idx.search("dog", 10)
    assert list(rows) == [1, 2]  # doc 0 has no query term: not returned


def test_bm25_stopwords_stemming_and_unknown_words():
    idx = BM25Index.build(["Planning robots", "the planned robot"], BM25Params(stem=True))
    assert idx.tokens("the planning of robots zebra") == ["plan", "robot"]  # stopwords gone, stems, unknown dropped
    assert not idx.scores("zebra").any()


def test_rank_scores_ties_mask_and_positive_only():
    s = np.array([1.0, 3.0, 3.0, 0.0, 2.0])
    assert list(rank_scores(s, 3)) == [1, 2, 4]  # tie 1 vs 2: lower row first
    assert list(rank_scores(s, 10)) == [1, 2, 4, 0]  # zero score dropped
    assert list(rank_scores(s, 10, positive_only=False)) == [1, 2, 4, 0, 3]
    assert list(rank_scores(s, 2, np.array([True, False, True, True, True]))) == [2, 4]


# ------------------------------------------------------------------------------ RRF


def test_rrf_hand_computed():
    fused = rrf([[10, 20, 30], [30, 10]], k=60)
    want = {10: 1 / 61 + 1 / 62, 20: 1 / 62, 30: 1 / 63 + 1 / 61}
    assert [r for r, _ in fused] == [10, 30, 20]
    for r, s in fused:
        assert s == pytest.approx(want[r])
    # equal fused score: the better single rank wins, then the lower row
    assert [r for r, _ in rrf([[1, 2], [2, 1]], k=60)] == [1, 2]
    assert [r for r, _ in rrf([[5], [7]], k=1)] == [5, 7]


# ---------------------------------------------------------------------------- dense


def test_exact_search_hand_checked():
    m = np.array([[1, 0], [0.6, 0.8], [0, 1], [0.6, 0.8]], dtype=np.float32)
    rows, sims = exact_search(m, np.array([1, 0], dtype=np.float32), 3)
    assert list(rows) == [0, 1, 3] and sims[1] == pytest.approx(0.6)  # tie 1/3: lower row first
    rows, _ = exact_search(m, np.array([0, 1], dtype=np.float32), 2, rows=np.array([3, 0]))
    assert list(rows) == [3, 0]


# ------------------------------------------------------------------- build / search


@pytest.fixture()
def built(tmp_path: Path):
    corpus = _write(tmp_path / "c.jsonl", PAPERS)
    emb = _embedder(tmp_path)
    idx = build_index(corpus, tmp_path / "idx", embedder=emb, bm25=BM25Params(stem=False), embed_missing=True)
    return idx, emb


def test_build_writes_a_complete_index(built):
    idx, emb = built
    d = idx.describe()
    assert d["papers"] == 5 and d["year_min"] == 2019 and d["year_max"] == 2025
    assert d["fields"] == {"ML": 2, "NLP": 1, "Robotics": 2}
    assert d["embedder"] == {"id": "test/bag-of-words", "dim": 8} and d["dense_filled"] == 5
    assert idx.paper(3)["title"] == "Robot graph planning"
    v = np.asarray(idx.vectors())
    assert np.allclose(np.linalg.norm(v, axis=1), 1, atol=1e-5)
    assert np.allclose(v, emb.encode(idx.texts(range(5))))


def test_search_modes_hand_checked(built):
    idx, emb = built
    bm = search(idx, "graph", mode="bm25", k=5, embedder=emb)
    # "graph" occurs 3x in a (title + abstract), 2x in d; b, c, e lack it
    assert bm.rows() == [0, 3]
    de = search(idx, "graph", mode="dense", k=2, embedder=emb)
    q = emb.encode(["graph"])[0]
    sims = np.asarray(idx.vectors()) @ q
    assert de.rows() == list(np.argsort(-sims, kind="stable")[:2])
    assert de.hits[0].similarity == pytest.approx(float(sims[de.rows()[0]]), abs=1e-6)
    hy = search(idx, "graph", mode="hybrid", k=5, embedder=emb, depth=5)
    dense5 = list(np.argsort(-sims, kind="stable")[:5])
    want = [r for r, _ in rrf([[0, 3], dense5], k=60)]
    assert hy.rows() == want
    assert hy.hits[0].bm25_rank == 1


def test_filters_apply_before_ranking(built):
    idx, emb = built
    m = idx.mask(before_year=2024)
    assert list(np.flatnonzero(m)) == [0, 1, 2]
    assert search(idx, "graph", mode="bm25", k=5, embedder=emb, mask=m).rows() == [0]  # d (2024) filtered
    m2 = idx.mask(fields=["robotics"])
    assert list(np.flatnonzero(m2)) == [1, 3]
    res = search(idx, "graph molecules", mode="dense", k=5, embedder=emb, mask=m2)
    assert set(res.rows()) <= {1, 3} and len(res.rows()) == 2
    assert list(np.flatnonzero(idx.mask(exclude_ids=["a", "e"]))) == [1, 2, 3]


def test_unknown_modes_and_missing_dense_are_input_errors(tmp_path: Path):
    corpus = _write(tmp_path / "c.jsonl", PAPERS)
    idx = build_index(corpus, tmp_path / "bm", bm25=BM25Params(stem=False))
    with pytest.raises(InputError, match="dense part"):
        search(idx, "graph", mode="hybrid", embedder=_embedder(tmp_path))
    with pytest.raises(InputError, match="--retrieval"):
        search(idx, "graph", mode="sparse", with_similarity=False)
    assert search(idx, "graph", mode="bm25", with_similarity=False).rows() == [0, 3]


def test_bad_corpus_rows_name_line_and_field(tmp_path: Path):
    bad = _write(tmp_path / "bad.jsonl", [PAPERS[0], {**PAPERS[1], "year": "soon"}])
    with pytest.raises(InputError) as e:
        read_corpus(bad)
    assert "bad.jsonl:2: year" in str(e.value)
    bad = _write(tmp_path / "bad2.jsonl", [{"title": "", "abstract": "x"}])
    with pytest.raises(InputError, match="1: title"):
        read_corpus(bad)
    assert not (tmp_path / "never").exists()
    with pytest.raises(InputError):
        build_index(bad, tmp_path / "never")
    assert not (tmp_path / "never").exists()


def test_build_refuses_existing_folder(built, tmp_path: Path):
    with pytest.raises(InputError, match="already exists"):
        build_index(tmp_path / "c.jsonl", tmp_path / "idx")


def test_add_appends_skips_known_and_takes_cached_vectors(built, tmp_path: Path):
    idx, emb = built
    new = [PAPERS[0], {"id": "f", "title": "Graph diffusion", "abstract": "diffusion on a graph", "year": 2022, "field": "ML"}]
    emb.encode([f"{new[1]['title']}\n\n{new[1]['abstract']}"])  # its vector is already cached
    out, added, dup = add_papers(idx, _write(tmp_path / "more.jsonl", new), embedder=emb)
    assert (added, dup) == (1, 1) and len(out) == 6
    assert out.dense_coverage() == (6, 6)
    assert search(out, "diffusion", mode="bm25", k=3, with_similarity=False).rows()[0] == 5
    assert [s["added"] for s in out.meta["sources"]] == [5, 1]


# ----------------------------------------------------------------------- resume


def test_partial_dense_fill_resumes_where_it_stopped(tmp_path: Path):
    corpus = _write(tmp_path / "c.jsonl", PAPERS)
    idx = build_index(corpus, tmp_path / "idx", embedder=_embedder(tmp_path / "a"), bm25=BM25Params(stem=False))
    assert idx.dense_coverage() == (0, 5)  # an empty vector cache: nothing to take
    broken = _embedder(tmp_path / "b", fail_after=1, batch_size=2)  # embeds 2 texts, then fails
    with pytest.raises(RuntimeError, match="injected"):
        fill_vectors(idx, broken, chunk=2)
    assert idx.dense_coverage()[0] == 2  # the first chunk was stored and marked done
    good = _embedder(tmp_path / "c", batch_size=2)
    assert fill_vectors(idx, good, chunk=2) == 3  # only the rest
    assert idx.dense_coverage() == (5, 5)
    ref = _embedder(tmp_path / "d").encode(idx.texts(range(5)))
    assert np.allclose(np.asarray(idx.vectors()), ref)


def test_search_on_partial_dense_reranks_bm25_candidates_and_never_writes(tmp_path: Path):
    corpus = _write(tmp_path / "c.jsonl", PAPERS)
    emb = _embedder(tmp_path)
    idx = build_index(corpus, tmp_path / "idx", embedder=emb, bm25=BM25Params(stem=False))
    fill_vectors(idx, emb, [0, 4])  # two rows filled, neither contains "robot"
    res = search(idx, "robot", mode="hybrid", k=5, embedder=emb, depth=5)
    assert "re-ranks the BM25 top 2" in res.note and res.dense_method == "rerank"
    # only the BM25 candidates (rows 1 and 3) are ranked: the filled rows 0 and 4 are not
    # brought in, so what other queries filled cannot change the answer
    assert set(res.rows()) == {1, 3} and res.missing_vectors == 2
    assert idx.dense_coverage()[0] == 2  # nothing written into the index
    assert all(h.similarity is not None for h in res.hits)
    q = emb.encode(["robot"])[0]
    want = sorted([1, 3], key=lambda r: -float(emb.encode(idx.texts([r]))[0] @ q))
    assert [h.row for h in res.hits if h.dense_rank is not None] == sorted(res.rows(), key=lambda r: want.index(r))
    again = search(idx, "robot", mode="hybrid", k=5, embedder=emb, depth=5)
    assert again.hits == res.hits and again.embedded_now == 0 and again.missing_vectors == 2  # vector cache


def test_open_rejects_non_index(tmp_path: Path):
    with pytest.raises(InputError, match="not a noveval index"):
        open_index(tmp_path)


def test_cli_build_info_add_search(tmp_path: Path):
    from typer.testing import CliRunner

    from noveval.cli.main import app

    corpus = _write(tmp_path / "c.jsonl", PAPERS)
    r = CliRunner().invoke(app, ["index", "build", str(corpus), "-o", str(tmp_path / "idx"), "--no-dense"])
    assert r.exit_code == 0, r.output
    assert "papers: 5 (2019-2025" in r.output and "dense: none (BM25 only)" in r.output
    r = CliRunner().invoke(app, ["index", "build", str(corpus), "-o", str(tmp_path / "idx"), "--no-dense"])
    assert r.exit_code == 2 and "already exists" in r.output
    more = _write(tmp_path / "m.jsonl", [{"id": "f", "title": "Graph graph graph", "abstract": "graph", "year": 2020},
                                         {"id": "g", "title": "A paper without its abstract", "year": 2021},
                                         {"id": "h", "title": "A paper with an empty abstract", "abstract": " ",
                                          "year": 2021}])
    r = CliRunner().invoke(app, ["index", "add", str(tmp_path / "idx"), str(more)])
    assert r.exit_code == 0 and "added 1, skipped 2 without an abstract, duplicates 0, papers now 6" in r.output
    r = CliRunner().invoke(app, ["index", "info", str(tmp_path / "idx"), "--json"])
    assert json.loads(r.output)["papers"] == 6
    r = CliRunner().invoke(app, ["index", "search", str(tmp_path / "idx"), "graph", "--retrieval", "bm25",
                                 "--before-year", "2024", "-k", "5"])
    assert r.exit_code == 0, r.output
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert [ln.split(None, 3)[-1] for ln in lines] == ["Graph graph graph", "Graph networks"]
    r = CliRunner().invoke(app, ["index", "search", str(tmp_path / "idx"), "graph", "--retrieval", "hybrid"])
    assert r.exit_code == 2 and "dense part" in r.output
    r = CliRunner().invoke(app, ["index", "info", str(tmp_path / "nope")])
    assert r.exit_code == 2 and "not a noveval index" in r.output


def test_hnsw_is_built_measured_and_used_only_under_wide_filters(tmp_path: Path):
    pytest.importorskip("faiss")
    from noveval.index.dense import build_ann, dense_search

    rng = np.random.default_rng(0)
    words = list(WordBackend.VOCAB)
    rows = [{"id": f"p{i}", "title": " ".join(rng.choice(words, 2)), "abstract": " ".join(rng.choice(words, 9)),
             "year": 2000 + i % 20} for i in range(300)]
    emb = _embedder(tmp_path, batch_size=64)
    idx = build_index(_write(tmp_path / "c.jsonl", rows), tmp_path / "idx", embedder=emb, embed_missing=True)
    info = build_ann(idx, m=8, ef_construction=40, ef_search=64, recall_queries=50)
    assert info["rows"] == 300 and 0.8 <= info["recall_at_10"] <= 1.0
    assert open_index(idx.path).describe()["ann"]["recall_at_10"] == info["recall_at_10"]
    q = emb.encode(["graph molecules robot"])[0]
    exact, _, how = dense_search(idx, q, 10, use_ann=False)
    got, _, how2 = dense_search(idx, q, 10)
    assert how == "exact" and how2 == "hnsw" and len(set(exact) & set(got)) >= 8
    narrow = idx.mask(before_year=2005)  # keeps 25%: searched exactly
    r, _, how3 = dense_search(idx, q, 10, narrow)
    assert how3 == "exact" and all(narrow[r])
    wide = idx.mask(before_year=2015)  # keeps 75%: HNSW with the filter as an ID selector
    r, _, how4 = dense_search(idx, q, 10, wide)
    assert how4 == "hnsw" and all(wide[r])
