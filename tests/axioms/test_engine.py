"""Optimised engine == per-variant recompute (scores and decisions) on the sample."""

from __future__ import annotations

import numpy as np
import pytest

from noveval.benchmarks.axioms import engine
from noveval.benchmarks.axioms.pools import SAMPLE_TASKS, PoolRules, build_task, select_focals
from noveval.benchmarks.axioms.runner import build_variants
from noveval.novelty import RND, FastTextLOF, SemNovel, Yin

RULES = PoolRules(min_refs=20, min_cited=5, ax7_min_pool=40, ax8_min_newer=10, slice_size=20)


@pytest.fixture
def prepared(sample, embedder, paraphraser):
    corpus, refs = sample
    by = {t.name: t for t in SAMPLE_TASKS}
    task = build_task(corpus, by["graph learning"], by["motion planning"], refs)
    items = select_focals(corpus, task, refs, n=5, min_base=20)
    para = dict(zip([it.item_id for it in items],
                    paraphraser([(task.titles[it.local], task.abstracts[it.local]) for it in items]), strict=True))
    variants, extra = build_variants(task, items, RULES, para)
    return task, items, variants, extra, embedder.encode(task.texts)


@pytest.mark.parametrize("name,metric", [("Yin", Yin()), ("RND", RND(p=20, q=5)), ("RND", RND())])
def test_embedding_metrics_fast_equals_naive(prepared, name, metric):
    task, items, variants, _extra, emb = prepared
    fast = engine.score_embedding_fast(metric, emb, items, variants)
    for it in items:
        naive = engine.naive_variant_scores(name, metric, emb, task, it, variants[it.item_id])
        assert naive.keys() == fast[it.item_id].keys()
        for v in naive:
            assert naive[v] == pytest.approx(fast[it.item_id][v], abs=1e-12), v
            # the protocol path (fresh pool matrix) agrees too
            assert metric.score(emb[it.local], emb[variants[it.item_id][v]]) == pytest.approx(naive[v], abs=1e-12)


@pytest.mark.parametrize("variant", ["reference", "normalized"])
def test_fasttext_engine_equals_naive(prepared, variant):
    task, items, variants, _extra, emb = prepared
    m = FastTextLOF(variant=variant, bucket=5_000, n_neighbors=10)
    sub = items[:2]
    fast = engine.score_fasttext(m, task, sub, variants, n_jobs=1)
    for it in sub:
        naive = engine.naive_variant_scores("FastTextLOF", m, emb, task, it, variants[it.item_id])
        assert set(naive) == set(fast[it.item_id])
        for v in naive:
            assert naive[v] == pytest.approx(fast[it.item_id][v], rel=1e-9), v
    approx = engine.score_fasttext(m, task, sub, variants, approx=True)
    assert set(approx[sub[0].item_id]) == set(fast[sub[0].item_id])


def test_semnovel_exact_equals_naive_and_cache(prepared):
    task, items, variants, extra, emb = prepared
    m = SemNovel()
    it = items[0]
    one = {it.item_id: {k: variants[it.item_id][k] for k in ("base", "copy")}}
    cache: dict = {}
    got = engine.score_semnovel_exact(m, emb, [it], one, cache=cache)
    for v, rows in one[it.item_id].items():
        assert got[it.item_id][v] == pytest.approx(m.score(emb[it.local], emb[rows]), rel=1e-9)
    assert len(cache) == 2
    again = engine.score_semnovel_exact(m, emb, [it], one, cache=cache,
                                        on_done=lambda k, s: pytest.fail("cache miss"))
    assert again == got
    approx = engine.score_semnovel_approx(m, emb, [it], {it.item_id: variants[it.item_id]}, extra)
    assert set(approx[it.item_id]) == set(variants[it.item_id])
    assert np.isfinite(list(approx[it.item_id].values())).all()


@pytest.mark.parametrize("approx", [False, True])
def test_fasttext_cache_skips_training_and_changes_nothing(prepared, approx, monkeypatch):
    task, items, variants, _extra, _emb = prepared
    m = FastTextLOF(bucket=5_000, n_neighbors=10)
    sub = items[:3]
    plain = engine.score_fasttext(m, task, sub, variants, approx=approx)
    cache: dict = {}
    first = engine.score_fasttext(m, task, sub, variants, approx=approx, cache=cache)
    assert first == plain  # a cache never changes a score (approx Ax5/6 are not keyed like base)
    if not approx:
        assert len(cache) == sum(len(v) for v in first.values())
        def no_training(self, titles):  # noqa: ANN001
            raise AssertionError("trained although every score was cached")

        monkeypatch.setattr(FastTextLOF, "train", no_training)
        again = engine.score_fasttext(m, task, sub, variants, cache=cache)
        assert again == first
    else:
        assert not any(k is None for k in cache)


@pytest.mark.slow
def test_process_pool_gives_the_same_scores(prepared):
    """n_jobs > 1 runs fits in spawned workers (no fork after torch); results do not change."""
    task, items, variants, _extra, emb = prepared
    it = items[0]
    one = {it.item_id: {k: variants[it.item_id][k] for k in ("base", "copy", "distant") if k in variants[it.item_id]}}
    m = SemNovel()
    assert engine.score_semnovel_exact(m, emb, [it], one, n_jobs=2) == engine.score_semnovel_exact(m, emb, [it], one)
    ft = FastTextLOF(bucket=5_000, n_neighbors=10)
    assert engine.score_fasttext(ft, task, items[:2], variants, n_jobs=2) == engine.score_fasttext(
        ft, task, items[:2], variants)
