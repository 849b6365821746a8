"""``noveval index add`` of 10k papers against a rebuild of the whole index (issue 28).

The corpus (104,962 papers) is split with a seeded random sample: 10,000 papers become
"new" and are written as OpenAlex works (``abstract_inverted_index``, DOI-less, so the
format reader and the deduplication run as they would on a real dump); the rest is the
base corpus. Then, each a separate ``noveval`` process timed from start to exit (wall
seconds and CPU seconds user + sys), median of ``--repeats``:

* add: a copy of the base index (BM25 + metadata) gets ``noveval index add`` of the 10k;
* rebuild: ``noveval index build`` over base + new (the same rows in the same order).

The two indexes are then checked to hold the same rows and give the same BM25 scores.

    python perf/index_add.py --out /work/scratch/index-add
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np


def timed(cmd: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + sys of the child) of one command."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.stderr.write(p.stdout + p.stderr)
        raise SystemExit(f"failed: {' '.join(cmd)}")
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def openalex(row: dict, i: int) -> dict:
    """A corpus paper as an OpenAlex work record."""
    inv: dict[str, list[int]] = {}
    for pos, w in enumerate(row["abstract"].split()):
        inv.setdefault(w, []).append(pos)
    return {"id": f"https://openalex.org/W9{i:09d}", "doi": None, "title": row["title"],
            "display_name": row["title"], "publication_year": row.get("year"), "abstract_inverted_index": inv}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--add", type=int, default=10_000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    rows = [json.loads(x) for x in gzip.open(args.data_dir / "corpus" / "papers.jsonl.gz", "rt", encoding="utf-8")]
    rows = [{k: r.get(k) for k in ("id", "title", "abstract", "year", "field")} for r in rows
            if (r.get("abstract") or "").strip()]
    new_idx = set(np.random.default_rng(0).choice(len(rows), args.add, replace=False).tolist())
    base = [r for i, r in enumerate(rows) if i not in new_idx]
    new = [r for i, r in enumerate(rows) if i in new_idx]
    # the added rows as the index will hold them (OpenAlex: no field, text re-joined from the inverted index)
    as_added = [{"id": f"openalex:W9{i:09d}", "title": " ".join(r["title"].split()), "abstract": " ".join(r["abstract"].split()),
                 "year": r["year"] or 0, "field": ""} for i, r in enumerate(new)]
    for name, data in (("base.jsonl", base), ("all.jsonl", base + as_added)):
        (out / name).write_text("".join(json.dumps(r) + "\n" for r in data), encoding="utf-8")
    (out / "new-openalex.jsonl").write_text("".join(json.dumps(openalex(r, i)) + "\n" for i, r in enumerate(new)),
                                            encoding="utf-8")
    exe = [sys.executable, "-m", "noveval.cli.main"]
    for d in ("base-index", "add-index", "rebuild-index"):
        shutil.rmtree(out / d, ignore_errors=True)
    subprocess.run([*exe, "index", "build", str(out / "base.jsonl"), "-o", str(out / "base-index"), "--no-dense"],
                   check=True, capture_output=True)
    adds, builds = [], []
    for _ in range(args.repeats):
        shutil.rmtree(out / "add-index", ignore_errors=True)
        shutil.copytree(out / "base-index", out / "add-index")
        adds.append(timed([*exe, "index", "add", str(out / "add-index"), str(out / "new-openalex.jsonl")]))
        shutil.rmtree(out / "rebuild-index", ignore_errors=True)
        builds.append(timed([*exe, "index", "build", str(out / "all.jsonl"), "-o", str(out / "rebuild-index"),
                             "--no-dense"]))
    from noveval.index import open_index

    a, b = open_index(out / "add-index"), open_index(out / "rebuild-index")
    same_rows = len(a) == len(b) and all(x["title"] == y["title"] for x, y in zip(a.iter_papers(), b.iter_papers()))
    qs = ["sparse probes for causal features", "diffusion models for molecule generation", "robot grasping tactile"]
    max_diff = max(float(np.abs(a.bm25.scores(q) - b.bm25.scores(q)).max()) for q in qs)
    res = {"base_papers": len(base), "added": a.meta["sources"][-1]["added"], "duplicates": a.meta["sources"][-1]["duplicates"],
           "papers": len(a), "same_rows": same_rows, "max_bm25_score_difference": max_diff,
           "add_wall_s": [round(w, 2) for w, _ in adds], "add_cpu_s": [round(c, 2) for _, c in adds],
           "rebuild_wall_s": [round(w, 2) for w, _ in builds], "rebuild_cpu_s": [round(c, 2) for _, c in builds],
           "add_median_wall_s": round(statistics.median(w for w, _ in adds), 2),
           "add_median_cpu_s": round(statistics.median(c for _, c in adds), 2),
           "rebuild_median_wall_s": round(statistics.median(w for w, _ in builds), 2),
           "rebuild_median_cpu_s": round(statistics.median(c for _, c in builds), 2),
           "load1": os.getloadavg()[0], "add_internal_s": a.meta.get("add_s")}
    (out / "index_add.json").write_text(json.dumps(res, indent=2))
    print(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
