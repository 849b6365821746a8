"""The OpenAI chat-completions wire format, shared by the HTTP and the in-process backend.

Both :class:`~noveval.models.openai_compat.OpenAICompatBackend` (a JSON body for
``POST /chat/completions``) and :class:`~noveval.models.local.LocalBackend` (the same body
handed to xllamacpp's server) speak it; they differ only in how they ask for JSON
(``response_format``) and in whether the body names the model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from noveval.models.chat import ChatRequest, TokenLogprob, TopLogprob

__all__ = ["chat_body", "token_logprobs"]


def chat_body(request: ChatRequest, *, response_format: dict[str, Any] | None = None) -> dict[str, Any]:
    """The chat-completions fields of ``request``: messages and its generation parameters.

    Optional parameters appear only when set (``seed``, ``top_p``, ``stop``,
    ``logprobs`` with ``top_logprobs`` defaulting to 5); ``response_format`` is the
    backend's own way to ask for schema-following JSON (given only when the request has a
    ``json_schema``). The model name is the caller's to add.
    """
    p = request.params
    body: dict[str, Any] = {
        "messages": request.messages,
        "max_tokens": p.max_tokens,
        "temperature": p.temperature,
    }
    if p.seed is not None:
        body["seed"] = p.seed
    if p.top_p is not None:
        body["top_p"] = p.top_p
    if p.stop:
        body["stop"] = list(p.stop)
    if response_format is not None:
        body["response_format"] = response_format
    if p.logprobs:
        body["logprobs"] = True
        body["top_logprobs"] = p.top_logprobs or 5
    return body


def _get(obj: Any, name: str, default: Any) -> Any:
    return obj.get(name, default) if isinstance(obj, dict) else getattr(obj, name, default)


def token_logprobs(content: Sequence[Any] | None) -> list[TokenLogprob] | None:
    """``choices[0].logprobs.content`` (SDK objects or plain dicts) as token log-probabilities.

    Returns:
        One :class:`TokenLogprob` per generated token with its top alternatives, or None
        when the reply carries none.
    """
    if not content:
        return None
    return [
        TokenLogprob(
            token=_get(t, "token", ""),
            logprob=float(_get(t, "logprob", 0.0)),
            top=[TopLogprob(token=_get(a, "token", ""), logprob=float(_get(a, "logprob", 0.0)))
                 for a in _get(t, "top_logprobs", None) or []],
        )
        for t in content
    ]
