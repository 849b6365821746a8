"""Throughput of noveval's chat client vs direct ``openai`` SDK calls, same local server.

The server (tests/fake_openai.py) answers every request after a fixed delay, standing
in for a remote model; both sides send the same N requests at concurrency 1, 4, 16.
noveval runs with the cache off (pure client overhead) and with a cold SQLite cache
(miss path: lookup + store). Ratio = noveval req/s ÷ SDK req/s (goal ≥ 0.9).

Usage: python perf/chat_throughput.py [--n 200] [--delay 0.02] [--repeats 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fake_openai import FakeOpenAIServer  # noqa: E402
from noveval.models import ChatRequest, GenerationParams, ResponseCache, get_client  # noqa: E402


async def sdk_run(base_url: str, prompts: list[str], conc: int) -> float:
    from openai import AsyncOpenAI

    client = AsyncOpenAI(base_url=base_url, api_key="x", max_retries=0)
    sem = asyncio.Semaphore(conc)

    async def one(p: str) -> None:
        async with sem:
            await client.chat.completions.create(model="fake", messages=[{"role": "user", "content": p}], max_tokens=8, temperature=0.0, seed=0)

    t0 = time.perf_counter()
    await asyncio.gather(*(one(p) for p in prompts))
    rate = len(prompts) / (time.perf_counter() - t0)
    await client.close()
    return rate


def noveval_run(base_url: str, prompts: list[str], conc: int, cache: ResponseCache | None) -> float:
    client = get_client(f"openai-compatible/fake@{base_url}", cache=cache, concurrency=conc)
    reqs = [ChatRequest(messages=[{"role": "user", "content": p}], params=GenerationParams(max_tokens=8)) for p in prompts]
    t0 = time.perf_counter()
    out = client.complete_many(reqs)
    dt = time.perf_counter() - t0
    assert all(r.ok for r in out)
    return len(prompts) / dt


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--delay", type=float, default=0.02)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    print(f"N={a.n} requests, server delay {a.delay * 1000:.0f} ms, medians of {a.repeats}")
    print(f"{'conc':>4} {'sdk req/s':>10} {'noveval':>10} {'ratio':>6} {'+cache':>10} {'ratio':>6}")
    with FakeOpenAIServer(delay_s=a.delay) as server, tempfile.TemporaryDirectory() as tmp:
        for conc in (1, 4, 16):
            sdk, nov, novc = [], [], []
            for r in range(a.repeats):
                prompts = [f"c{conc}-r{r}-q{i}" for i in range(a.n)]
                sdk.append(asyncio.run(sdk_run(server.base_url, prompts, conc)))
                nov.append(noveval_run(server.base_url, prompts, conc, None))
                cache = ResponseCache(Path(tmp) / f"c{conc}-{r}.sqlite")
                novc.append(noveval_run(server.base_url, prompts, conc, cache))
            s, n, c = statistics.median(sdk), statistics.median(nov), statistics.median(novc)
            print(f"{conc:>4} {s:>10.1f} {n:>10.1f} {n / s:>6.2f} {c:>10.1f} {c / s:>6.2f}")


if __name__ == "__main__":
    main()
