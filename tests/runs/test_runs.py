"""Run directories: config guard, torn lines, ordering, bootstrap summaries."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import numpy as np
import pytest

from noveval.errors import InputError
from noveval.metrics.bootstrap import bootstrap_ci, summarize
from noveval.runs import RunDir, run_items


def test_torn_last_line_is_ignored_and_order_restored(tmp_path: Path) -> None:
    run = RunDir.create(tmp_path / "r", {"benchmark": "t"})
    run.append("predictions", {"id": "b", "v": 2})
    with open(run.file("predictions"), "a") as f:
        f.write('{"id": "c", "v"')  # killed mid-write
    assert set(run.done()) == {"b"}

    async def worker(x: str) -> dict:
        return {"v": ord(x) - 96}

    rows = asyncio.run(run_items(run, "predictions", ["a", "b", "c"], worker, id_of=lambda x: x))
    assert [r["id"] for r in rows] == ["a", "b", "c"] and [r["v"] for r in rows] == [1, 2, 3]
    lines = run.file("predictions").read_text().splitlines()
    assert [json.loads(x)["id"] for x in lines] == ["a", "b", "c"]


def test_config_mismatch_is_an_input_error(tmp_path: Path) -> None:
    RunDir.create(tmp_path / "r", {"benchmark": "t", "model": "a"})
    RunDir.create(tmp_path / "r", {"benchmark": "t", "model": "a"})  # same: resumes
    with pytest.raises(InputError, match="model"):
        RunDir.create(tmp_path / "r", {"benchmark": "t", "model": "b"})
    RunDir.create(tmp_path / "r", {"benchmark": "t", "model": "b"}, overwrite=True)


def test_duplicate_ids_rejected(tmp_path: Path) -> None:
    run = RunDir.create(tmp_path / "r", {})

    async def worker(x: str) -> dict:
        return {}

    with pytest.raises(InputError, match="duplicate"):
        asyncio.run(run_items(run, "predictions", ["a", "a"], worker, id_of=lambda x: x))


def test_bootstrap_ci_brackets_the_mean_and_is_reproducible() -> None:
    rng = np.random.default_rng(3)
    x = rng.normal(5, 1, size=200)
    lo, hi = bootstrap_ci(x, seed=1)
    assert lo < x.mean() < hi
    assert (lo, hi) == bootstrap_ci(x, seed=1)
    # the CI width is close to the normal-theory 2*1.96*sd/sqrt(n)
    assert abs((hi - lo) - 2 * 1.96 * x.std(ddof=1) / np.sqrt(200)) < 0.05
    assert all(np.isnan(v) for v in bootstrap_ci([]))
    assert bootstrap_ci([2.0]) == (2.0, 2.0)


def test_summarize_skips_missing_values() -> None:
    s = summarize([{"a": 1.0}, {"a": 3.0, "b": None}, {"b": float("nan")}], ["a", "b"])
    assert s["a"]["mean"] == 2.0 and s["a"]["n"] == 2
    assert s["b"] == {"mean": None, "ci_low": None, "ci_high": None, "n": 0}


def test_failed_rows_are_retried_on_rerun(tmp_path: Path) -> None:
    run = RunDir.create(tmp_path / "r", {})
    calls: list[str] = []
    fail_once = {"b"}

    async def worker(x: str) -> dict:
        calls.append(x)
        if x in fail_once:
            fail_once.discard(x)
            return {"error": "timed out"}
        return {"error": None, "v": x}

    asyncio.run(run_items(run, "predictions", ["a", "b"], worker, id_of=lambda x: x))
    assert run.done()["b"]["error"] == "timed out"
    rows = asyncio.run(run_items(run, "predictions", ["a", "b"], worker, id_of=lambda x: x))
    assert calls == ["a", "b", "b"] and rows[1]["v"] == "b" and rows[1]["error"] is None
    asyncio.run(run_items(run, "predictions", ["a", "b"], worker, id_of=lambda x: x))
    assert calls == ["a", "b", "b"]  # nothing left to redo
    assert [r["id"] for r in run.rows("predictions")] == ["a", "b"]


def test_client_concurrency_holds_across_concurrent_calls(tmp_path: Path) -> None:
    """Benchmarks call acomplete / acomplete_many from many items at once: the bound is client-wide."""
    from fake_openai import FakeOpenAIServer
    from noveval.models import ChatRequest, get_client

    run = RunDir.create(tmp_path / "r", {})
    with FakeOpenAIServer(delay_s=0.05) as server:
        client = get_client(f"openai-compatible/f@{server.base_url}", cache=None, concurrency=2)

        async def worker(i: int) -> dict:
            def req(part: str) -> ChatRequest:
                return ChatRequest(messages=[{"role": "user", "content": f"{i}-{part}"}])

            a = await client.acomplete(req("a"))
            b, c = await client.acomplete_many([req("b"), req("c")])
            return {"ok": a.ok and b.ok and c.ok}

        rows = client.run(run_items(run, "predictions", list(range(8)), worker, id_of=str, concurrency=8))
    assert all(r["ok"] for r in rows) and server.total == 24
    assert server.max_in_flight == 2
