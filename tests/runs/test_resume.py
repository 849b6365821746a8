"""A run killed with SIGKILL midway resumes and ends identical to an uninterrupted run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fake_openai import FakeOpenAIServer
from noveval.models.openai_compat import PROBE_PROMPT


def _cli(args: list[str], cache_dir: Path) -> subprocess.Popen[bytes]:
    env = dict(os.environ, NOVEVAL_CACHE_DIR=str(cache_dir))
    return subprocess.Popen(
        [sys.executable, "-m", "noveval.cli.main", "-q", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _lines(p: Path) -> int:
    return len(p.read_text().splitlines()) if p.exists() else 0


@pytest.mark.slow
def test_sigkill_midway_then_resume(tmp_path: Path) -> None:
    prompts = tmp_path / "prompts.jsonl"
    n = 12
    prompts.write_text("".join(json.dumps({"id": f"item{i:02d}", "prompt": f"question {i}"}) + "\n" for i in range(n)))
    with FakeOpenAIServer(delay_s=0.25) as server:
        spec = f"openai-compatible/fake@{server.base_url}"
        run1 = tmp_path / "run-killed"
        proc = _cli(["run", "chat", "-i", str(prompts), "-o", str(run1), "-m", spec, "-c", "1"], tmp_path / "cache1")
        deadline = time.time() + 300
        while _lines(run1 / "predictions.jsonl") < 4 and time.time() < deadline:
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        finished = {json.loads(x)["id"] for x in (run1 / "predictions.jsonl").read_text().splitlines() if x.strip()}
        assert 4 <= len(finished) < n, "the kill must land midway"
        seen_before = server.total

        proc = _cli(["run", "chat", "-i", str(prompts), "-o", str(run1), "-m", spec, "-c", "1"], tmp_path / "cache1")
        assert proc.wait(timeout=120) == 0, proc.stderr.read().decode()
        second_phase = [p for _, _, p in server.log[seen_before:]]
        unfinished = {f"question {int(i[4:])}" for i in {f"item{i:02d}" for i in range(n)} - finished}
        # one short endpoint check (the run had work left), then only the unfinished items
        assert second_phase[0] == PROBE_PROMPT and second_phase.count(PROBE_PROMPT) == 1
        assert sorted(second_phase[1:]) == sorted(unfinished), "the server must see only the unfinished items again"

        run2 = tmp_path / "run-clean"
        proc = _cli(["run", "chat", "-i", str(prompts), "-o", str(run2), "-m", spec, "-c", "1"], tmp_path / "cache2")
        assert proc.wait(timeout=120) == 0
    assert (run1 / "predictions.jsonl").read_bytes() == (run2 / "predictions.jsonl").read_bytes()
    cfg = json.loads((run1 / "config.json").read_text())
    assert cfg["resumed"] == 1


@pytest.mark.slow
def test_rerunning_a_finished_run_makes_zero_calls(tmp_path: Path) -> None:
    prompts = tmp_path / "p.jsonl"
    prompts.write_text("".join(json.dumps({"id": str(i), "prompt": f"q{i}"}) + "\n" for i in range(3)))
    with FakeOpenAIServer() as server:
        spec = f"openai-compatible/fake@{server.base_url}"
        for _ in range(2):
            proc = _cli(["run", "chat", "-i", str(prompts), "-o", str(tmp_path / "r"), "-m", spec], tmp_path / "c")
            assert proc.wait(timeout=60) == 0
        # the first run: one endpoint check + 3 items; the re-run: nothing at all, not even a check
        assert server.total == 4 and server.counts[PROBE_PROMPT] == 1


def test_changed_settings_refuse_to_mix_runs(tmp_path: Path) -> None:
    prompts = tmp_path / "p.jsonl"
    prompts.write_text(json.dumps({"id": "a", "prompt": "q"}) + "\n")
    with FakeOpenAIServer() as server:
        spec = f"openai-compatible/fake@{server.base_url}"
        assert _cli(["run", "chat", "-i", str(prompts), "-o", str(tmp_path / "r"), "-m", spec], tmp_path / "c").wait(60) == 0
        proc = _cli(["run", "chat", "-i", str(prompts), "-o", str(tmp_path / "r"), "-m", spec, "--max-tokens", "7"], tmp_path / "c")
        assert proc.wait(60) == 2
        err = proc.stderr.read().decode()
        assert "config.json" in err and "params" in err and "--overwrite" in err
