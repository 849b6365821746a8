"""``--batch``: runs through a real files + batches API on 127.0.0.1 (tests/fake_batches.py).

What is checked against the server's own request log: a batch run sends no live chat
call and submits each request once; it ends identical to a live run; a failed, an
expired and a cancelled batch leave failed calls (exit 3) that the next run submits
again; a run killed while waiting resumes from batches.json without resubmitting; the
budget holds at the batch price.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fake_batches import FakeBatchServer
from fake_openai import FakeOpenAIServer
from noveval.cli.main import app
from scripted_rinobench import RinoScript

MODEL = "fake-batch"
REPO = Path(__file__).resolve().parents[2]


def _prompts(tmp_path: Path, n: int) -> Path:
    p = tmp_path / "prompts.jsonl"
    p.write_text("".join(json.dumps({"id": f"q{i}", "prompt": f"question {i}"}) + "\n" for i in range(n)))
    return p


def _prices(tmp_path: Path) -> Path:
    p = tmp_path / "prices.json"
    p.write_text(json.dumps({"source": "test prices", "models": {
        f"openai-compatible/{MODEL}": {"input": 1.0, "output": 10.0, "batch_discount": 0.5}}}))
    return p


def _env(tmp_path: Path) -> dict[str, str]:
    return {"NOVEVAL_CACHE_DIR": str(tmp_path / "cache"), "NOVEVAL_PRICES": str(_prices(tmp_path)),
            "NOVEVAL_BATCH_POLL_S": "0.02"}


def _cli(tmp_path: Path, *args: str):
    return CliRunner(env=_env(tmp_path)).invoke(app, ["-q", *args])


def _rows(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()] if path.exists() else []


def _chat(tmp_path: Path, server: FakeOpenAIServer, run: str, n: int, *extra: str):
    spec = f"openai-compatible/{MODEL}@{server.base_url}"
    return _cli(tmp_path, "run", "chat", "-i", str(_prompts(tmp_path, n)), "-o", str(tmp_path / run), "-m", spec,
                "--max-tokens", "10", *extra)


def _batches(run: Path) -> list[dict]:
    return json.loads((run / "batches.json").read_text())["batches"]


def test_a_batch_run_equals_a_live_run_at_the_batch_price(tmp_path: Path) -> None:
    with FakeBatchServer() as server:
        r = _chat(tmp_path, server, "b", 3, "--batch")
        assert r.exit_code == 0, r.output
        assert server.live_chat_calls == 0 and server.uploads == 1 and server.batch_creates == 1
        assert sorted(server.counts.values()) == [1, 1, 1]  # each prompt answered once, through the batch
        (entry,) = _batches(tmp_path / "b")
        assert entry["done"] and entry["status"] == "completed" and entry["answered"] == 3 and entry["requests"] == 3
        calls = json.loads((tmp_path / "b" / "calls.json").read_text())
        # 3 requests x (2 prompt x $1 + 2 completion x $10) per 1M, half price; no check call in batch mode
        assert calls["cost"]["usd"] == pytest.approx(3 * 22e-6 / 2)
        assert calls["cost"]["models"][f"openai-compatible/{MODEL}@{server.base_url}"]["batch_requests"] == 3
        assert calls["last"]["batched"] == 3 and calls["last"]["complete"] is True
        assert "3 request(s) at the batch price" in r.stdout and "through the batch API" in r.stdout

        again = _chat(tmp_path, server, "b", 3, "--batch")  # finished: all from the cache, nothing submitted
        assert again.exit_code == 0 and server.batch_creates == 1 and server.live_chat_calls == 0

        live = _chat(tmp_path, server, "live", 3, "--no-cache")
        assert live.exit_code == 0 and server.live_chat_calls == 4  # the check + 3
    strip = [{k: v for k, v in row.items()} for row in _rows(tmp_path / "b" / "predictions.jsonl")]
    assert strip == _rows(tmp_path / "live" / "predictions.jsonl")


def test_a_two_step_pipeline_takes_one_batch_per_step_and_scores_like_a_live_run(tmp_path: Path) -> None:
    """RINoBench with a judge: the judge's requests exist only once the judgments are known."""
    with FakeBatchServer(responder=RinoScript()) as server:
        spec = f"openai-compatible/{MODEL}@{server.base_url}"
        args = ["run", "rinobench", "-m", spec, "-j", spec, "--limit", "2"]
        r = _cli(tmp_path, *args, "-o", str(tmp_path / "b"), "--batch")
        assert r.exit_code == 0, r.output
        assert server.live_chat_calls == 0
        entries = _batches(tmp_path / "b")
        assert len(entries) >= 2 and entries[0]["requests"] == 2  # round 1: the two judgments
        assert all(e["done"] and e["status"] == "completed" for e in entries)
        live = _cli(tmp_path, *args, "-o", str(tmp_path / "live"), "--no-cache")
        assert live.exit_code == 0, live.output
    b = json.loads((tmp_path / "b" / "scores.json").read_text())
    ref = json.loads((tmp_path / "live" / "scores.json").read_text())
    assert b["metrics"] == ref["metrics"] and "mean_alignment" in b["metrics"]
    assert _rows(tmp_path / "b" / "per_item.jsonl") == _rows(tmp_path / "live" / "per_item.jsonl")


