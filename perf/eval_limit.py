"""Work of a real-data ``noveval eval --only validate --limit N`` against a local server (issue 37).

For each N (default 3 and 30) and each repeat, from an empty ``NOVEVAL_CACHE_DIR``:

1. start an OpenAI-compatible server on 127.0.0.1 in a child process: xllamacpp serving the
   bundled SmolLM2-135M GGUF (``--server gguf``, the default), or the tests' schema-answering
   fake (``--server fake``: the judge then costs nothing and only the eval's own work is left);
2. run ``noveval eval -m openai-compatible/smollm2@URL --only validate --limit N
   --data-dir DATA -o TMP`` as a child process (``nice -n 10``);
3. stop the server and read the CPU seconds (user + sys) of both children from
   ``resource.getrusage(RUSAGE_CHILDREN)`` before and after, and the eval's wall time.

The eval's ``scores.json`` gives the prior candidates the run embedded (``pool.candidates`` of
``sampled_from``) and its step timings. Prints one row per run, the medians per N and the ratio
of the largest N's CPU-s to the smallest's. Figures go in docs/performance.md.

    python perf/eval_limit.py [--limits 3,30] [--repeats 1] [--server gguf|fake] [--data-dir ../shared/data]
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
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

_GGUF_SERVER = """
import sys
from noveval.models.local import local_server_address
print(local_server_address().rstrip('/') + '/v1', flush=True)
sys.stdin.read()  # serve until the parent closes stdin
"""

_FAKE_SERVER = """
import sys
sys.path.insert(0, {tests!r})
from fake_openai import FakeOpenAIServer
from schema_reply import schema_reply
with FakeOpenAIServer(responder=schema_reply) as s:
    print(s.base_url, flush=True)
    sys.stdin.read()
"""


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _start_server(kind: str, env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    code = _GGUF_SERVER if kind == "gguf" else _FAKE_SERVER.format(tests=str(ROOT / "tests"))
    proc = subprocess.Popen(["nice", "-n", "10", sys.executable, "-c", code], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    url = proc.stdout.readline().strip()
    if not url.startswith("http"):
        proc.kill()
        raise SystemExit(f"server did not start ({url!r})")
    return proc, url


def _noveval() -> list[str]:
    exe = Path(sys.executable).with_name("noveval")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "noveval"]


def one_run(n: int, data_dir: Path, server: str, cache_root: Path) -> dict[str, Any]:
    """One cold eval of ``--limit n``: CPU-s of the eval and server processes, wall, candidates embedded."""
    cache = cache_root / f"limit{n}-{time.time_ns()}"
    shutil.rmtree(cache, ignore_errors=True)
    cache.mkdir(parents=True)
    env = {**os.environ, "NOVEVAL_CACHE_DIR": str(cache)}
    cpu0 = _children_cpu()
    proc, url = _start_server(server, env)
    with tempfile.TemporaryDirectory(prefix="eval-limit-") as tmp:
        out = Path(tmp) / "eval"
        cmd = ["nice", "-n", "10", *_noveval(), "eval", "-m", f"openai-compatible/smollm2@{url}", "--only", "validate",
               "--limit", str(n), "--data-dir", str(data_dir), "-o", str(out), "--allow-unparseable",
               "--allow-failures"]
        t0 = time.perf_counter()
        res = subprocess.run(cmd, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=60)
        cpu = _children_cpu() - cpu0
        scores = sorted(out.rglob("scores.json"))
        extra = json.loads(scores[0].read_text())["extra"] if scores else {}
    shutil.rmtree(cache, ignore_errors=True)
    pool = extra.get("pool") or {}
    if res.returncode != 0:
        print(res.stdout[-2000:], res.stderr[-4000:], file=sys.stderr)
    return {"limit": n, "rc": res.returncode, "cpu_s": cpu, "wall_s": wall, "candidates": pool.get("candidates"),
            "sampled_from": pool.get("sampled_from"), "judged": (extra.get("papers") or {}).get("judged"),
            "timings_s": extra.get("timings_s")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limits", default="3,30", help="Comma-separated limits (default 3,30).")
    ap.add_argument("--repeats", type=int, default=1, help="Cold runs per limit (medians reported).")
    ap.add_argument("--server", choices=("gguf", "fake"), default="gguf")
    ap.add_argument("--data-dir", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--cache-root", type=Path,
                    default=Path(os.environ.get("NOVEVAL_CACHE_DIR") or tempfile.gettempdir()) / "eval-limit")
    a = ap.parse_args()
    limits = [int(x) for x in a.limits.split(",")]
    rows = []
    for _ in range(a.repeats):
        for n in limits:
            r = one_run(n, a.data_dir, a.server, a.cache_root)
            rows.append(r)
            print(json.dumps(r), flush=True)
    print(f"\nserver: {a.server}; data: {a.data_dir}; {a.repeats} cold run(s) per limit")
    print(f"{'limit':>5} | {'CPU-s (median)':>14} | {'wall s (median)':>15} | {'candidates embedded':>19} | rc")
    med = {}
    for n in limits:
        rs = [r for r in rows if r["limit"] == n]
        med[n] = statistics.median(r["cpu_s"] for r in rs)
        print(f"{n:>5} | {med[n]:>14.1f} | {statistics.median(r['wall_s'] for r in rs):>15.1f} | "
              f"{str(rs[0]['candidates']) + ' of ' + str(rs[0]['sampled_from']):>19} | "
              f"{','.join(str(r['rc']) for r in rs)}")
    if len(limits) > 1:
        print(f"CPU-s ratio limit {limits[-1]} / limit {limits[0]}: {med[limits[-1]] / med[limits[0]]:.2f}")


if __name__ == "__main__":
    main()
