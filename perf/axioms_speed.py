"""Speed of the axioms engine versus a straightforward per-variant recompute.

For one task and a subset of focal papers, every pool variant (Liu & Zhai 2026 §3) is
scored twice: by ``noveval.benchmarks.axioms.engine`` (index sets over one similarity
matrix, shared focal-independent work, pooled processes) and by a naive loop that refits
the metric on a fresh copy of each variant's pool. The pass/fail decisions must be
identical (asserted). For SemNovel and FastTextLOF the fast approximations are also
timed and their decision agreement with the exact computation reported.
Times are medians over ``--repeats`` runs (RND/Yin) with warm embedding caches.

Usage: python perf/axioms_speed.py [--task "semantic segmentation"] [--focal 20]
       [--slow-focal 4] [--repeats 3] [--out benchmarks/results/axioms_speed.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np

from noveval.benchmarks.axioms import engine
from noveval.benchmarks.axioms.axioms import agreement as shared_agreement
from noveval.benchmarks.axioms.axioms import decide
from noveval.benchmarks.axioms.pools import (
    DEFAULT_TASKS,
    PoolRules,
    build_task,
    load_references,
    select_focals,
)
from noveval.benchmarks.axioms.runner import build_variants
from noveval.corpus import load_corpus
from noveval.novelty import RND, FastTextLOF, SemNovel, Yin


def decisions(scores: dict, title_only: bool = False) -> dict:
    return {iid: decide(v, title_only=title_only) for iid, v in scores.items()}


def agreement(a: dict, b: dict) -> tuple[float, int]:
    frac, n = shared_agreement(a, b)["all"]
    return (frac if frac is not None else float("nan")), n


def timed(fn, repeats: int = 1):
    ts, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        ts.append(time.perf_counter() - t0)
    return out, statistics.median(ts)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", default="../shared/data")
    ap.add_argument("--task", default="semantic segmentation")
    ap.add_argument("--focal", type=int, default=20)
    ap.add_argument("--slow-focal", type=int, default=4, help="focal papers for SemNovel/FastTextLOF")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--skip-slow", action="store_true")
    ap.add_argument("--out", default="benchmarks/results/axioms_speed.json")
    a = ap.parse_args()

    from noveval.models.embed import get_embedder

    d = Path(a.data_dir)
    corpus = load_corpus(d / "corpus/papers.jsonl.gz")
    refs = load_references(d / "fulltext/neurips-2025-fulltext.jsonl.gz", corpus)
    by = {t.name: t for t in DEFAULT_TASKS}
    spec = by[a.task]
    task = build_task(corpus, spec, by[spec.distant], refs)
    items = select_focals(corpus, task, refs, n=a.focal)
    variants, extra = build_variants(task, items, PoolRules(), {})
    emb = get_embedder("local").encode(task.texts, batch_size=64)
    n_var = sum(len(v) for v in variants.values())
    res: dict = {"task": a.task, "focal": len(items), "variants": n_var,
                 "pools": engine.group_sizes(variants), "rows": len(task.texts)}
    print(json.dumps(res))

    for name, m in (("Yin", Yin()), ("RND", RND())):
        # a fresh lazy similarity matrix per repeat: its cost is counted in every timing
        fast, t_fast = timed(lambda m=m: engine.score_embedding_fast(m, emb, items, variants), a.repeats)
        naive, t_naive = timed(lambda m=m, name=name: {
            it.item_id: engine.naive_variant_scores(name, m, emb, task, it, variants[it.item_id]) for it in items},
            a.repeats)
        assert decisions(fast) == decisions(naive), f"{name}: decisions differ"
        res[name] = {"fast_s": t_fast, "naive_s": t_naive, "speedup": t_naive / t_fast,
                     "per_focal_fast_ms": 1000 * t_fast / len(items)}
        print(name, res[name], flush=True)

    if not a.skip_slow:
        sub = items[: a.slow_focal]
        sv = {it.item_id: variants[it.item_id] for it in sub}
        sn = SemNovel()
        exact, t_exact = timed(lambda: engine.score_semnovel_exact(sn, emb, sub, sv, n_jobs=a.jobs))
        naive, t_naive = timed(lambda: {it.item_id: engine.naive_variant_scores(
            "SemNovel", sn, emb, task, it, sv[it.item_id]) for it in sub})
        assert decisions(exact) == decisions(naive), "SemNovel: decisions differ"
        approx, t_approx = timed(lambda: engine.score_semnovel_approx(sn, emb, sub, sv, extra))
        agr, n = agreement(decisions(exact), decisions(approx))
        res["SemNovel"] = {"focal": len(sub), "exact_s": t_exact, "naive_s": t_naive,
                           "exact_speedup": t_naive / t_exact, "approx_s": t_approx,
                           "approx_speedup": t_naive / t_approx, "approx_agreement": agr, "checks": n}
        print("SemNovel", res["SemNovel"], flush=True)

        ft = FastTextLOF()
        exact, t_exact = timed(lambda: engine.score_fasttext(ft, task, sub, sv, n_jobs=a.jobs))
        naive, t_naive = timed(lambda: {it.item_id: engine.naive_variant_scores(
            "FastTextLOF", ft, emb, task, it, sv[it.item_id]) for it in sub})
        assert decisions(exact, True) == decisions(naive, True), "FastTextLOF: decisions differ"
        approx, t_approx = timed(lambda: engine.score_fasttext(ft, task, sub, sv, approx=True, n_jobs=a.jobs))
        agr, n = agreement(decisions(exact, True), decisions(approx, True))
        res["FastTextLOF"] = {"focal": len(sub), "exact_s": t_exact, "naive_s": t_naive,
                              "exact_speedup": t_naive / t_exact, "approx_s": t_approx,
                              "approx_speedup": t_naive / t_approx, "approx_agreement": agr, "checks": n}
        print("FastTextLOF", res["FastTextLOF"], flush=True)
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=2, default=float))
    print(json.dumps(res, indent=2, default=float))


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