def test_a_failed_batch_is_failed_calls_and_the_next_run_submits_them_again(tmp_path: Path) -> None:
    with FakeBatchServer(batch_plan=["fail", "complete"]) as server:
        r = _chat(tmp_path, server, "b", 3, "--batch")
        assert r.exit_code == 3, r.output
        assert "model calls: 3 of 3 failed" in r.stdout and "batch batch-2 failed: injected: the batch failed" in r.stdout
        assert [row["error"] is not None for row in _rows(tmp_path / "b" / "predictions.jsonl")] == [True] * 3
        assert json.loads((tmp_path / "b" / "calls.json").read_text())["last"]["complete"] is False
        assert server.live_chat_calls == 0

        again = _chat(tmp_path, server, "b", 3, "--batch")
        assert again.exit_code == 0, again.output
        first, second = _batches(tmp_path / "b")
        assert (first["status"], first["failed"]) == ("failed", 3) and second["requests"] == 3
        assert all(row["error"] is None for row in _rows(tmp_path / "b" / "predictions.jsonl"))
        assert server.live_chat_calls == 0 and server.batch_creates == 2


def test_an_expired_batch_keeps_what_was_answered(tmp_path: Path) -> None:
    with FakeBatchServer(batch_plan=["expire:1", "complete"]) as server:
        r = _chat(tmp_path, server, "b", 3, "--batch")
        assert r.exit_code == 3, r.output
        assert "2 of 3 failed" in r.stdout and "batch_expired" in r.stdout
        assert [row["error"] is None for row in _rows(tmp_path / "b" / "predictions.jsonl")] == [True, False, False]
        calls = json.loads((tmp_path / "b" / "calls.json").read_text())
        assert calls["cost"]["models"][f"openai-compatible/{MODEL}@{server.base_url}"]["batch_requests"] == 1

        again = _chat(tmp_path, server, "b", 3, "--batch")
        assert again.exit_code == 0, again.output
        assert [e["requests"] for e in _batches(tmp_path / "b")] == [3, 2]  # only the expired two again
        assert sorted(server.counts.values()) == [1, 1, 1]


def test_a_request_the_batch_refused_is_a_failed_call(tmp_path: Path) -> None:
    with FakeBatchServer() as server:
        server.plan["question 1"] = ["400"]
        r = _chat(tmp_path, server, "b", 3, "--batch")
        assert r.exit_code == 3, r.output
        assert "1 of 3 failed" in r.stdout and "HTTP 400: injected per-request failure" in r.stdout


def test_the_budget_holds_at_the_batch_price(tmp_path: Path) -> None:
    """Each request is estimated at (11 prompt x $1 + 10 max tokens x $10) / 1M / 2 = $0.0000555.

    --max-cost 0.00012 admits two (0.000111) but not three (0.0001665): one batch of two,
    then the run stops (exit 4) with two items; a higher budget submits the other two.
    """
    with FakeBatchServer() as server:
        r = _chat(tmp_path, server, "b", 4, "--batch", "--max-cost", "0.00012")
        assert r.exit_code == 4, r.output
        assert [e["requests"] for e in _batches(tmp_path / "b")] == [2]
        assert [row["id"] for row in _rows(tmp_path / "b" / "predictions.jsonl")] == ["q0", "q1"]
        assert server.live_chat_calls == 0

        done = _chat(tmp_path, server, "b", 4, "--batch", "--max-cost", "1")
        assert done.exit_code == 0, done.output
        assert [e["requests"] for e in _batches(tmp_path / "b")] == [2, 2]
        assert json.loads((tmp_path / "b" / "calls.json").read_text())["cost"]["usd"] == pytest.approx(4 * 11e-6)


