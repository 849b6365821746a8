"""The paper-faithful embedder vs raw sentence-transformers at 256 tokens, per CPU-second.

Issue 35: systems whose numbers sit beside a paper's (axioms, validate, NovBench's metrics)
embed by default with :data:`noveval.options.PAPER_EMBEDDER`
(``local:bf16@256``: the bundled MiniLM, bf16, 256 tokens). This script embeds ``--n``
pre-2025 corpus texts (title + abstract) with raw ``SentenceTransformer.encode`` of the
bundled MiniLM at its own 256 tokens in fp32 (torch's default threads: the baseline) and
with the spec through noveval's :class:`~noveval.models.embed.Embedder` (cold vector cache:
encode + hash + SQLite store), in interleaved rounds in one process; speed is texts per
CPU-second (user + sys of this process), medians of ``--rounds``; the ratio is the spec's
rate over the baseline's. Quality: cosine of each text's vector to the baseline's.

    python perf/embed_paper.py --n 300 --rounds 3 [--spec local:bf16@256] --out DIR
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


def corpus_texts(data_dir: Path, n: int) -> list[str]:
    """The first ``n`` pre-2025 corpus papers with an abstract, as title + abstract."""
    from noveval.corpus import paper_text

    texts: list[str] = []
    with gzip.open(data_dir / "corpus" / "papers.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            if r.get("abstract") and isinstance(r.get("year"), int) and r["year"] < 2025:
                texts.append(paper_text(r["title"], r["abstract"]))
            if len(texts) >= n:
                break
    return texts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    ap.add_argument("--out", type=Path, required=True, help="Folder for embed_paper.json.")
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--spec", action="append", help="Embedder spec(s) (default: local:bf16@256).")
    args = ap.parse_args(argv)

    import numpy as np

    from noveval.models.embed import (
        Embedder,
        SentenceTransformerBackend,
        VectorCache,
        _normalise,
        get_embedder,
        resolved_embedder,
    )

    specs = args.spec or ["local:bf16@256"]
    texts = corpus_texts(args.data_dir, args.n)
    raw = SentenceTransformerBackend(None, precision="fp32").model  # bundled MiniLM, its own 256 tokens
    backends = {s: get_embedder(s, cache=False).backend for s in specs}
    raw.encode(texts[:8])
    for b in backends.values():
        b.embed_batch(texts[:8])  # warm-up: weights loaded, first-call overheads paid
    cpu: dict[str, list[float]] = {"raw": [], **{s: [] for s in specs}}
    vecs: dict[str, np.ndarray] = {}
    for r in range(args.rounds):
        c = time.process_time()
        vecs["raw"] = _normalise(raw.encode(texts, batch_size=64, convert_to_numpy=True, show_progress_bar=False))
        cpu["raw"].append(time.process_time() - c)
        for s, b in backends.items():
            with tempfile.TemporaryDirectory() as tmp:
                emb = Embedder(b, cache=VectorCache(Path(tmp) / "v.sqlite"), batch_size=64)
                c = time.process_time()
                vecs[s] = emb.encode(texts)
                cpu[s].append(time.process_time() - c)
        print(f"round {r + 1}: " + ", ".join(f"{k} {v[-1]:.1f} CPU-s" for k, v in cpu.items()), flush=True)
    base = len(texts) / statistics.median(cpu["raw"])
    res: dict = {"n": len(texts), "rounds": args.rounds, "raw_texts_per_cpu_s": round(base, 2), "specs": {}}
    print("| embedder | texts / CPU-s | ratio to raw | cosine to raw fp32@256 (mean / min) |")
    print("|---|---|---|---|")
    print(f"| raw sentence-transformers MiniLM fp32, 256 tokens | {base:.1f} | 1.00 | 1 / 1 |")
    for s in specs:
        rate = len(texts) / statistics.median(cpu[s])
        cos = np.sum(vecs[s] * vecs["raw"], axis=1)
        row = {"resolved": resolved_embedder(backends[s]), "texts_per_cpu_s": round(rate, 2),
               "ratio": round(rate / base, 3), "cos_mean": float(cos.mean()), "cos_min": float(cos.min()),
               "cpu_s": cpu[s]}
        res["specs"][s] = row
        print(f"| `{s}` | {rate:.1f} | {rate / base:.2f} | {cos.mean():.5f} / {cos.min():.5f} |")
    res["raw_cpu_s"] = cpu["raw"]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "embed_paper.json").write_text(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
