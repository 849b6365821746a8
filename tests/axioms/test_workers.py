"""`axioms run --jobs N`: worker processes do not outlive their parent (issue 14 follow-up).

A real parent process runs :func:`_map_jobs` with two spawned workers that sleep (a stand-in
for a long t-SNE fit); the test kills the parent with SIGTERM (no clean-up runs) and
checks that both workers are gone within a few seconds instead of finishing their jobs.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

PARENT = """
import multiprocessing, sys, threading, time
from noveval.benchmarks.axioms.engine import _map_jobs

threading.Thread(target=lambda: list(_map_jobs(time.sleep, [60, 60, 60], 2, None)), daemon=True).start()
for _ in range(200):
    kids = multiprocessing.active_children()
    if len(kids) >= 2:
        break
    time.sleep(0.1)
time.sleep(1.0)  # let the workers pick up their first job
print(" ".join(str(p.pid) for p in multiprocessing.active_children()), flush=True)
time.sleep(120)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (exited, not yet reaped by init) counts as gone
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_workers_end_when_the_parent_is_killed() -> None:
    proc = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    pids: list[int] = []
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        pids = [int(x) for x in line.split()]
        assert len(pids) >= 2, f"workers did not start: {line!r}"
        assert all(_alive(p) for p in pids)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(_alive(p) for p in pids):
            time.sleep(0.2)
        assert not any(_alive(p) for p in pids), "a worker outlived its parent"
    finally:
        if proc.poll() is None:
            proc.kill()
        for p in pids:  # never leave a sleeping worker behind, even when the test fails
            if _alive(p):
                os.kill(p, signal.SIGKILL)
