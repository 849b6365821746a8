"""Which embedder loses no retrieval recall: paired recall@10/@50 on citation gold.

Same gold as ``benchmarks/retrieval_quality.py`` (NeurIPS 2025 full texts; their
references that match pre-2025 corpus papers; query = title + abstract), but a candidate
set every embedder can afford: every gold paper plus ``--sample`` other pre-2025 papers
drawn at random (seed 0). Each embedder embeds that set and the queries (through the
vector cache, so a re-run reuses them and an index fill later finds them), exact dense
search returns the top 100, and each embedder is compared with MiniLM fp32 at 256 tokens
(the reference vectors) by paired per-query differences with 95% bootstrap CIs.

    python perf/embed_quality.py --out DIR --sample 8000 --embedders fp32,bf16,bf16@128,static

Embedder names: ``fp32``, ``bf16`` (MiniLM in that precision), either with ``@N`` for N
tokens per text, ``onnx`` (MiniLM fp32 on ONNX Runtime), ``static`` (the static model
distilled from MiniLM). CPU seconds of each embedding pass are the process's user+sys
time (only texts the cache lacked are encoded; the count is reported).
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path

import numpy as np


def backend(name: str):  # type: ignore[no-untyped-def]
    """The embedding backend for a benchmark name (see the module docstring)."""
    from noveval.models.embed import SentenceTransformerBackend, local_backend

    base, _, tok = name.partition("@")
    if base in ("fp32", "bf16"):
        return SentenceTransformerBackend(None, precision=base, max_tokens=int(tok) if tok else None)
    return local_backend(base)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--sample", type=int, default=8000, help="Non-gold pre-2025 papers added to the candidates.")
    ap.add_argument("--embedders", default="fp32,bf16,bf16@128,static")
    ap.add_argument("--reference", default="fp32")
    ap.add_argument("--before-year", type=int, default=2025)
    ap.add_argument("--depth", type=int, default=100)
    args = ap.parse_args(argv)

    from noveval.benchmarks.retrieval import citation_gold, paired_differences, summarize_runs
    from noveval.corpus import paper_text
    from noveval.index.dense import exact_search
    from noveval.models.embed import Embedder, VectorCache, default_vector_cache_path

    papers = []
    with gzip.open(args.data_dir / "corpus" / "papers.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            if isinstance(r.get("year"), int) and r["year"] < args.before_year and r.get("abstract"):
                papers.append(r)
    titles = [p["title"] for p in papers]
    gp = [g for g in citation_gold(args.data_dir / "fulltext" / "neurips-2025-fulltext.jsonl.gz", titles,
                                   [True] * len(titles)) if g.gold]
    gold_rows = {r for g in gp for rows in g.gold for r in rows}
    rest = np.asarray(sorted(set(range(len(papers))) - gold_rows))
    pick = np.random.default_rng(0).choice(rest, size=min(args.sample, len(rest)), replace=False)
    universe = np.asarray(sorted(gold_rows | {int(x) for x in pick}))
    pos = {int(r): i for i, r in enumerate(universe)}
    gold = [[[pos[r] for r in rows] for rows in g.gold] for g in gp]
    texts = [paper_text(papers[r]["title"], papers[r]["abstract"]) for r in universe]
    queries = [paper_text(g.title, g.abstract) for g in gp]
    print(f"{len(gp)} queries with gold; candidates {len(universe)} ({len(gold_rows)} gold + {len(pick)} sampled)",
          flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    cache = VectorCache(default_vector_cache_path())
    runs: dict[str, list[list[int]]] = {}
    cost: dict[str, dict[str, float]] = {}
    for name in [e.strip() for e in args.embedders.split(",") if e.strip()]:
        emb = Embedder(backend(name), cache=cache, batch_size=64)
        c0, w0 = time.process_time(), time.perf_counter()
        mat = emb.encode(texts, progress=f"{name}: candidates")
        qv = emb.encode(queries, progress=f"{name}: queries")
        cost[name] = {"model_id": emb.model_id, "encoded": emb.stats["encoded"],  # type: ignore[dict-item]
                      "cpu_s": round(time.process_time() - c0, 1), "wall_s": round(time.perf_counter() - w0, 1)}
        runs[name] = [[int(r) for r in exact_search(mat, q, args.depth)[0]] for q in qv]
        print(json.dumps({name: cost[name]}), flush=True)
    summary = summarize_runs(runs, gold)
    diffs = paired_differences(runs, gold, baseline=args.reference)
    res = {"queries": len(gp), "candidates": len(universe), "gold_papers": len(gold_rows), "sample": len(pick),
           "reference": args.reference, "cost": cost, "metrics": summary, "paired_vs_reference": diffs}
    (args.out / "embed_quality.json").write_text(json.dumps(res, indent=2))
    keys = ("recall@10", "recall@50", "recall@100", "ndcg@10")
    print("| embedder | " + " | ".join(keys) + " |\n|---|---|---|---|---|")
    for name, row in summary.items():
        print(f"| {name} | " + " | ".join(f"{row[k]['mean']:.3f} [{row[k]['ci_low']:.3f}, {row[k]['ci_high']:.3f}]"
                                         for k in keys) + " |")
    for name, row in diffs.items():
        print(f"| {name} − {args.reference}, paired | " + " | ".join(
            f"{row[k]['mean']:+.3f} [{row[k]['ci_low']:+.3f}, {row[k]['ci_high']:+.3f}]" for k in keys) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
