"""``noveval index build`` phases on the full corpus: read, BM25, dense fill from the vector cache.

Each phase reports wall seconds and CPU seconds of this process (``time.process_time``),
the latter less affected by other load on a shared machine. BM25 is single-threaded.

    python perf/index_build.py --out /work/scratch/index/build-bench
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--stem", action="store_true")
    args = ap.parse_args(argv)

    from noveval.benchmarks.axioms.pools import paper_text
    from noveval.index import BM25Index, BM25Params, build_index, fill_from_cache
    from noveval.index.build import read_corpus
    from noveval.models.embed import get_embedder

    corpus = args.data_dir / "corpus" / "papers.jsonl.gz"
    res: dict = {}

    def phase(name: str, fn):  # type: ignore[no-untyped-def]
        w, c = time.perf_counter(), time.process_time()
        out = fn()
        res[name] = {"wall_s": round(time.perf_counter() - w, 2), "cpu_s": round(time.process_time() - c, 2)}
        return out

    papers, _ = phase("read", lambda: read_corpus(corpus))
    texts = [paper_text(p["title"], p["abstract"]) for p in papers]
    phase("bm25", lambda: BM25Index.build(texts, BM25Params(stem=args.stem)))
    if args.out.exists():
        shutil.rmtree(args.out)
    idx = phase("build_bm25_only", lambda: build_index(corpus, args.out / "bm25-only", bm25=BM25Params(stem=args.stem)))
    emb = get_embedder("local")
    full = phase("build_with_dense_part", lambda: build_index(corpus, args.out / "dense", embedder=emb,
                                                              bm25=BM25Params(stem=args.stem)))
    res["papers"] = len(idx)
    res["dense_from_cache"] = full.dense_coverage()[0]
    res["refill_from_cache"] = phase("fill_from_cache_again", lambda: fill_from_cache(full, emb))
    print(json.dumps(res, indent=2))
    (args.out / "index_build.json").write_text(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
