"""``novelty score``: index pools, --before-year, per-paper prior-only pools, RND at scale, Ray engine."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("bm25s")

from index_helpers import PAPERS, embedder_for, write_jsonl  # noqa: E402
from noveval.errors import InputError  # noqa: E402
from noveval.index import BM25Params, build_index  # noqa: E402
from noveval.index.novelty import score_papers  # noqa: E402
from noveval.novelty import RND, Yin  # noqa: E402
from noveval.novelty.pool import RNDPool  # noqa: E402

QUERIES = [
    {"id": "q1", "title": "Graph molecules", "abstract": "graph molecules diffusion", "year": 2024},
    {"id": "q2", "title": "Robot planning", "abstract": "robot planning graph", "year": 2022},
    {"id": "q3", "title": "Text", "abstract": "language text", "year": 2026},
]


def test_rnd_pool_equals_rnd_score_on_random_pools():
    rng = np.random.default_rng(3)
    for n, p, q in ((60, 10, 5), (200, 100, 50), (7, 100, 50)):
        pool = rng.normal(size=(n, 16))
        pool /= np.linalg.norm(pool, axis=1, keepdims=True)
        rp = RNDPool(pool, p=p, q=q, block=13)
        ref = RND(p=p, q=q)
        for _ in range(8):
            f = rng.normal(size=16)
            f /= np.linalg.norm(f)
            assert rp.score(f) == ref.score(f, pool)
        assert rp.score(pool[0]) == ref.score(pool[0], pool)  # a copy in the pool


@pytest.fixture()
def files(tmp_path: Path):
    return write_jsonl(tmp_path / "pool.jsonl", PAPERS), write_jsonl(tmp_path / "papers.jsonl", QUERIES)


def test_before_year_and_prior_only_pools(files, tmp_path: Path):
    pool, papers = files
    emb = embedder_for(tmp_path)
    rows = score_papers(papers, pool, metrics=["Yin"], embedder=emb, top_k=5, before_year=2024)
    assert all(r["pool"]["size"] == 3 for r in rows)  # 2019, 2021, 2023
    assert all({n["id"] for n in r["neighbours"]} == {"a", "b", "c"} for r in rows)
    rows = score_papers(papers, pool, metrics=["Yin"], embedder=emb, top_k=5, prior_only=True)
    by = {r["id"]: r for r in rows}
    assert by["q1"]["pool"]["size"] == 3 and by["q2"]["pool"]["size"] == 2 and by["q3"]["pool"]["size"] == 5
    assert {n["id"] for n in by["q2"]["neighbours"]} == {"a", "b"}
    # Yin = min cosine distance to the paper's own prior pool, computed here by hand
    pv = {p["id"]: emb.encode([f"{p['title']}\n\n{p['abstract']}"])[0] for p in PAPERS}
    qv = emb.encode([f"{QUERIES[1]['title']}\n\n{QUERIES[1]['abstract']}"])[0]
    assert by["q2"]["scores"]["Yin"] == pytest.approx(min(1 - float(qv @ pv[k]) for k in ("a", "b")), abs=1e-6)
    # both filters: the tighter year wins
    rows = score_papers(papers, pool, metrics=["Yin"], embedder=emb, top_k=0, prior_only=True, before_year=2023)
    assert [r["pool"]["size"] for r in rows] == [2, 2, 2]


def test_prior_only_needs_years(files, tmp_path: Path):
    pool, _ = files
    papers = write_jsonl(tmp_path / "noyear.jsonl", [QUERIES[0], {"id": "x", "title": "No year", "abstract": "graph"}])
    with pytest.raises(InputError) as e:
        score_papers(papers, pool, metrics=["Yin"], embedder=embedder_for(tmp_path), prior_only=True)
    assert "noyear.jsonl:2: year" in str(e.value)


def test_index_pool_equals_file_pool(files, tmp_path: Path):
    pool, papers = files
    emb = embedder_for(tmp_path)
    idx = build_index(pool, tmp_path / "idx", embedder=emb, bm25=BM25Params(stem=False), embed_missing=True)
    for kw in ({}, {"before_year": 2025}, {"prior_only": True}):
        a = score_papers(papers, pool, metrics=["Yin", "RND"], embedder=emb, top_k=3, **kw)
        b = score_papers(papers, index=idx.path, metrics=["Yin", "RND"], embedder=emb, top_k=3, **kw)
        for x, y in zip(a, b):
            assert x["scores"] == pytest.approx(y["scores"], abs=1e-9)
            assert [n["id"] for n in x["neighbours"]] == [n["id"] for n in y["neighbours"]]
            assert x["pool"]["size"] == y["pool"]["size"]
    got = score_papers(papers, index=idx.path, metrics=["Yin"], embedder=emb, top_k=5, fields=["Robotics"])
    assert all({n["id"] for n in r["neighbours"]} <= {"b", "d"} for r in got)
    with pytest.raises(InputError, match="exactly one"):
        score_papers(papers, pool, index=idx.path, metrics=["Yin"], embedder=emb)


def test_yin_against_a_pool_matches_the_metric(files, tmp_path: Path):
    pool, papers = files
    emb = embedder_for(tmp_path)
    rows = score_papers(papers, pool, metrics=["Yin"], embedder=emb, top_k=1)
    pv = emb.encode([f"{p['title']}\n\n{p['abstract']}" for p in PAPERS])
    qv = emb.encode([f"{q['title']}\n\n{q['abstract']}" for q in QUERIES])
    assert [r["scores"]["Yin"] for r in rows] == pytest.approx(list(Yin().score_many(qv, pv)), abs=1e-12)


@pytest.mark.slow
@pytest.mark.integration
def test_ray_engine_equals_in_process(tmp_path: Path):
    """A local Ray instance with 2 CPUs (started and stopped here) gives the in-process rows."""
    ray = pytest.importorskip("ray")
    from noveval.index.distributed import score_papers_ray

    rng = np.random.default_rng(0)
    words = ["graph", "molecules", "robot", "grasping", "planning", "language", "diffusion", "text", "the", "of"]
    pool_rows = [{"id": f"p{i}", "title": " ".join(rng.choice(words, 3)), "abstract": " ".join(rng.choice(words, 12)),
                  "year": int(2015 + i % 10), "field": "ML"} for i in range(300)]
    papers = [{"id": f"q{i}", "title": " ".join(rng.choice(words, 3)), "abstract": " ".join(rng.choice(words, 12)),
               "year": int(2018 + i % 8)} for i in range(40)]
    pool = write_jsonl(tmp_path / "pool.jsonl", pool_rows)
    pfile = write_jsonl(tmp_path / "papers.jsonl", papers)
    idx = build_index(pool, tmp_path / "idx", embedder="local", bm25=BM25Params(stem=False), embed_missing=True)
    want = score_papers(pfile, index=idx.path, metrics=["Yin", "RND"], embedder="local", top_k=3, prior_only=True)
    assert not ray.is_initialized()
    got = score_papers_ray(pfile, idx.path, metrics=["Yin", "RND"], embedder="local", top_k=3, prior_only=True,
                           batch_size=7, num_cpus=2)
    assert not ray.is_initialized()  # the local instance was stopped
    assert json.dumps(got, sort_keys=True) == json.dumps(want, sort_keys=True)


@pytest.mark.integration
def test_cli_novelty_score_with_year_filters(files, tmp_path: Path):
    from typer.testing import CliRunner

    from noveval.cli.main import app

    pool, papers = files
    out = tmp_path / "rows.jsonl"
    r = CliRunner().invoke(app, ["novelty", "score", "--papers", str(papers), "--pool", str(pool), "--prior-only",
                                 "--metric", "Yin", "-k", "2", "-o", str(out)])
    assert r.exit_code == 0, r.output
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert [x["pool"]["size"] for x in rows] == [3, 2, 5] and "q2: Yin=" in r.output and "(pool 2)" in r.output
    bad = CliRunner().invoke(app, ["novelty", "score", "--papers", str(papers), "--pool", str(pool), "--engine", "ray"])
    assert bad.exit_code == 2 and "--index" in bad.output
    bad = CliRunner().invoke(app, ["novelty", "score", "--papers", str(papers)])
    assert bad.exit_code == 2 and "exactly one of --pool" in bad.output
    from cli_helpers import one_line_exit_2

    one_line_exit_2(CliRunner().invoke(app, ["novelty", "score", "--papers", str(papers), "--pool", str(pool),
                                             "--engine", "spark"]), "--engine", "ray")  # the options model says no


def test_index_pool_without_vectors_states_the_time_and_asks(tmp_path: Path, monkeypatch):
    """An index pool lacking vectors: a probe batch is embedded and timed; a long fill needs embed_missing."""
    import noveval.index.novelty as nov
    from noveval.index.novelty import fill_pool_vectors

    pool = write_jsonl(tmp_path / "big.jsonl", [
        {"id": f"p{i}", "title": f"Paper {i} graph", "abstract": "robot planning " * (1 + i % 5), "year": 2020}
        for i in range(80)])
    papers = write_jsonl(tmp_path / "q.jsonl", QUERIES[:1])
    emb = embedder_for(tmp_path, batch_size=8)
    idx = build_index(pool, tmp_path / "idx", embedder=emb, bm25=BM25Params(stem=False))
    assert idx.dense_coverage() == (0, 80)
    with pytest.raises(InputError) as e:
        fill_pool_vectors(idx, emb, np.arange(80), ask_s=0.0)
    msg = str(e.value)
    # 1 warm-up + 64 probe texts embedded and kept; the rest is what the estimate covers
    assert "15 pool papers have no vector" in msg and "texts/s on 64 of them" in msg
    assert "--embed-missing" in msg and "noveval index embed" in msg
    assert idx.dense_coverage() == (65, 80)
    monkeypatch.setattr(nov, "EMBED_ASK_S", 0.0)
    idx2 = build_index(pool, tmp_path / "idx2", embedder=embedder_for(tmp_path / "other"),
                       bm25=BM25Params(stem=False))
    with pytest.raises(InputError, match="--embed-missing"):
        score_papers(papers, index=idx2.path, metrics=["Yin"], embedder=embedder_for(tmp_path / "other"))
    rows = score_papers(papers, index=idx2.path, metrics=["Yin"], embedder=embedder_for(tmp_path / "other"),
                        embed_missing=True)
    assert rows[0]["pool"]["size"] == 80
    from noveval.index.store import open_index

    assert open_index(idx2.path).dense_coverage() == (80, 80)
    # a filled index asks nothing, whatever the threshold
    assert fill_pool_vectors(open_index(idx2.path), emb, np.arange(80), ask_s=0.0)["missing"] == 0


def _novelty_cli(files, tmp_path: Path, embedder: str) -> tuple[Any, Path]:
    from cli_helpers import cli

    pool, papers = files
    out = tmp_path / "out" / "rows.jsonl"
    return cli("novelty", "score", "--papers", str(papers), "--pool", str(pool), "-e", embedder, "-o", str(out)), out


def test_cli_novelty_score_a_refused_embedder_is_exit_2_and_writes_nothing(files, tmp_path: Path):
    """Through the runner (issue 38): the embedder's endpoint is checked before any paper is embedded."""
    from cli_helpers import closed_port

    res, out = _novelty_cli(files, tmp_path, f"openai-compatible/e@http://127.0.0.1:{closed_port()}/v1")
    assert res.exit_code == 2, res.output
    assert "127.0.0.1" in res.stderr and not out.parent.exists() and "q1:" not in res.stdout


