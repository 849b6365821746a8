"""ANN at 10^6 synthetic vectors: build time, memory and recall@10 against exact search.

The vectors imitate sentence embeddings: ``--dim`` 384 (MiniLM), drawn around ``--clusters``
random centres (topics) with Gaussian spread, L2-normalised. Queries are perturbed
copies of random database points. Exact top-10 comes from ``faiss.IndexFlatIP`` (brute force); each ANN
index is timed (build, search per query) and its recall@10 measured against it. Memory is
the index's own serialised size plus the process's peak RSS.

    python perf/ann_scale.py --n 1000000 --kinds ivfpq   # IVF-PQ (+ exact rerank), minutes
    python perf/ann_scale.py --n 1000000 --kinds hnsw    # HNSW (tens of minutes on 2 shared cores)
    python perf/ann_scale.py --n 100000 --kinds hnsw,ivf

Run one kind per process: the peak RSS reported is the process's, so it covers the
vectors, the exact baseline and that one index. Build time is given as wall and as the
process's CPU seconds (user + sys), which other jobs on a shared machine inflate far less.
``ivfpq`` stores ``--pq-m`` bytes per vector; its ``+rerank`` rows re-score the top
``--rerank`` candidates exactly against the float32 vectors (which an index keeps on disk
anyway), the usual way to win back the recall that product quantisation loses.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time

import numpy as np


def synthetic(n: int, dim: int, clusters: int, seed: int, spread: float = 0.35) -> np.ndarray:
    """``n`` unit vectors around ``clusters`` random unit centres (float32), generated in blocks."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(clusters, dim)).astype(np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    out = np.empty((n, dim), dtype=np.float32)
    for s in range(0, n, 100_000):
        m = min(100_000, n - s)
        x = centres[rng.integers(0, clusters, m)] + spread * rng.normal(size=(m, dim)).astype(np.float32) / np.sqrt(dim)
        out[s:s + m] = x / np.linalg.norm(x, axis=1, keepdims=True)
    return out


def rotated_copies(base: np.ndarray, n: int, seed: int) -> np.ndarray:
    """``n`` unit vectors: ``base`` (real embeddings), then copies of it under random orthogonal rotations.

    Each copy keeps the real geometry among its own rows (a rotation preserves every inner
    product) while being unrelated to the other copies, so the set is ``n / len(base)``
    independent corpora with the structure of real sentence embeddings.
    """
    rng = np.random.default_rng(seed)
    base = np.ascontiguousarray(base, dtype=np.float32)
    base /= np.linalg.norm(base, axis=1, keepdims=True)
    out = np.empty((n, base.shape[1]), dtype=np.float32)
    s = 0
    while s < n:
        m = min(len(base), n - s)
        if s == 0:
            out[:m] = base[:m]
        else:
            q, r = np.linalg.qr(rng.normal(size=(base.shape[1], base.shape[1])))
            out[s:s + m] = base[:m] @ (q * np.sign(np.diag(r))).astype(np.float32)
        s += m
    return out


def recall(truth: np.ndarray, got: np.ndarray) -> float:
    """Mean |top-k ∩ exact top-k| / k over queries."""
    return float(np.mean([len(set(t) & set(g)) / len(t) for t, g in zip(truth, got)]))


def timed_search(index, q: np.ndarray, k: int) -> tuple[np.ndarray, float]:
    """``index.search(q, k)``'s ids and the wall milliseconds per query."""
    t = time.perf_counter()
    _, got = index.search(q, k)
    return got, round(1000 * (time.perf_counter() - t) / len(q), 3)


def train_and_add(index, x: np.ndarray, nlist: int, per_list: int) -> int:
    """Train an IVF index on a fixed random sample (``per_list`` points per list), add ``x``; the sample size."""
    train = x[np.random.default_rng(2).choice(len(x), min(len(x), per_list * nlist), replace=False)]
    index.train(train)
    index.add(x)
    return len(train)


