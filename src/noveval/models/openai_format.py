"""The OpenAI chat-completions wire format, shared by the HTTP and the in-process backend.

Both :class:`~noveval.models.openai_compat.OpenAICompatBackend` (a JSON body for
``POST /chat/completions``) and :class:`~noveval.models.local.LocalBackend` (the same body
handed to xllamacpp's server) speak it; they differ only in how they ask for JSON
(``response_format``) and in whether the body names the model.

Prompt caching (:func:`prompt_cache`): llama.cpp (the in-process backend, and a llama.cpp
server over HTTP) reuses the key/value cache of the previous prompt's common prefix. The
reused prefix was computed in other batches than a fresh evaluation would use, so the
logits differ in the last bits and greedy decoding of the tiny model can take another
token: the answer to a request then depends on which requests came before it. Measured on
the shipped claimcheck sample (ca, temperature 0, the bundled SmolLM2): the same request
answered differently in-process and over HTTP whenever the two servers' histories differed,
and identically (every item, also at temperature 0.9 with the same seed) with the cache off.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from noveval.errors import ConfigError
from noveval.models.chat import ChatRequest, TokenLogprob, TopLogprob

__all__ = ["PROMPT_CACHE_ENV", "chat_body", "prompt_cache", "token_logprobs"]

PROMPT_CACHE_ENV = "NOVEVAL_PROMPT_CACHE"
"""``1``: reuse prompt prefixes (faster, history-dependent answers); ``0``: never; unset: the backend's default."""


def prompt_cache(default: bool | None) -> bool | None:
    """Whether a request asks llama.cpp to reuse the cached prompt prefix (its ``cache_prompt`` field).

    ``$NOVEVAL_PROMPT_CACHE`` decides when set (``1``/``true``/``yes``/``on`` or
    ``0``/``false``/``no``/``off``); else ``default``. None means "do not send the field"
    (a server that is not llama.cpp may reject fields it does not know).

    Raises:
        ConfigError: the variable holds anything else.
    """
    value = os.environ.get(PROMPT_CACHE_ENV, "").strip().lower()
    if not value:
        return default
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"{PROMPT_CACHE_ENV}={value!r}: expected 1 (reuse prompt prefixes) or 0 (never)")


def chat_body(request: ChatRequest, *, response_format: dict[str, Any] | None = None,
              cache_prompt: bool | None = None) -> dict[str, Any]:
    """The chat-completions fields of ``request``: messages and its generation parameters.

    Optional parameters appear only when set (``seed``, ``top_p``, ``stop``,
    ``logprobs`` with ``top_logprobs`` defaulting to 5); ``response_format`` is the
    backend's own way to ask for schema-following JSON (given only when the request has a
    ``json_schema``). ``cache_prompt`` is llama.cpp's field (see :func:`prompt_cache`), sent
    only when not None. The request's ``extra_body`` fields (``--extra-body``) come last, as
    they are. The model name is the caller's to add.
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
    if cache_prompt is not None:
        body["cache_prompt"] = cache_prompt
    if p.extra_body:
        body.update(p.extra_body)
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
