"""End to end on the shipped synthetic sample (fast embedder, fake paraphraser)."""

from __future__ import annotations

import json

import pytest

from noveval.benchmarks.axioms.axioms import AXIOMS
from noveval.benchmarks.axioms.contract import build_config
from noveval.benchmarks.axioms.options import AxiomsOptions
from noveval.benchmarks.axioms.runner import run_axioms


def _cfg(**kw):
    """The sample's config (pools of 20-40 papers, RND P=20/Q=5) for two of its tasks, 6 focal papers each."""
    base = dict(sample=True, task=["graph learning", "motion planning"], focal=6, jobs=1)
    base.update(kw)
    return build_config(AxiomsOptions(**base), paraphrase_model=None)


@pytest.mark.slow
def test_run_and_resume(tmp_path, sample, embedder, paraphraser):
    corpus, refs = sample
    cfg = _cfg(semnovel="approx", fasttext="approx")
    res = run_axioms(cfg, tmp_path, corpus=corpus, refs=refs, embedder=embedder,
                        paraphraser=paraphraser)
    rows = [json.loads(x) for x in (tmp_path / "per_item.jsonl").read_text().splitlines()]
    assert len(rows) == 2 * 6
    assert (tmp_path / "heatmap.png").stat().st_size > 1000
    tab = res["extra"]["table"]
    assert set(tab["overall"]) == set(cfg.metrics)
    # Ax1 is near-saturated for Yin (a copy gives distance 0)
    assert tab["overall"]["Yin"]["Ax1"] == 100.0
    assert tab["overall"]["FastTextLOF"]["Ax3grad"] is None
    for r in rows:
        assert set(r["checks"]["Yin"]) == set(AXIOMS)
    # Ax5/6 only for the ML papers with a parsed reference list
    assert any(r["checks"]["RND"]["Ax5"] is not None for r in rows)
    assert all(r["checks"]["RND"]["Ax5"] is None for r in rows if r["field"] == "Robotics")
    # resume: nothing recomputed, same table
    res2 = run_axioms(cfg, tmp_path, corpus=corpus, refs=refs, embedder=embedder,
                         paraphraser=paraphraser)
    assert res2["extra"]["table"] == tab
    assert res2["extra"]["timings_s"] == {}


@pytest.mark.slow
def test_exact_semnovel_fits_are_shared_across_run_dirs(tmp_path, monkeypatch, sample, embedder, paraphraser):
    from noveval.novelty.fitcache import FitCache

    monkeypatch.setenv("NOVEVAL_CACHE_DIR", str(tmp_path / "cache"))
    corpus, refs = sample
    cfg = _cfg(metric=["SemNovel"], focal=2, task=["graph learning"], seeds=2)
    a = run_axioms(cfg, tmp_path / "a", corpus=corpus, refs=refs, embedder=embedder,
                      paraphraser=paraphraser)
    fits = FitCache(tmp_path / "cache" / "novelty_fits.sqlite")
    n = len(fits)
    rows_a = [json.loads(x) for x in (tmp_path / "a" / "per_item.jsonl").read_text().splitlines()]
    n_variants = sum(len(r["scores"]["SemNovel"]) for r in rows_a)
    assert n_variants < n <= 2 * n_variants  # one fit per distinct (pool, focal) content and seed
    # two seeds: the first is the row's scores, the second differs somewhere (t-SNE is seeded)
    for r in rows_a:
        assert list(r["by_seed"]["SemNovel"]) == ["0", "1"]
        assert r["by_seed"]["SemNovel"]["0"]["scores"] == r["scores"]["SemNovel"]
        assert r["by_seed"]["SemNovel"]["0"]["checks"] == r["checks"]["SemNovel"]
    assert any(r["by_seed"]["SemNovel"]["1"]["scores"] != r["scores"]["SemNovel"] for r in rows_a)
    assert a["extra"]["table"]["seeds"] == {"SemNovel": ["0", "1"]}
    # another run directory: every fit comes from the cache, scores are identical
    b = run_axioms(cfg, tmp_path / "b", corpus=corpus, refs=refs, embedder=embedder,
                      paraphraser=paraphraser)
    assert len(fits) == n
    rows_b = [json.loads(x) for x in (tmp_path / "b" / "per_item.jsonl").read_text().splitlines()]
    assert [r["scores"] for r in rows_b] == [r["scores"] for r in rows_a]
    assert b["extra"]["table"] == a["extra"]["table"]


