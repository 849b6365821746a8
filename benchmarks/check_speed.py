"""Cold and warm ``noveval check`` against the full corpus with a new index (build included).

Cold: a new, empty cache folder (no cached vectors, responses or metric results) and a
new index folder, so the run reads the corpus, builds BM25 (the dense part starts empty),
embeds only the BM25 candidates, computes the metrics and asks the bundled model. Warm:
the same command again (index on disk, caches filled), median of ``--repeats``. Each run
is a separate ``noveval`` process, timed from start to exit (wall seconds, and CPU seconds
user + sys, which depend less on other load on a shared machine).

    python benchmarks/check_speed.py --out /work/scratch/index/speed
    python benchmarks/check_speed.py --out DIR --no-judge       # retrieval + metrics only
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-judge", action="store_true")
    ap.add_argument("--retrieval", default="hybrid")
    args = ap.parse_args(argv)

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
