"""Scripted replies through the real stack: ChatClient -> OpenAI SDK -> HTTP -> local server.

Task-plumbing tests need specific model answers; instead of replacing the client, they
get a real client whose server (tests/fake_openai.py on 127.0.0.1) answers with
``reply(last_user_message)``. Servers are stopped after each test (see conftest.py).

Extras for protocol tests: ``REQUEST.seed`` holds the sampling seed of the request being
answered (so a reply can depend on it), ``faults(prompt)`` may return a fault action of
the fake server (``"500"``, ``"malformed"``, ...) to inject a failure a real model cannot
be made to produce, and ``cache_path`` gives the client a real SQLite response cache.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fake_openai import FakeOpenAIServer
from noveval.models.client import ChatClient, RetryPolicy
from noveval.models.openai_compat import OpenAICompatBackend
from noveval.models.spec import parse_spec

_SERVERS: list[FakeOpenAIServer] = []

REQUEST = threading.local()
"""``REQUEST.seed``: the seed of the request the responder is answering."""


def FakeClient(  # noqa: N802
    reply: Callable[[str], dict[str, Any] | str],
    *,
    faults: Callable[[str], str | None] | None = None,
    cache_path: str | Path | None = None,
) -> ChatClient:
    """A real client against a local server that answers with ``reply``."""
    server = FakeOpenAIServer(responder=reply).__enter__()
    _SERVERS.append(server)
    chat, next_action = server._chat, server._next_action

    def _chat(h: Any, body: dict[str, Any]) -> None:
        REQUEST.seed = body.get("seed")
        chat(h, body)

    def _next(prompt: str) -> str:
        action = next_action(prompt)
        return (faults(prompt) if faults else None) or action

    server._chat = _chat  # type: ignore[method-assign]
    server._next_action = _next  # type: ignore[method-assign]
    backend = OpenAICompatBackend(parse_spec(f"openai-compatible/scripted@{server.base_url}"))
    cache = None
    if cache_path is not None:
        from noveval.models.cache import ResponseCache

        cache = ResponseCache(cache_path)
    client = ChatClient(backend, cache=cache, concurrency=4, retry=RetryPolicy(max_retries=1, base_s=0.01, cap_s=0.01))
    client.server = server  # type: ignore[attr-defined]  # tests read server.total
    return client


def stop_all() -> None:
    """Stop every server started by :func:`FakeClient`."""
    while _SERVERS:
        _SERVERS.pop().__exit__(None, None, None)