def test_ax3_unseen_counts_edits_that_embed_like_the_original():
    import numpy as np

    from noveval.benchmarks.axioms.runner import ax3_unseen

    emb = np.array([[1.0, 0.0], [1.0, 0.0], [0.9, 0.1], [1.0, 0.0], [0.5, 0.5]])
    extra = {"a": {"nn": 0, "cov1": 1, "cov2": 2, "cov4": 3}, "b": {"paraphrase": 4}}
    assert ax3_unseen(emb, extra) == {"edits": 3, "unseen": 2}


def test_resume_after_a_kill_keeps_every_finished_row_and_recomputes_only_the_rest(tmp_path, sample, embedder,
                                                                                   paraphraser):
    """Axioms resumes through RunDir: a torn last line is skipped, the rows after it are kept."""
    corpus, refs = sample
    cfg = _cfg(semnovel="approx", fasttext="approx", metric=["Yin", "RND"])
    full = run_axioms(cfg, tmp_path / "full", corpus=corpus, refs=refs, embedder=embedder,
                         paraphraser=paraphraser)
    f = tmp_path / "full" / "per_item.jsonl"
    lines = f.read_text().splitlines()
    cut = tmp_path / "cut"
    cut.mkdir()
    (cut / "config.json").write_text((tmp_path / "full" / "config.json").read_text())
    # a kill mid-write: the first task's rows, then a torn row, then (another process) a later row
    first = [x for x in lines if json.loads(x)["task"] == "graph learning"]
    (cut / "per_item.jsonl").write_text("\n".join(first) + "\n" + lines[-1][:25])
    res = run_axioms(cfg, cut, corpus=corpus, refs=refs, embedder=embedder, paraphraser=paraphraser)
    assert res["extra"]["table"] == full["extra"]["table"]
    assert set(res["extra"]["task_stats"]) == {"motion planning"}  # only the unfinished task ran again
    assert (cut / "per_item.jsonl").read_text() == f.read_text()  # ends identical to the uninterrupted run
    cfg_json = json.loads((cut / "config.json").read_text())
    assert cfg_json["benchmark"] == "axioms" and cfg_json["resumed"] == 1 and "noveval_version" in cfg_json


@pytest.mark.slow
def test_ax3_append_embeds_the_edited_neighbours_with_a_longer_window(tmp_path, monkeypatch, sample):
    """Issue 35: a short-window embedder misses appended fragments; under append the Ax3 texts get 512 tokens."""
    from noveval.benchmarks.axioms import runner
    from noveval.models.embed import get_embedder

    corpus, refs = sample
    cfg = _cfg(metric=["Yin"], task=["graph learning"], embedder="local:fp32@24")
    emb = get_embedder("local:fp32@24", cache=str(tmp_path / "v.sqlite"))
    res = run_axioms(cfg, tmp_path / "long", corpus=corpus, refs=refs, embedder=emb)
    seen = res["extra"]["ax3_unseen"]
    assert seen["edits"] > 0 and seen["unseen"] == 0
    assert res["embedder"] == "local/all-MiniLM-L6-v2@24"
    assert res["extra"]["embedder_resolved"]["max_tokens"] == 24
    assert res["extra"]["ax3_embedder_resolved"]["id"] == "local/all-MiniLM-L6-v2@512"
    assert "departs from this system's paper setting local:bf16@256" in res["extra"]["embedder_note"]
    conf = json.loads((tmp_path / "long" / "config.json").read_text())["config"]
    assert conf["ax3_embedder_resolved"]["max_tokens"] == 512
    assert f"Ax3: 0 of {seen['edits']} edits (0.0%) invisible" in (tmp_path / "long" / "table.md").read_text()
    monkeypatch.setattr(runner, "ax3_embedder", lambda cfg, emb: None)  # the 24-token window alone
    short = run_axioms(cfg, tmp_path / "short", corpus=corpus, refs=refs, embedder=emb)["extra"]["ax3_unseen"]
    assert short["edits"] == seen["edits"] and short["unseen"] == short["edits"]  # every fragment past 24 tokens
    pre = run_axioms(_cfg(metric=["Yin"], task=["graph learning"], ax3_position="prepend"), tmp_path / "pre",
                        corpus=corpus, refs=refs, embedder=emb)
    assert "ax3_embedder_resolved" not in pre["extra"]
    assert "a deviation from the paper" in (tmp_path / "pre" / "table.md").read_text()
