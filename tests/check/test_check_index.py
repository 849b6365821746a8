"""``noveval check --index``: build on first use, a pool that is a function of (index, input, options), the
same check.json whatever ran before, evidence per contribution."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("bm25s")

from index_helpers import embedder_for, write_jsonl  # noqa: E402
from noveval.check.indexed import RetrievalOptions, check_with_index  # noqa: E402
from noveval.check.inputs import load_input  # noqa: E402
from noveval.check.opinion import CheckOptions  # noqa: E402
from noveval.errors import InputError  # noqa: E402
from noveval.index import BM25Params, build_index, open_index, search  # noqa: E402
from noveval.index.build import fill_vectors  # noqa: E402

WORDS = ["graph", "molecules", "robot", "grasping", "planning", "language", "diffusion", "text"]


def _corpus(tmp_path: Path, n: int = 80) -> Path:
    rng = np.random.default_rng(1)
    rows = [{"id": f"p{i}", "title": f"{WORDS[i % 8]} {WORDS[(i * 3) % 8]} study {i}",
             "abstract": " ".join(rng.choice(WORDS, 10)), "year": 2010 + i % 16, "field": "ML" if i % 2 else "CV"}
            for i in range(n)]
    return write_jsonl(tmp_path / "corpus.jsonl", rows)


def _idea(tmp_path: Path) -> Path:
    p = tmp_path / "idea.md"
    p.write_text("# Robot graph planning\n\n## Problem\nrobot planning\n\n## Objective\ngraph planning\n\n"
                 "## Approach\nrobot graph grasping planning\n", encoding="utf-8")
    return p


OPTS = CheckOptions(judge=False, top_k=5, pool_size=40, metrics=("Yin", "RND"), min_papers=10)


def test_builds_the_index_on_first_use_and_filters_before_ranking(tmp_path: Path):
    emb = embedder_for(tmp_path)
    r = check_with_index(load_input(_idea(tmp_path)), tmp_path / "idx", corpus=_corpus(tmp_path), options=OPTS,
                         embedder=emb, before_year=2020, fields=["ml"])
    assert "index_build_s" in r["timings"]
    idx = open_index(tmp_path / "idx")
    kept = set(np.flatnonzero(idx.mask(before_year=2020, fields=["ML"])))
    assert r["corpus"]["papers"] == len(kept) and r["corpus"]["year_max"] <= 2019
    assert all(n["index"] in kept for n in r["neighbours"])
    assert r["retrieval"]["mode"] == "hybrid" and r["timings"]["vectors_missing_from_index"] > 0
    assert "BM25 top" in r["retrieval"]["note"]
    sims = [n["similarity"] for n in r["neighbours"]]
    assert all(np.isfinite(sims))
    # second run: the index exists, nothing is built again
    r2 = check_with_index(load_input(_idea(tmp_path)), tmp_path / "idx", options=OPTS, embedder=emb,
                          before_year=2020, fields=["ml"])
    assert "index_build_s" not in r2["timings"]
    assert [n["id"] for n in r2["neighbours"]] == [n["id"] for n in r["neighbours"]]


def _without_timings(r: dict) -> str:
    return json.dumps({k: v for k, v in r.items() if k != "timings"}, sort_keys=True)


def test_metric_pool_is_the_nearest_papers_and_a_filled_index_embeds_nothing_for_it(tmp_path: Path):
    emb = embedder_for(tmp_path)
    idx = build_index(_corpus(tmp_path), tmp_path / "idx", embedder=emb, bm25=BM25Params(stem=False), embed_missing=True)
    inp = load_input(_idea(tmp_path))
    encoded = emb.stats["encoded"]
    r = check_with_index(inp, idx.path, options=OPTS, embedder=emb)
    # only the input and its contributions are embedded: every pool vector comes from the index
    assert emb.stats["encoded"] - encoded == 1 + len(inp.contributions)
    assert r["timings"]["vectors_missing_from_index"] == 0 and r["timings"]["vectors_embedded_now"] == 0
    # the pool is the first 40 rows of the hybrid ranking over the BM25 candidates, whatever has vectors
    text = inp.embedding_text()
    ranking = search(idx, text, mode="hybrid", k=40, embedder=emb, depth=max(100, 40), dense_over="candidates")
    pool = np.asarray(ranking.rows())
    assert r["corpus"]["metric_pool"] == 40
    assert r["corpus"]["metric_pool_source"] == "the 40 nearest papers by hybrid retrieval"
    q = emb.encode([text])[0]
    yin = next(m for m in r["metrics"] if m["name"] == "Yin")
    assert yin["score"] == pytest.approx(1 - float((np.asarray(idx.vectors()[pool]) @ q).max()), abs=1e-6)
    # "closest prior work" is the most similar paper of the pool, whatever its rank
    sims = np.asarray(idx.vectors()[pool]) @ q
    assert r["closest"]["index"] == int(pool[int(np.argmax(sims))])
    assert r["closest"]["similarity"] == pytest.approx(float(sims.max()), abs=1e-6)
    # dense retrieval re-ranks the BM25 candidates: the first neighbour is the most similar of them
    cand = idx.bm25_search(text, 100)[0]
    cand = np.sort(cand)
    best = int(cand[int(np.argmax(np.asarray(idx.vectors()[cand]) @ q))])
    dense = check_with_index(inp, idx.path, options=OPTS, embedder=emb, retrieval=RetrievalOptions("dense"))
    assert dense["neighbours"][0]["index"] == best and dense["retrieval"]["dense_method"] == "rerank"
    assert dense["corpus"]["metric_pool_source"] == "the 40 nearest papers by dense retrieval"


def test_same_check_json_after_an_unrelated_dense_search(tmp_path: Path):
    """The issue's bug: a dense search filled vectors into the index and so changed the next check's pool."""
    emb = embedder_for(tmp_path)
    idx = build_index(_corpus(tmp_path, 120), tmp_path / "idx", embedder=emb, bm25=BM25Params(stem=False))
    fill_vectors(idx, emb, np.arange(0, 120, 7))  # partly filled, as an index still filling is
    before = open_index(idx.path).dense_coverage()
    opts = CheckOptions(judge=False, top_k=5, pool_size=30, metrics=("Yin", "RND", "SemNovel"), min_papers=10)
    first = check_with_index(load_input(_idea(tmp_path)), idx.path, options=opts, embedder=emb)
    other = search(open_index(idx.path), "molecules diffusion text language", mode="dense", k=10, embedder=emb)
    assert other.missing_vectors > 0  # it needed vectors the index lacks ...
    assert open_index(idx.path).dense_coverage() == before  # ... and wrote none into the index
    again = check_with_index(load_input(_idea(tmp_path)), idx.path, options=opts, embedder=emb)
    assert _without_timings(again) == _without_timings(first)
    assert first["timings"]["vectors_embedded_now"] > 0 and again["timings"]["vectors_embedded_now"] == 0
    assert first["timings"]["vectors_missing_from_index"] == again["timings"]["vectors_missing_from_index"] > 0
    assert "re-ranks the BM25 top" in first["retrieval"]["note"]


def test_bm25_only_index_embeds_the_pool_for_the_check_and_says_so(tmp_path: Path):
    emb = embedder_for(tmp_path)
    idx = build_index(_corpus(tmp_path), tmp_path / "idx", embedder=emb, bm25=BM25Params(stem=False))
    assert idx.dense_coverage()[0] == 0
    r = check_with_index(load_input(_idea(tmp_path)), idx.path, options=OPTS, embedder=emb,
                         retrieval=RetrievalOptions("hybrid", depth=30))
    n = r["corpus"]["metric_pool"]
    assert 0 < n <= 40 and r["timings"]["vectors_missing_from_index"] >= n
    assert r["retrieval"]["dense_method"] == "rerank"
    assert all(m["percentile"] is not None for m in r["metrics"])
    assert open_index(idx.path).dense_coverage()[0] == 0  # the index is not written by a check


def test_evidence_per_contribution_quotes_abstract_sentences(tmp_path: Path):
    emb = embedder_for(tmp_path)
    rows = [{"id": f"p{i}", "title": f"study {i}", "abstract": "Unrelated text about diffusion. More text here.",
             "year": 2015} for i in range(60)]
    rows.append({"id": "hit", "title": "Robot planning on graphs", "year": 2016,
                 "abstract": "We review old work. We plan robot grasping paths with graph planning methods. The end."})
    idx = build_index(write_jsonl(tmp_path / "c.jsonl", rows), tmp_path / "idx", embedder=emb,
                      bm25=BM25Params(stem=False), embed_missing=True)
    idea = tmp_path / "idea2.md"
    idea.write_text("# Robot graph planning\n\n## Problem\nRobot planning is slow.\n\n## Objective\nFaster text "
                    "diffusion for language models.\n\n## Approach\nWe plan robot grasping with graph planning.\n",
                    encoding="utf-8")
    r = check_with_index(load_input(idea), idx.path, options=OPTS, embedder=emb)
    ev = r["evidence"]["contributions"]
    assert [e["text"] for e in ev] == ["Faster text diffusion for language models.",
                                       "We plan robot grasping with graph planning."]
    assert ev[0]["verdict"] == "new" and all(not w["quotes"] for w in ev[0]["works"])  # nothing overlaps it
    approach = ev[1]
    top = approach["works"][0]
    assert top["title"] == "Robot planning on graphs"
    quote = top["quotes"][0]["sentence"]
    assert quote == "We plan robot grasping paths with graph planning methods."  # verbatim from the abstract
    assert quote in rows[-1]["abstract"]
    assert approach["verdict"] in ("partly anticipated", "anticipated") and approach["evidence_rank"] == top["rank"]
    assert f"[{top['rank']}]" in r["verdict"]["summary"]  # the opinion cites its evidence


def test_wrong_embedder_and_empty_filters_are_input_errors(tmp_path: Path):
    emb = embedder_for(tmp_path)
    idx = build_index(_corpus(tmp_path), tmp_path / "idx", embedder=emb, bm25=BM25Params(stem=False))
    with pytest.raises(InputError, match="no paper left"):
        check_with_index(load_input(_idea(tmp_path)), idx.path, options=OPTS, embedder=emb, before_year=1900)
    other = embedder_for(tmp_path / "o")
    other.backend.model_id = "test/other"
    with pytest.raises(InputError, match="holds test/bag-of-words"):
        check_with_index(load_input(_idea(tmp_path)), idx.path, options=OPTS, embedder=other)
    with pytest.raises(InputError, match="pass --corpus"):
        check_with_index(load_input(_idea(tmp_path)), tmp_path / "nothing", options=OPTS, embedder=emb)


@pytest.mark.integration
def test_cli_check_with_index_and_bundled_embedder(tmp_path: Path):
    from typer.testing import CliRunner

    from noveval.cli.main import app

    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["check", str(_idea(tmp_path)), "--corpus", str(_corpus(tmp_path, 60)), "--index",
                                   str(tmp_path / "idx"), "--no-judge", "--top-k", "3", "--metric-pool", "30",
                                   "--candidates", "20", "-o", str(out)])
    assert res.exit_code == 0, res.output
    r = json.loads((out / "check.json").read_text())
    assert r["corpus"]["embedder"].startswith("local/all-MiniLM-L6-v2") and len(r["neighbours"]) == 3
    md = (out / "check.md").read_text()
    assert "**Retrieval:** hybrid over the index" in md and "metric pool and evidence candidates:" in md
    bad = CliRunner().invoke(app, ["check", str(_idea(tmp_path)), "--index", str(tmp_path / "idx"),
                                   "--retrieval", "sparse", "-o", str(tmp_path / "o2")])
    assert bad.exit_code == 2 and "--retrieval" in bad.output and not (tmp_path / "o2").exists()


def test_index_without_dense_part_embeds_for_the_check(tmp_path: Path):
    emb = embedder_for(tmp_path)
    idx = build_index(_corpus(tmp_path), tmp_path / "idx", bm25=BM25Params(stem=False))
    r = check_with_index(load_input(_idea(tmp_path)), idx.path, options=OPTS, embedder=emb,
                         retrieval=RetrievalOptions("bm25"))
    assert len(r["neighbours"]) == 5 and all(np.isfinite(n["similarity"]) for n in r["neighbours"])
    assert r["timings"]["vectors_missing_from_index"] == r["corpus"]["metric_pool"] > 0
    assert all(m["percentile"] is not None for m in r["metrics"])


@pytest.mark.integration
def test_cli_same_check_json_after_an_unrelated_dense_index_search(tmp_path: Path):
    """The issue's acceptance test through the CLI with the bundled MiniLM: check, an unrelated dense
    `index search` on the same index, the same check: the same check.json but for timings."""
    from typer.testing import CliRunner

    from noveval.cli.main import app

    corpus, idx = _corpus(tmp_path, 70), tmp_path / "idx"
    args = ["check", str(_idea(tmp_path)), "--index", str(idx), "--no-judge", "--top-k", "3", "--metric-pool", "25",
            "--candidates", "25"]
    r1 = CliRunner().invoke(app, [*args, "--corpus", str(corpus), "-o", str(tmp_path / "a")])
    assert r1.exit_code == 0, r1.output
    s = CliRunner().invoke(app, ["index", "search", str(idx), "diffusion text language molecules",
                                 "--retrieval", "dense", "-k", "5"])
    assert s.exit_code == 0, s.output
    r2 = CliRunner().invoke(app, [*args, "-o", str(tmp_path / "b")])
    assert r2.exit_code == 0, r2.output
    a, b = (json.loads((tmp_path / d / "check.json").read_text()) for d in ("a", "b"))
    assert "index_build_s" in a["timings"] and "index_build_s" not in b["timings"]
    assert _without_timings(a) == _without_timings(b)
    assert (tmp_path / "a" / "check.md").read_text() == (tmp_path / "b" / "check.md").read_text()


@pytest.mark.parametrize("mode", ["hybrid", "dense", "bm25"])
def test_same_check_json_with_no_half_or_all_vectors_in_the_index(tmp_path: Path, mode: str):
    """Issue 36: the pool, the evidence and the metrics do not depend on how many vectors the index holds.
    (Before, a complete index ranked every row by dense similarity and an incomplete one only the BM25
    candidates, so filling the vectors changed the pool, the cited works and every percentile.)"""
    emb = embedder_for(tmp_path)
    idx = build_index(_corpus(tmp_path, 120), tmp_path / "idx", embedder=emb, bm25=BM25Params(stem=False))
    opts = CheckOptions(judge=False, top_k=5, pool_size=30, metrics=("Yin", "RND", "SemNovel"), min_papers=10)

    def run() -> dict:
        return check_with_index(load_input(_idea(tmp_path)), idx.path, options=opts, embedder=emb,
                                retrieval=RetrievalOptions(mode, depth=30))

    empty = run()
    fill_vectors(open_index(idx.path), emb, np.arange(1, 120, 2))  # an index still filling
    half = run()
    fill_vectors(open_index(idx.path), emb)  # what `noveval index embed` does
    assert open_index(idx.path).dense_coverage() == (120, 120)
    full = run()
    assert _without_timings(empty) == _without_timings(half) == _without_timings(full)
    missing = [r["timings"]["vectors_missing_from_index"] for r in (empty, half, full)]
    assert missing[0] == 30 and 0 < missing[1] < 30 and missing[2] == 0
    if mode != "bm25":
        assert full["retrieval"]["dense_method"] == "rerank"
    # the pool is the BM25 top 30 (hybrid and dense only reorder it): the whole index was not ranked
    bm = set(open_index(idx.path).bm25_search(load_input(_idea(tmp_path)).embedding_text(), 30)[0].tolist())
    assert {n["index"] for n in full["neighbours"]} <= bm


@pytest.mark.integration
@pytest.mark.slow
def test_cli_same_check_json_before_and_after_index_embed(tmp_path: Path):
    """Issue 36's acceptance test through the CLI with the bundled MiniLM: a check on an index without
    its vectors, `noveval index embed`, the same check: the same check.json but for timings."""
    import uuid

    from typer.testing import CliRunner

    from noveval.cli.main import app

    tag = uuid.uuid4().hex[:8]  # titles no vector cache holds (CI may keep NOVEVAL_CACHE_DIR between runs)
    rows = [json.loads(line) for line in _corpus(tmp_path, 70).read_text().splitlines()]
    corpus = write_jsonl(tmp_path / "c36.jsonl", [{**r, "title": f"{r['title']} {tag}"} for r in rows])
    idx = tmp_path / "idx"
    b = CliRunner().invoke(app, ["index", "build", str(corpus), "-o", str(idx)])
    assert b.exit_code == 0, b.output
    args = ["check", str(_idea(tmp_path)), "--index", str(idx), "--no-judge", "--top-k", "3", "--metric-pool", "20",
            "--candidates", "20"]
    r1 = CliRunner().invoke(app, [*args, "-o", str(tmp_path / "a")])
    assert r1.exit_code == 0, r1.output
    e = CliRunner().invoke(app, ["index", "embed", str(idx)])
    assert e.exit_code == 0 and "70 of 70 vectors filled" in e.output, e.output
    r2 = CliRunner().invoke(app, [*args, "-o", str(tmp_path / "b")])
    assert r2.exit_code == 0, r2.output
    a, b2 = (json.loads((tmp_path / d / "check.json").read_text()) for d in ("a", "b"))
    assert a["timings"]["vectors_missing_from_index"] == 20 and b2["timings"]["vectors_missing_from_index"] == 0
    assert _without_timings(a) == _without_timings(b2)
    assert (tmp_path / "a" / "check.md").read_text() == (tmp_path / "b" / "check.md").read_text()
