"""run_async closes every client's HTTP connections inside the loop that opened them."""

from __future__ import annotations

import asyncio

from fake_openai import FakeOpenAIServer
from noveval.models import ChatRequest, GenerationParams, get_client
from noveval.models.client import run_async


def _req(prompt: str) -> ChatRequest:
    return ChatRequest(messages=[{"role": "user", "content": prompt}], params=GenerationParams(max_tokens=8))


def test_run_async_closes_all_clients_and_returns_the_result(tmp_path) -> None:
    with FakeOpenAIServer() as server:
        spec = f"openai-compatible/fake@{server.base_url}"
        gen = get_client(spec, cache=None)
        judge = get_client(spec, cache=None)
        opened: list[object] = []

        async def work() -> list[str]:
            a = await gen.acomplete(_req("one"))
            b = await judge.acomplete(_req("two"))
            opened.extend([gen.backend._clients[id(asyncio.get_running_loop())],
                           judge.backend._clients[id(asyncio.get_running_loop())]])
            return [a.text, b.text]

        texts = run_async(work(), gen, None, judge, gen)  # None and repeats are fine
        assert len(texts) == 2 and all(texts)
        assert server.total == 2
        # both SDK clients were closed in their loop and forgotten by the backends
        assert gen.backend._clients == {} and judge.backend._clients == {}
        assert all(c.is_closed() for c in opened)