def main(argv: list[str] | None = None) -> int:
    import faiss

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--clusters", type=int, default=2000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--kinds", default="hnsw,ivf")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--from-npy", default=None, help="Real embeddings (.npy, float32 rows): the database is these "
                    "plus randomly rotated copies up to --n (instead of synthetic clusters).")
    ap.add_argument("--hnsw-m", type=int, default=32)
    ap.add_argument("--ef-construction", type=int, default=80)
    ap.add_argument("--ivf-train", type=int, default=64, help="Training points per IVF list.")
    ap.add_argument("--nlist", type=int, default=None, help="IVF lists (default 4·sqrt(n) for ivf, sqrt(n) for ivfpq).")
    ap.add_argument("--pq-m", type=int, default=48, help="IVF-PQ sub-quantisers (bytes per vector).")
    ap.add_argument("--rerank", default="100,1000", help="IVF-PQ candidates re-scored exactly (comma-separated depths).")
    ap.add_argument("--out", default=None, help="Write the results JSON here.")
    args = ap.parse_args(argv)
    faiss.omp_set_num_threads(args.threads)

    t = time.perf_counter()
    if args.from_npy:
        x = rotated_copies(np.load(args.from_npy), args.n, 0)
        args.dim = x.shape[1]
    else:
        x = synthetic(args.n, args.dim, args.clusters, 0)
    rng = np.random.default_rng(1)
    # queries: perturbed copies of random database points (near-duplicates and topical neighbours exist)
    base = x[rng.choice(args.n, args.queries, replace=False)]
    q = base + 0.35 * rng.normal(size=base.shape).astype(np.float32) / np.sqrt(args.dim)
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    gen_s = time.perf_counter() - t
    res: dict = {"n": args.n, "dim": args.dim, "clusters": None if args.from_npy else args.clusters,
                 "data": f"rotated copies of {args.from_npy}" if args.from_npy else "synthetic clusters", "queries": args.queries,
                 "threads": args.threads, "vectors_mb": round(x.nbytes / 2**20, 1), "generate_s": round(gen_s, 1)}
    flat = faiss.IndexFlatIP(args.dim)
    flat.add(x)
    t = time.perf_counter()
    _, truth = flat.search(q, 10)
    res["exact"] = {"search_ms_per_query": round(1000 * (time.perf_counter() - t) / args.queries, 2)}
    del flat
    print(json.dumps(res), flush=True)
    for kind in [k.strip() for k in args.kinds.split(",") if k.strip()]:
        t = time.perf_counter()
        cpu0 = time.process_time()
        if kind == "hnsw":
            index = faiss.IndexHNSWFlat(args.dim, args.hnsw_m, faiss.METRIC_INNER_PRODUCT)
            index.hnsw.efConstruction = args.ef_construction
            index.add(x)
            build, build_cpu = time.perf_counter() - t, time.process_time() - cpu0
            rows = {}
            for ef in (32, 64, 128, 256):
                index.hnsw.efSearch = ef
                got, ms = timed_search(index, q, 10)
                rows[f"ef{ef}"] = {"recall@10": round(recall(truth, got), 4), "search_ms_per_query": ms}
            params = {"M": args.hnsw_m, "efConstruction": args.ef_construction}
        elif kind == "ivfpq":
            nlist = args.nlist or int(np.sqrt(args.n))
            quant = faiss.IndexFlatIP(args.dim)
            index = faiss.IndexIVFPQ(quant, args.dim, nlist, args.pq_m, 8, faiss.METRIC_INNER_PRODUCT)
            n_train = train_and_add(index, x, nlist, args.ivf_train)
            build, build_cpu = time.perf_counter() - t, time.process_time() - cpu0
            rows = {}
            for nprobe in (8, 32, 128):
                index.nprobe = nprobe
                got, ms = timed_search(index, q, 10)
                rows[f"nprobe{nprobe}"] = {"recall@10": round(recall(truth, got), 4), "search_ms_per_query": ms}
                for depth in (int(d) for d in str(args.rerank).split(",")):
                    t = time.perf_counter()
                    _, cand = index.search(q, depth)
                    got = np.stack([c[np.argsort(-(x[c] @ qq), kind="stable")[:10]] for c, qq in zip(cand, q)])
                    rows[f"nprobe{nprobe}+rerank{depth}"] = {
                        "recall@10": round(recall(truth, got), 4),
                        "search_ms_per_query": round(1000 * (time.perf_counter() - t) / args.queries, 3)}
            params = {"nlist": nlist, "pq_m": args.pq_m, "bits": 8, "train_points": n_train}
        elif kind == "ivf":
            nlist = args.nlist or int(4 * np.sqrt(args.n))
            quant = faiss.IndexFlatIP(args.dim)
            index = faiss.IndexIVFFlat(quant, args.dim, nlist, faiss.METRIC_INNER_PRODUCT)
            n_train = train_and_add(index, x, nlist, args.ivf_train)
            build, build_cpu = time.perf_counter() - t, time.process_time() - cpu0
            rows = {}
            for nprobe in (8, 32, 128):
                index.nprobe = nprobe
                got, ms = timed_search(index, q, 10)
                rows[f"nprobe{nprobe}"] = {"recall@10": round(recall(truth, got), 4), "search_ms_per_query": ms}
            params = {"nlist": nlist, "train_points": n_train}
        else:
            raise SystemExit(f"unknown kind {kind}")
        with tempfile.TemporaryDirectory() as tmp:  # size on disk, without a second copy in memory
            faiss.write_index(index, os.path.join(tmp, "i.faiss"))
            size_mb = os.path.getsize(os.path.join(tmp, "i.faiss")) / 2**20
        res[kind] = {"params": params, "build_s": round(build, 1), "build_cpu_s": round(build_cpu, 1),
                     "index_mb": round(size_mb, 1),
                     "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1), "search": rows}
        del index
        print(json.dumps({kind: res[kind]}), flush=True)
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(res, fh, indent=2)
    print(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
