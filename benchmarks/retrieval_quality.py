"""Retrieval quality of the corpus index on citation gold nobody here wrote.

For each NeurIPS 2025 full text in ``<data>/fulltext``, the references that match corpus
papers published before 2025 are its known prior work (matching rule:
:mod:`noveval.benchmarks.retrieval.gold`). The query is the paper's title + abstract,
searched in an index of the pre-2025 corpus. Reported: recall@10/@50/@100 and nDCG@10 with
95% bootstrap CIs over papers with gold, for bm25, dense, hybrid (RRF k=60) and hybrid +
listwise rerank by the bundled model.

    python benchmarks/retrieval_quality.py --out /work/scratch/index/rq          # everything
    python benchmarks/retrieval_quality.py --out DIR --modes bm25                 # BM25 only (seconds)
    python benchmarks/retrieval_quality.py --out DIR --universe embedded          # only papers with vectors

``--universe all`` (default) needs every pre-2025 paper's vector (from the vector cache,
or embedded with ``--embed-missing``; hours on 2 CPU cores). ``--universe embedded``
restricts every mode to the papers that have a vector plus all gold papers (embedded
first), a smaller but identical candidate set for all modes. Rankings are saved per mode
in ``--out`` and reused, so an interrupted run resumes.
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import sys
import time
from pathlib import Path

import numpy as np

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S")
log = logging.getLogger("retrieval_quality")


def _pre_corpus(corpus: Path, out: Path, before_year: int) -> Path:
    dst = out / f"corpus-before-{before_year}.jsonl"
    if dst.exists():
        return dst
    n = 0
    with gzip.open(corpus, "rt", encoding="utf-8") as fh, open(dst.with_suffix(".tmp"), "w", encoding="utf-8") as o:
        for line in fh:
            r = json.loads(line)
            y = r.get("year")
            if isinstance(y, int) and y < before_year:
                o.write(line if line.endswith("\n") else line + "\n")
                n += 1
    dst.with_suffix(".tmp").rename(dst)
    log.info("pre-%d corpus: %d papers", before_year, n)
    return dst


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    ap.add_argument("--out", type=Path, required=True, help="Work folder (index, rankings, results).")
    ap.add_argument("--before-year", type=int, default=2025)
    ap.add_argument("--modes", default="bm25,dense,hybrid,hybrid+rerank")
    ap.add_argument("--universe", choices=["all", "embedded"], default="all")
    ap.add_argument("--embed-missing", action="store_true", help="Embed every pre-2025 paper the cache lacks.")
    ap.add_argument("--freeze", action="store_true", help="Take no more vectors from the cache (keep the universe "
                    "of an earlier run, so its saved rankings are reused).")
    ap.add_argument("--embedder", default="local")
    ap.add_argument("--rerank-model", default="local")
    ap.add_argument("--rerank-depth", type=int, default=20)
    ap.add_argument("--rerank-limit", type=int, default=None, help="Rerank only the first N queries with gold.")
    ap.add_argument("--depth", type=int, default=100, help="Rows per ranking (and per RRF input).")
    ap.add_argument("--rrf-k", type=int, default=60)
    ap.add_argument("--limit", type=int, default=None, help="First N full texts only.")
    ap.add_argument("--stem", action="store_true", help="BM25 with Snowball stemming (a separate index folder).")
    args = ap.parse_args(argv)

    from noveval.benchmarks.axioms.pools import paper_text
    from noveval.benchmarks.retrieval import citation_gold, paired_differences, summarize_runs
    from noveval.index import BM25Params, build_index, fill_vectors, open_index, rrf
    from noveval.index.dense import exact_search
    from noveval.index.store import is_index
    from noveval.models.embed import get_embedder

    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    corpus = args.data_dir / "corpus" / "papers.jsonl.gz"
    fulltext = args.data_dir / "fulltext" / "neurips-2025-fulltext.jsonl.gz"
    if not corpus.exists() or not fulltext.exists():
        log.error("shared data not found under %s", args.data_dir)
        return 2
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    emb = get_embedder(args.embedder)
    pre = _pre_corpus(corpus, out, args.before_year)
    ipath = out / ("index-stem" if args.stem else "index")
    timings: dict[str, float] = {}
    if not is_index(ipath):
        t0 = time.perf_counter()
        idx = build_index(pre, ipath, embedder=emb, bm25=BM25Params(stem=args.stem), log=log.info)
        timings["index_build_s"] = time.perf_counter() - t0
        timings.update({f"index_{k}_s": v for k, v in idx.meta["build_s"].items()})
    idx = open_index(ipath)
    titles = [p["title"] for p in idx.iter_papers()]
    gold_papers = citation_gold(fulltext, titles, [True] * len(titles))
    if args.limit:
        gold_papers = gold_papers[: args.limit]
    with_gold = [g for g in gold_papers if g.gold]
    n_refs = [len(g.gold) for g in with_gold]
    log.info("gold: %d of %d papers have matched references (%.1f each on average, %d in all)",
             len(with_gold), len(gold_papers), float(np.mean(n_refs)) if n_refs else 0.0, sum(n_refs))
    queries = [paper_text(g.title, g.abstract) for g in with_gold]
    gold = [g.gold for g in with_gold]
    gold_rows = np.unique(np.asarray([r for g in gold for rows in g for r in rows], dtype=np.int64))

    need_dense = any(m != "bm25" for m in modes)
    if need_dense and not args.freeze:
        from noveval.index.build import fill_from_cache

        got = fill_from_cache(idx, emb)
        log.info("dense: %d more vectors from the cache; %d of %d filled", got, *idx.dense_coverage())
        if args.embed_missing:
            fill_vectors(idx, emb)
        elif args.universe == "embedded":
            fill_vectors(idx, emb, gold_rows, progress="embedding gold papers")
    mask = np.ones(idx.n, dtype=bool)
    if args.universe == "embedded":
        mask = idx.filled()
    filled, kept = idx.dense_coverage(mask)
    if need_dense and filled < kept:
        log.error("dense modes need every kept paper's vector: %d of %d filled (use --embed-missing or "
                  "--universe embedded)", filled, kept)
        return 3
    qvecs = np.asarray(emb.encode(queries, progress="embedding queries"), dtype=np.float32) if need_dense else None

    def cached(name: str, fn):  # type: ignore[no-untyped-def]
        f = out / f"rankings-{args.universe}-{name}{'-stem' if args.stem and name != 'dense' else ''}.json"
        if f.exists():
            saved = json.loads(f.read_text())
            if saved["n_queries"] == len(queries) and saved["kept"] == int(mask.sum()):
                return saved["rankings"], saved.get("extra", {})
        t = time.perf_counter()
        runs, extra = fn()
        extra["seconds"] = time.perf_counter() - t
        f.write_text(json.dumps({"n_queries": len(queries), "kept": int(mask.sum()), "rankings": runs, "extra": extra}))
        return runs, extra

    results: dict[str, list[list[int]]] = {}
    extras: dict[str, dict] = {}

    def bm25_runs():  # type: ignore[no-untyped-def]
        return [[int(r) for r in idx.bm25.search(q, args.depth, mask)[0]] for q in queries], {}

    def dense_runs():  # type: ignore[no-untyped-def]
        vec = np.asarray(idx.vectors())
        rows = None if mask.all() else np.flatnonzero(mask)
        return [[int(r) for r in exact_search(vec, qv, args.depth, rows)[0]] for qv in qvecs], {}  # type: ignore[union-attr]

    if "bm25" in modes or any(m.startswith("hybrid") for m in modes):
        results["bm25"], extras["bm25"] = cached("bm25", bm25_runs)
    if any(m != "bm25" for m in modes):
        results["dense"], extras["dense"] = cached("dense", dense_runs)
    if any(m.startswith("hybrid") for m in modes):
        results["hybrid"], extras["hybrid"] = cached("hybrid", lambda: (
            [[r for r, _ in rrf([b, d], k=args.rrf_k)][: args.depth] for b, d in zip(results["bm25"], results["dense"])], {}))
    if "hybrid+rerank" in modes:
        def rerank_runs():  # type: ignore[no-untyped-def]
            from noveval.index.rerank import rerank_many
            from noveval.index.search import Hit
            from noveval.models.client import get_client

            client = get_client(args.rerank_model)
            n = len(queries) if args.rerank_limit is None else min(args.rerank_limit, len(queries))
            hl = [[Hit(r, i, 0.0) for i, r in enumerate(run, 1)] for run in results["hybrid"][:n]]
            pl = [idx.papers(run[: args.rerank_depth]) for run in results["hybrid"][:n]]
            rr = rerank_many(client, queries[:n], hl, pl, depth=args.rerank_depth, progress="rerank")
            runs = [[h.row for h in x.hits] for x in rr] + results["hybrid"][n:]
            return runs, {"model": client.model_id, "depth": args.rerank_depth, "reranked": n,
                          "failed": sum(1 for x in rr if x.error), "errors": [x.error for x in rr if x.error][:5],
                          "mean_mentioned": float(np.mean([x.mentioned for x in rr])) if rr else 0.0}
        results["hybrid+rerank"], extras["hybrid+rerank"] = cached(f"rerank-{args.rerank_depth}", rerank_runs)
    show = {m: results[m] for m in modes if m in results}
    n_rr = extras.get("hybrid+rerank", {}).get("reranked")
    summary = summarize_runs(show, gold)
    diffs = paired_differences(show, gold, baseline="bm25") if "bm25" in show and len(show) > 1 else {}
    if n_rr is not None and n_rr < len(queries):  # compare rerank on the queries it saw
        sub = {m: results[m][:n_rr] for m in ("hybrid", "hybrid+rerank")}
        summary["on_reranked_subset"] = summarize_runs(sub, gold[:n_rr])
        diffs["rerank_vs_hybrid_on_subset"] = paired_differences(sub, gold[:n_rr], baseline="hybrid")
    report = {"universe": args.universe, "kept_papers": int(mask.sum()), "index_papers": idx.n,
              "papers_with_gold": len(with_gold), "full_texts": len(gold_papers),
              "mean_gold": float(np.mean(n_refs)) if n_refs else 0.0, "embedder": emb.model_id,
              "bm25": idx.meta["bm25"], "rrf_k": args.rrf_k, "depth": args.depth, "timings": timings,
              "extras": extras, "metrics": summary, "paired_vs_bm25": diffs}
    (out / f"results-{args.universe}{'-stem' if args.stem else ''}.json").write_text(json.dumps(report, indent=2))
    print(f"universe {args.universe}: {int(mask.sum())} papers; {len(with_gold)} of {len(gold_papers)} full texts "
          f"with gold ({report['mean_gold']:.1f} each)")
    print("| retrieval | recall@10 | recall@50 | recall@100 | nDCG@10 |")
    print("|---|---|---|---|---|")
    for mode, row in summary.items():
        if mode == "on_reranked_subset":
            continue
        cells = [f"{row[k]['mean']:.3f} [{row[k]['ci_low']:.3f}, {row[k]['ci_high']:.3f}]"
                 for k in ("recall@10", "recall@50", "recall@100", "ndcg@10")]
        print(f"| {mode} | " + " | ".join(cells) + " |")
    for mode, row in diffs.items():
        if mode == "rerank_vs_hybrid_on_subset":
            for m2, r2 in row.items():
                cells = [f"{r2[k]['mean']:+.3f} [{r2[k]['ci_low']:+.3f}, {r2[k]['ci_high']:+.3f}]"
                         for k in ("recall@10", "recall@50", "recall@100", "ndcg@10")]
                print(f"| {m2} - hybrid (first {n_rr} queries) | " + " | ".join(cells) + " |")
            continue
        cells = [f"{row[k]['mean']:+.3f} [{row[k]['ci_low']:+.3f}, {row[k]['ci_high']:+.3f}]"
                 for k in ("recall@10", "recall@50", "recall@100", "ndcg@10")]
        print(f"| {mode} - bm25 (paired) | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