@pytest.mark.parametrize("flag", [["--max-tokens", "5"], ["--temperature", "0.5"], ["--extra-body", "{\"a\": 1}"]])
def test_cli_novelty_score_refuses_generation_controls_it_would_ignore(files, tmp_path: Path, flag: list[str]):
    """No chat call: a generation control would change nothing, so it is refused (exit 2, the flag named)."""
    from cli_helpers import cli

    pool, papers = files
    out = tmp_path / "out" / "rows.jsonl"
    res = cli("novelty", "score", "--papers", str(papers), "--pool", str(pool), "-o", str(out), *flag)
    assert res.exit_code == 2, res.output
    assert flag[0] in res.stderr and "no chat model" in res.stderr and not out.parent.exists()


def test_cli_novelty_score_through_a_remote_embedder_and_one_that_stops_answering(files, tmp_path: Path,
                                                                                  monkeypatch):
    """A real embeddings server: rows as from the in-process call; one that refuses every real request after
    the endpoint check stops the command mid-run (exit 3, no rows written)."""

    from fake_openai import FakeOpenAIServer
    from noveval.models.embed import get_embedder

    monkeypatch.setenv("NOVEVAL_CACHE_DIR", str(tmp_path / "cache"))

    class Refusing(FakeOpenAIServer):
        def _embeddings(self, h: Any, body: dict[str, Any]) -> None:
            if body.get("input") == ["endpoint check"]:
                super()._embeddings(h, body)
            else:
                self._send(h, 400, b'{"error":{"message":"input refused"}}')

    with FakeOpenAIServer() as server:
        spec = f"openai-compatible/e@{server.base_url}"
        res, out = _novelty_cli(files, tmp_path, spec)
        assert res.exit_code == 0, res.output
        pool, papers = files
        want = score_papers(papers, pool, metrics=["Yin", "RND"], embedder=get_embedder(spec, cache=False))
    got = [json.loads(x) for x in out.read_text().splitlines()]
    assert json.dumps(got, sort_keys=True) == json.dumps(want, sort_keys=True)
    assert f"q1: Yin={want[0]['scores']['Yin']:.3f}" in res.stdout

    with Refusing() as bad:
        res, out = _novelty_cli(files, tmp_path / "again", f"openai-compatible/e2@{bad.base_url}")
    assert res.exit_code == 3, res.output
    assert "input refused" in res.stderr and not out.exists()
