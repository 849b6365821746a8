"""Cold and warm ``noveval check`` against the full corpus with a new index (build included).

Cold: a new, empty cache folder (no cached vectors, responses or metric results) and a
new index folder, so the run reads the corpus, builds BM25 (the dense part starts empty),
embeds only the BM25 candidates, computes the metrics and asks the bundled model. Warm:
the same command again (index on disk, caches filled), median of ``--repeats``. Each run
is a separate ``noveval`` process, timed from start to exit (wall seconds, and CPU seconds
user + sys, which depend less on other load on a shared machine).

    python perf/check_speed.py --out /work/scratch/index/speed
    python perf/check_speed.py --out DIR --no-judge       # retrieval + metrics only

New ideas on an index that is already built (issue 28): ``--index DIR --new N`` checks N
NeurIPS 2025 abstracts (title + abstract as JSON; none checked before) one after the
other, each a separate process, ``--no-judge`` unless ``--judge``; it reports wall and CPU
seconds per check and the check's own split (retrieval, vectors embedded for the pool
because the index lacks them, metrics, evidence). ``--synthetic-vectors`` first copies
the index and fills every vector with a random unit vector, to time the path where the
index's vectors are complete (nothing embedded but the input and its contributions);
the neighbours it finds are meaningless, the seconds are not.

    python perf/check_speed.py --out DIR --index /work/idx --new 5
    python perf/check_speed.py --out DIR --index /work/idx --new 5 --synthetic-vectors
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

IDEA = """# Auditing differential privacy in one training run

## Problem
Auditing the privacy guarantee of a differentially private training algorithm usually needs hundreds of
training runs, which is too expensive for large models.

## Objective
Estimate a tight empirical lower bound on the privacy parameter epsilon from a single training run.

## Approach
Insert many random canary examples into the training set, train once, and use membership guesses on the
canaries together with a statistical test to bound epsilon.
"""


def run(cmd: list[str], env: dict[str, str]) -> tuple[float, dict]:
    """Wall seconds and check.json of one command; CPU seconds (user + sys) land in the result."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    dt = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    if p.returncode != 0:
        sys.stderr.write(p.stdout + p.stderr)
        raise SystemExit(f"command failed ({p.returncode}): {' '.join(cmd)}")
    out = Path(cmd[cmd.index("-o") + 1]) / "check.json"
    res = json.loads(out.read_text())
    res["_cpu_s"] = cpu
    res["_load"] = os.getloadavg()[0]
    return dt, res


def synthetic_copy(index: Path, dst: Path) -> Path:
    """A copy of ``index`` whose vectors are all filled with seeded random unit vectors (timing only)."""
    import numpy as np

    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(index, dst, ignore=shutil.ignore_patterns("vectors.f32", "vectors.done", "ann.faiss"))
    meta = json.loads((dst / "index.json").read_text())
    n, dim = int(meta["papers"]), int(meta["embedder"]["dim"])
    vec = np.lib.format.open_memmap(dst / "tmp.npy", mode="w+", dtype=np.float32, shape=(n, dim))
    rng = np.random.default_rng(0)
    for s in range(0, n, 20000):
        block = rng.standard_normal((min(20000, n - s), dim)).astype(np.float32)
        vec[s:s + len(block)] = block / np.linalg.norm(block, axis=1, keepdims=True)
    vec.flush()
    with open(dst / "vectors.f32", "wb") as fh:
        fh.write(np.asarray(vec).tobytes())
    (dst / "tmp.npy").unlink()
    (dst / "vectors.done").write_bytes(b"\x01" * n)
    return dst


