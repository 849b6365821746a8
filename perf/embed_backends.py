"""Embedding speed per CPU-second: raw sentence-transformers MiniLM vs noveval's local embedders.

Embeds ``--n`` pre-2025 corpus texts (title + abstract) with each path, batch 64, in
interleaved rounds (medians of ``--rounds``, so load on the shared machine hits every path
alike). The baseline is raw ``SentenceTransformer.encode`` on the bundled MiniLM at its
256 tokens (fp32, torch's default threads). Every noveval path runs through
:class:`~noveval.models.embed.Embedder` with a cold vector cache (a new SQLite file per
round: encode + hash + store). Speed is texts per CPU-second of this process (user + sys,
all threads), which other jobs inflate far less than wall time; wall rates are shown too.
Quality: cosine to the baseline's vectors and agreement of exact kNN@10 among the same
texts (each text as a query).

    python perf/embed_backends.py --n 300 --rounds 3 --out DIR
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

PATHS = {
    "local (MiniLM bf16, 256 tokens)": "local",
    "local:fp32 (MiniLM fp32, 256 tokens)": "local:fp32",
    "local:onnx (ONNX Runtime fp32)": "local:onnx",
    "MiniLM bf16, 128 tokens": "bf16@128",
    "local:static (model2vec distilled from MiniLM)": "local:static",
}


def knn_agreement(ref: np.ndarray, other: np.ndarray, k: int = 10) -> float:
    """Mean share of ``ref``'s k nearest neighbours (self excluded) that ``other`` also returns."""
    def top(x: np.ndarray) -> np.ndarray:
        s = x @ x.T
        np.fill_diagonal(s, -np.inf)
        return np.argsort(-s, axis=1, kind="stable")[:, :k]
    a, b = top(ref), top(other)
    return float(np.mean([len(set(x) & set(y)) / k for x, y in zip(a, b)]))


def _backend(spec: str):  # type: ignore[no-untyped-def]
    from noveval.models.embed import SentenceTransformerBackend, local_backend

    if spec == "bf16@128":
        return SentenceTransformerBackend(None, precision="bf16", max_tokens=128)
    return local_backend(spec.partition(":")[2])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    ap.add_argument("--out", type=Path, required=True, help="Folder for the results JSON.")
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)

    from noveval.corpus import paper_text
    from noveval.models.embed import Embedder, SentenceTransformerBackend, VectorCache, _normalise

    texts = []
    with gzip.open(args.data_dir / "corpus" / "papers.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            if r.get("abstract") and isinstance(r.get("year"), int) and r["year"] < 2025:
                texts.append(paper_text(r["title"], r["abstract"]))
            if len(texts) >= args.n:
                break
    raw = SentenceTransformerBackend(None).model  # the bundled MiniLM as sentence-transformers loads it
    backends = {name: _backend(spec) for name, spec in PATHS.items()}
    raw.encode(texts[:8])
    for b in backends.values():  # warm-up: weights loaded, first-call overheads paid
        b.embed_batch(texts[:8])
    runs: dict[str, list[tuple[float, float]]] = {"raw sentence-transformers (fp32, 256 tokens)": []}
    runs.update({k: [] for k in backends})
    vecs: dict[str, np.ndarray] = {}
    for _ in range(args.rounds):
        c, w = time.process_time(), time.perf_counter()
        v = raw.encode(texts, batch_size=64, convert_to_numpy=True, show_progress_bar=False)
        runs["raw sentence-transformers (fp32, 256 tokens)"].append((time.process_time() - c, time.perf_counter() - w))
        vecs["raw sentence-transformers (fp32, 256 tokens)"] = _normalise(v)
        for name, b in backends.items():
            with tempfile.TemporaryDirectory() as tmp:
                emb = Embedder(b, cache=VectorCache(Path(tmp) / "v.sqlite"), batch_size=64)
                c, w = time.process_time(), time.perf_counter()
                vecs[name] = emb.encode(texts)
                runs[name].append((time.process_time() - c, time.perf_counter() - w))
    base_name = "raw sentence-transformers (fp32, 256 tokens)"
    base = len(texts) / statistics.median(c for c, _ in runs[base_name])
    ref = vecs[base_name]
    res: dict = {"n": len(texts), "rounds": args.rounds, "paths": {}}
    for name, rr in runs.items():
        rate = len(texts) / statistics.median(c for c, _ in rr)
        wall = len(texts) / statistics.median(w for _, w in rr)
        row = {"texts_per_cpu_s": round(rate, 1), "ratio": round(rate / base, 2), "texts_per_wall_s": round(wall, 1)}
        if vecs[name].shape == ref.shape:
            cos = np.sum(vecs[name] * ref, axis=1)
            row.update(cos_mean=round(float(cos.mean()), 5), cos_min=round(float(cos.min()), 5))
        row["knn10_agreement"] = round(knn_agreement(ref, vecs[name]), 4)
        res["paths"][name] = row
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "embed_backends.json").write_text(json.dumps(res, indent=2))
    print("| path | texts / CPU-s | ratio | texts / wall-s | cosine to baseline (mean / min) | kNN@10 agreement |")
    print("|---|---|---|---|---|---|")
    for name, r in res["paths"].items():
        cos = f"{r['cos_mean']:.5f} / {r['cos_min']:.5f}" if "cos_mean" in r else "– (other space)"
        print(f"| {name} | {r['texts_per_cpu_s']} | {r['ratio']:.2f} | {r['texts_per_wall_s']} | {cos} | "
              f"{r['knn10_agreement']:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
