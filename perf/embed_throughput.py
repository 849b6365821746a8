"""Embedding throughput: noveval's Embedder vs raw SentenceTransformer.encode.

2,000 abstracts from ../shared/data/corpus/papers.jsonl.gz, bundled all-MiniLM-L6-v2,
batch size 64. noveval runs with a cold vector cache (encode + hash + SQLite store),
then warm (all hits). Ratio = noveval texts/s ÷ raw texts/s.

Usage: python perf/embed_throughput.py [--n 2000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import tempfile
import time
from pathlib import Path

from noveval.models.embed import VectorCache, get_embedder


def load_abstracts(n: int) -> list[str]:
    path = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "corpus" / "papers.jsonl.gz"
    out = []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            abstract = json.loads(line).get("abstract") or ""
            if len(abstract) > 200:
                out.append(abstract)
            if len(out) == n:
                break
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    texts = load_abstracts(a.n)
    raw_model = get_embedder("local", cache=False).backend.model
    raw_model.encode(texts[:64], batch_size=64)  # warm-up
    raw, cold, warm = [], [], []
    for r in range(a.repeats):
        batch = [f"[{r}] {t}" for t in texts]
        t0 = time.perf_counter()
        raw_model.encode(batch, batch_size=64, normalize_embeddings=True)
        raw.append(len(batch) / (time.perf_counter() - t0))
        with tempfile.TemporaryDirectory() as tmp:
            emb = get_embedder("local", cache=VectorCache(Path(tmp) / "v.sqlite"), batch_size=64)
            emb.backend._model = raw_model
            t0 = time.perf_counter()
            emb.encode(batch)
            cold.append(len(batch) / (time.perf_counter() - t0))
            t0 = time.perf_counter()
            emb.encode(batch)
            warm.append(time.perf_counter() - t0)
    rm, cm = statistics.median(raw), statistics.median(cold)
    print(f"{len(texts)} abstracts, medians of {a.repeats}")
    print(f"raw SentenceTransformer.encode: {rm:.1f} texts/s")
    print(f"noveval Embedder, cold cache:   {cm:.1f} texts/s (ratio {cm / rm:.2f})")
    print(f"noveval Embedder, warm cache:   {statistics.median(warm):.3f} s for all {len(texts)} ({len(texts) / statistics.median(warm):.0f} texts/s)")


if __name__ == "__main__":
    main()