def new_ideas(args: argparse.Namespace) -> int:
    """Time ``check`` on new ideas against an existing index (see the module docstring)."""
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    index = synthetic_copy(args.index, out / "synthetic-index") if args.synthetic_vectors else args.index
    import gzip

    papers = []
    with gzip.open(args.data_dir / "fulltext" / "neurips-2025-fulltext.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            papers.append({"title": r["title"], "abstract": r["abstract"], "year": 2025})
    runs = []
    for i, p in enumerate(papers[args.skip:args.skip + args.new]):
        f = out / f"idea-{i}.json"
        f.write_text(json.dumps(p), encoding="utf-8")
        cmd = [sys.executable, "-m", "noveval.cli.main", "check", str(f), "--index", str(index), "--before-year",
               "2025", "-o", str(out / f"check-{i}")] + ([] if args.judge else ["--no-judge"])
        wall, res = run(cmd, dict(os.environ))
        t = res["timings"]
        runs.append({"title": p["title"][:70], **{k: (round(v, 2) if isinstance(v, float) else v) for k, v in t.items()},
                     "process_wall_s": round(wall, 2), "process_cpu_s": round(res["_cpu_s"], 2),
                     "load1": round(res["_load"], 1), "missing_vectors": res["timings"]["vectors_missing_from_index"]})
        print(json.dumps(runs[-1]), flush=True)
    keys = ("process_wall_s", "process_cpu_s", "cpu_s", "total_s", "retrieve_s", "retrieve_cpu_s", "embed_missing_s",
            "metrics_s", "evidence_s", "retrieval_metrics_cpu_s", "judge_s")
    summary = {"index": str(index), "synthetic_vectors": args.synthetic_vectors, "runs": runs,
               "median": {k: round(statistics.median(r[k] for r in runs), 2) for k in keys if all(k in r for r in runs)}}
    (out / "new_ideas.json").write_text(json.dumps(summary, indent=2))
    print(json.dumps(summary["median"], indent=2))
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-judge", action="store_true")
    ap.add_argument("--retrieval", default="hybrid")
    ap.add_argument("--index", type=Path, default=None, help="An existing index: time new ideas against it.")
    ap.add_argument("--new", type=int, default=3, help="New ideas (NeurIPS 2025 abstracts) to check.")
    ap.add_argument("--skip", type=int, default=1, help="Abstracts to skip first (the first is docs/check.md's).")
    ap.add_argument("--judge", action="store_true", help="With --index: also run the bundled judge.")
    ap.add_argument("--synthetic-vectors", action="store_true", help="With --index: a copy with every vector filled "
                    "(random unit vectors; timing only).")
    args = ap.parse_args(argv)
    if args.index is not None:
        return new_ideas(args)

    out = args.out
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    idea = out / "idea.md"
    idea.write_text(IDEA, encoding="utf-8")
    env = dict(os.environ, NOVEVAL_CACHE_DIR=str(out / "cache"))
    cmd = [sys.executable, "-m", "noveval.cli.main", "check", str(idea), "--corpus",
           str(args.data_dir / "corpus" / "papers.jsonl.gz"), "--index", str(out / "index"), "--before-year", "2025",
           "--retrieval", args.retrieval]
    if args.no_judge:
        cmd.append("--no-judge")
    cold_s, cold = run([*cmd, "-o", str(out / "cold")], env)
    warm = [run([*cmd, "-o", str(out / f"warm{i}")], env) for i in range(args.repeats)]
    meta = json.loads((out / "index" / "index.json").read_text())
    res = {
        "cold_s": round(cold_s, 1), "cold_cpu_s": round(cold["_cpu_s"], 1), "cold_load1": cold["_load"],
        "cold_timings": {k: round(v, 1) for k, v in cold["timings"].items()},
        "warm_s": [round(w[0], 2) for w in warm], "warm_median_s": round(statistics.median(w[0] for w in warm), 2),
        "warm_cpu_s": [round(w[1]["_cpu_s"], 2) for w in warm], "warm_load1": [w[1]["_load"] for w in warm],
        "warm_timings": {k: round(v, 2) for k, v in warm[len(warm) // 2][1]["timings"].items()},
        "index_build_s": meta.get("build_s"), "papers": meta["papers"],
        "embedded_now": cold["retrieval"]["embedded_now"], "metric_pool": cold["corpus"]["metric_pool"],
        "judge": not args.no_judge, "retrieval": args.retrieval,
        "top": [n["title"] for n in cold["neighbours"][:3]],
    }
    (out / "speed.json").write_text(json.dumps(res, indent=2))
    print(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