def test_a_server_without_a_batch_api_is_one_line(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        r = _chat(tmp_path, server, "b", 2, "--batch")
    assert r.exit_code == 2
    assert r.stderr.count("\n") == 1 and "no batch API" in r.stderr and "run without --batch" in r.stderr


def test_batch_needs_the_cache_and_refuses_refresh(tmp_path: Path) -> None:
    with FakeBatchServer() as server:
        r = _chat(tmp_path, server, "b", 2, "--batch", "--no-cache")
        assert r.exit_code == 2 and "--batch needs the response cache" in r.stderr
        r = _chat(tmp_path, server, "c", 2, "--batch", "--refresh")  # would ask for the same answers forever
        assert r.exit_code == 2 and "drop --refresh" in r.stderr
        assert server.batch_creates == 0 and server.live_chat_calls == 0


def _start_killable_run(tmp_path: Path, server: FakeBatchServer) -> subprocess.Popen:
    env = {**os.environ, **_env(tmp_path), "PYTHONPATH": str(REPO / "src")}
    spec = f"openai-compatible/{MODEL}@{server.base_url}"
    cmd = [sys.executable, "-c", "from noveval.cli.main import main; main()", "-q", "run", "chat",
           "-i", str(_prompts(tmp_path, 3)), "-o", str(tmp_path / "b"), "-m", spec, "--max-tokens", "10", "--batch"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not (tmp_path / "b" / "batches.json").exists():
        assert proc.poll() is None, "the run ended before it saved its batch"
        assert time.monotonic() < deadline, "no batches.json after 120 s"
        time.sleep(0.05)
    while sum(1 for m, p in server.http_log if m == "GET" and "/batches/" in p) < 3:  # it is polling
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    return proc


@pytest.mark.slow
def test_a_run_killed_while_waiting_resumes_without_resubmitting(tmp_path: Path) -> None:
    with FakeBatchServer(batch_plan=["hold"]) as server:
        _start_killable_run(tmp_path, server)
        (entry,) = _batches(tmp_path / "b")
        assert not entry["done"] and server.batch_creates == 1 and server.uploads == 1

        status = _cli(tmp_path, "batch", "status", str(tmp_path / "b"))
        assert status.exit_code == 0 and f"{entry['id']}" in status.stdout and "in_progress at the provider" in status.stdout

        server.release(entry["id"])
        r = _chat(tmp_path, server, "b", 3, "--batch")
        assert r.exit_code == 0, r.output
        assert server.batch_creates == 1 and server.uploads == 1  # nothing submitted again
        assert server.live_chat_calls == 0 and sorted(server.counts.values()) == [1, 1, 1]
        assert _batches(tmp_path / "b")[0]["done"] is True
        assert len(_rows(tmp_path / "b" / "predictions.jsonl")) == 3


@pytest.mark.slow
def test_a_cancelled_batch_is_collected_then_submitted_again(tmp_path: Path) -> None:
    with FakeBatchServer(batch_plan=["hold", "complete"]) as server:
        _start_killable_run(tmp_path, server)
        cancel = _cli(tmp_path, "batch", "cancel", str(tmp_path / "b"))
        assert cancel.exit_code == 0 and "cancelling" in cancel.stdout

        r = _chat(tmp_path, server, "b", 3, "--batch")
        assert r.exit_code == 3, r.output  # the cancelled batch answered nothing: 3 failed calls
        assert "3 of 3 failed" in r.stdout and "batch_cancelled" in r.stdout
        assert server.batch_creates == 1

        again = _chat(tmp_path, server, "b", 3, "--batch")
        assert again.exit_code == 0, again.output
        assert [e["status"] for e in _batches(tmp_path / "b")] == ["cancelled", "completed"]
        status = _cli(tmp_path, "batch", "status", str(tmp_path / "b"))
        assert "cancelled, results stored: 0 answered, 3 without an answer" in status.stdout


def test_overwrite_with_batch_starts_the_folder_total_afresh(tmp_path: Path) -> None:
    with FakeBatchServer() as server:
        assert _chat(tmp_path, server, "b", 2, "--batch").exit_code == 0
        r = _chat(tmp_path, server, "b", 2, "--batch", "--overwrite", "--temperature", "0.5")  # new requests
        assert r.exit_code == 0, r.output
        assert server.batch_creates == 2
    calls = json.loads((tmp_path / "b" / "calls.json").read_text())
    assert calls["cost"]["usd"] == pytest.approx(2 * 22e-6 / 2)  # the second batch only
    assert [e["requests"] for e in _batches(tmp_path / "b")] == [2]  # batches.json of the new run only
