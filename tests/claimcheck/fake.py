"""Scripted replies through the real stack: ChatClient -> OpenAI SDK -> HTTP -> local server.

Task-plumbing tests need specific model answers; instead of replacing the client, they
get a real client whose server (tests/fake_openai.py on 127.0.0.1) answers with
``reply(last_user_message)``. Servers are stopped after each test (see conftest.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fake_openai import FakeOpenAIServer
from noveval.models.client import ChatClient, RetryPolicy
from noveval.models.openai_compat import OpenAICompatBackend
from noveval.models.spec import parse_spec

_SERVERS: list[FakeOpenAIServer] = []


def FakeClient(reply: Callable[[str], dict[str, Any] | str]) -> ChatClient:  # noqa: N802
    """A real client (no cache) against a local server that answers with ``reply``."""
    server = FakeOpenAIServer(responder=reply).__enter__()
    _SERVERS.append(server)
    backend = OpenAICompatBackend(parse_spec(f"openai-compatible/scripted@{server.base_url}"))
    client = ChatClient(backend, cache=None, concurrency=4, retry=RetryPolicy(max_retries=1, base_s=0.01, cap_s=0.01))
    client.server = server  # type: ignore[attr-defined]  # tests read server.total
    return client


def stop_all() -> None:
    """Stop every server started by :func:`FakeClient`."""
    while _SERVERS:
        _SERVERS.pop().__exit__(None, None, None)
