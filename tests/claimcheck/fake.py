"""A scripted chat client for fast, deterministic tests of the task plumbing."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

from noveval.models.chat import ChatResponse


class FakeClient:
    """Answers each request with ``reply(prompt_text)`` (a dict, serialised as JSON)."""

    model_id = "fake"

    def __init__(self, reply: Callable[[str], dict | str]) -> None:
        self.reply = reply
        self.prompts: list[str] = []
        self.stats = {"cache_hits": 0, "requests": 0}

    def semaphore(self) -> asyncio.Semaphore:
        return asyncio.Semaphore(4)

    async def acomplete(self, request, *, _sem=None) -> ChatResponse:  # noqa: ANN001
        text = request.messages[-1]["content"]
        self.prompts.append(text)
        self.stats["requests"] += 1
        out = self.reply(text)
        return ChatResponse(text=out if isinstance(out, str) else json.dumps(out))
