"""Dense index build speed: the bundled MiniLM on PyTorch vs ONNX Runtime fp32 vs int8.

Embeds ``--n`` pre-2025 corpus texts (title + abstract, sorted by length as an index
fill does) with each backend, batch 64, in interleaved rounds (medians of ``--rounds``,
so load on the shared machine affects all backends alike). Quality: cosine between each
backend's vectors and PyTorch's, and agreement of exact kNN@10 among the same texts
(each text as a query; recall of PyTorch's 10 neighbours).

    python perf/embed_backends.py --n 1000 --out /work/scratch/index/onnx
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np


def knn_agreement(ref: np.ndarray, other: np.ndarray, k: int = 10) -> float:
    """Mean share of ``ref``'s k nearest neighbours (self excluded) that ``other`` also returns."""
    def top(x: np.ndarray) -> np.ndarray:
        s = x @ x.T
        np.fill_diagonal(s, -np.inf)
        return np.argsort(-s, axis=1, kind="stable")[:, :k]
    a, b = top(ref), top(other)
    return float(np.mean([len(set(x) & set(y)) / k for x, y in zip(a, b)]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    ap.add_argument("--out", type=Path, required=True, help="Folder for the exported ONNX files and results.")
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)

    from noveval.benchmarks.axioms.pools import paper_text
    from noveval.models.embed import Embedder, SentenceTransformerBackend, _normalise
    from noveval.models.embed_onnx import OnnxBackend, export_onnx

    texts = []
    with gzip.open(args.data_dir / "corpus" / "papers.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            if r.get("abstract") and isinstance(r.get("year"), int) and r["year"] < 2025:
                texts.append(paper_text(r["title"], r["abstract"]))
            if len(texts) >= args.n:
                break
    texts.sort(key=len)
    args.out.mkdir(parents=True, exist_ok=True)
    t = time.perf_counter()
    if not (args.out / "model-int8.onnx").exists():
        export_onnx(args.out, int8=True)
    export_s = time.perf_counter() - t
    backends = {"pytorch (sentence-transformers)": SentenceTransformerBackend(),
                "onnxruntime fp32": OnnxBackend(args.out / "model.onnx"),
                "onnxruntime int8": OnnxBackend(args.out / "model-int8.onnx")}
    for b in backends.values():  # warm-up: load weights, first-call overheads
        b.embed_batch(texts[:8])
    rates: dict[str, list[float]] = {k: [] for k in backends}
    vecs: dict[str, np.ndarray] = {}
    for _ in range(args.rounds):
        for name, b in backends.items():
            emb = Embedder(b, cache=None, batch_size=64)
            t = time.perf_counter()
            v = emb.encode(texts)
            rates[name].append(len(texts) / (time.perf_counter() - t))
            vecs[name] = _normalise(v)
    ref = vecs["pytorch (sentence-transformers)"]
    base = statistics.median(rates["pytorch (sentence-transformers)"])
    res = {"n": len(texts), "rounds": args.rounds, "export_s": round(export_s, 1), "backends": {}}
    for name in backends:
        cos = np.sum(vecs[name] * ref, axis=1)
        med = statistics.median(rates[name])
        res["backends"][name] = {"texts_per_s": round(med, 1), "ratio": round(med / base, 2),
                                 "cos_mean": round(float(cos.mean()), 5), "cos_min": round(float(cos.min()), 5),
                                 "knn10_agreement": round(knn_agreement(ref, vecs[name]), 4)}
    (args.out / "embed_backends.json").write_text(json.dumps(res, indent=2))
    print(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
