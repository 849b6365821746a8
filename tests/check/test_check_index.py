"""``noveval check --index``: build on first use, BM25-first answers, metric pools read from the index."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("bm25s")

from index_helpers import embedder_for, write_jsonl  # noqa: E402
from noveval.check.indexed import RetrievalOptions, check_with_index, metric_pool  # noqa: E402
from noveval.check.inputs import load_input  # noqa: E402
from noveval.check.opinion import CheckOptions  # noqa: E402
from noveval.errors import InputError  # noqa: E402
from noveval.index import BM25Params, build_index, open_index  # noqa: E402

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
    assert r["retrieval"]["mode"] == "hybrid" and r["retrieval"]["embedded_now"] > 0
    assert "BM25 top" in r["retrieval"]["note"]
    sims = [n["similarity"] for n in r["neighbours"]]
    assert all(np.isfinite(sims))
    # second run: the index exists, nothing is built again
    r2 = check_with_index(load_input(_idea(tmp_path)), tmp_path / "idx", options=OPTS, embedder=emb,
                          before_year=2020, fields=["ml"])
    assert "index_build_s" not in r2["timings"]
    assert [n["id"] for n in r2["neighbours"]] == [n["id"] for n in r["neighbours"]]


def test_metric_pool_comes_from_the_index_without_re_embedding(tmp_path: Path):
    emb = embedder_for(tmp_path)
    idx = build_index(_corpus(tmp_path), tmp_path / "idx", embedder=emb, bm25=BM25Params(stem=False), embed_missing=True)
    encoded = emb.stats["encoded"]
    r = check_with_index(load_input(_idea(tmp_path)), idx.path, options=OPTS, embedder=emb)
    assert emb.stats["encoded"] - encoded == 1  # only the input itself
    assert r["corpus"]["metric_pool"] == 40 and r["corpus"]["metric_pool_source"].startswith("random sample of 40")
    assert {m["name"] for m in r["metrics"]} == {"Yin", "RND"} and all(m["percentile"] is not None for m in r["metrics"])
    # Yin of the input equals 1 - max cosine over the pool rows the check used
    rows, _ = metric_pool(idx, np.ones(idx.n, dtype=bool), 40, OPTS.seed)
    q = emb.encode([load_input(_idea(tmp_path)).embedding_text()])[0]
    yin = next(m for m in r["metrics"] if m["name"] == "Yin")
    assert yin["score"] == pytest.approx(1 - float((np.asarray(idx.vectors()[rows]) @ q).max()), abs=1e-6)
    # exact dense retrieval: the first neighbour is the most similar paper of the whole index
    best = int(np.argmax(np.asarray(idx.vectors()) @ q))
    dense = check_with_index(load_input(_idea(tmp_path)), idx.path, options=OPTS, embedder=emb,
                             retrieval=RetrievalOptions("dense"))
    assert dense["neighbours"][0]["index"] == best and dense["retrieval"]["dense_method"] == "exact"


def test_bm25_only_index_uses_a_topical_pool(tmp_path: Path):
    emb = embedder_for(tmp_path)
    idx = build_index(_corpus(tmp_path), tmp_path / "idx", embedder=emb, bm25=BM25Params(stem=False))
    assert idx.dense_coverage()[0] == 0
    r = check_with_index(load_input(_idea(tmp_path)), idx.path, options=OPTS, embedder=emb,
                         retrieval=RetrievalOptions("hybrid", depth=30))
    assert r["corpus"]["metric_pool"] == r["retrieval"]["embedded_now"] <= 30
    assert "topical pool" in r["corpus"]["metric_pool_source"]
    assert open_index(idx.path).dense_coverage()[0] == r["retrieval"]["embedded_now"]  # stored for next time


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
    assert "**Retrieval:** hybrid over the index" in md and "metric pool:" in md
    bad = CliRunner().invoke(app, ["check", str(_idea(tmp_path)), "--index", str(tmp_path / "idx"),
                                   "--retrieval", "sparse", "-o", str(tmp_path / "o2")])
    assert bad.exit_code == 2 and "--retrieval" in bad.output and not (tmp_path / "o2").exists()


def test_index_without_dense_part_says_why_metrics_are_missing(tmp_path: Path):
    emb = embedder_for(tmp_path)
    idx = build_index(_corpus(tmp_path), tmp_path / "idx", bm25=BM25Params(stem=False))
    r = check_with_index(load_input(_idea(tmp_path)), idx.path, options=OPTS, embedder=emb,
                         retrieval=RetrievalOptions("bm25"))
    assert len(r["neighbours"]) == 5 and all(np.isfinite(n["similarity"]) for n in r["neighbours"])
    assert all(m["score"] is None and "no dense part" in m["note"] for m in r["metrics"])
