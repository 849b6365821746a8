"""Chat backend for the OpenAI API and any OpenAI-compatible server, on the official SDK.

The SDK's own retries are disabled (``max_retries=0``): the client in
:mod:`noveval.models.client` owns the retry policy so that it is the same for every
backend. This module only classifies failures:

- transient (retried): HTTP 429 (with ``Retry-After``), 5xx, timeouts, connection
  errors, a body that is not a well-formed completion;
- permanent: other 4xx (bad request, auth, not found).

Each error also carries a ``kind`` (:func:`classify_openai_error`) so that a run can stop
at once with one clear line when the endpoint cannot work at all (:mod:`.calls`).
"""

from __future__ import annotations

import asyncio
import email.utils
import socket
import time
from typing import Any

from pydantic import ValidationError

from noveval.models.chat import (
    ChatRequest,
    ChatResponse,
    GenerationParams,
    PermanentBackendError,
    TransientBackendError,
)
from noveval.models.openai_format import chat_body, prompt_cache, token_logprobs
from noveval.models.spec import ModelSpec

OPENAI_BASE_URL = "https://api.openai.com/v1"
_NOT_OPENAI = ("cache_prompt",)
"""Body fields that are not the OpenAI SDK's own (sent through its ``extra_body``, as is every
field of a request's ``params.extra_body``)."""
PROBE_PROMPT = "Reply with OK."
"""The user message of the endpoint check (one token, never cached)."""


def parse_retry_after(value: str | None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or HTTP date), or None."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class OpenAICompatBackend:
    """Chat completions over HTTP with the ``openai`` async client.

    Args:
        spec: A parsed ``openai/...`` or ``openai-compatible/...`` spec.
        timeout_s: Per-request timeout in seconds.
    """

    default_concurrency = 8

    def __init__(self, spec: ModelSpec, *, timeout_s: float = 120.0) -> None:
        self.spec = spec
        self.base_url = spec.base_url or OPENAI_BASE_URL
        self.model_id = spec.label
        self.timeout_s = timeout_s
        self._api_key = spec.api_key()  # fail early when a required key is missing
        self._clients: dict[int, Any] = {}
        self._schema_unsupported = False

    def _client(self) -> Any:
        """The SDK client of the running event loop.

        httpx connection pools belong to one loop; a client reused after its loop
        closed fails with "Event loop is closed", so each loop gets its own.
        """
        from openai import AsyncOpenAI

        loop = asyncio.get_running_loop()
        client = self._clients.get(id(loop))
        if client is None:
            self._clients = {id(loop): AsyncOpenAI(api_key=self._api_key, base_url=self.base_url, max_retries=0, timeout=self.timeout_s)}
            client = self._clients[id(loop)]
        return client

    async def aclose(self) -> None:
        """Close the SDK client of the running loop (call before the loop ends)."""
        client = self._clients.pop(id(asyncio.get_running_loop()), None)
        if client is not None:
            await client.close()

    def request_body(self, request: ChatRequest) -> dict[str, Any]:
        """The JSON body of ``POST /chat/completions`` for a request (also a batch line's ``body``).

        ``cache_prompt`` (llama.cpp's) is in it only when ``$NOVEVAL_PROMPT_CACHE`` is set:
        ``0`` makes a llama.cpp server answer as the in-process backend does (see
        :mod:`noveval.models.openai_format`).
        """
        schema = request.params.json_schema
        response_format: dict[str, Any] | None = None
        if schema is not None:
            response_format = (
                {"type": "json_object"} if self._schema_unsupported
                else {"type": "json_schema", "json_schema": {"name": "output", "schema": schema, "strict": False}}
            )
        return {"model": self.spec.model, **chat_body(request, response_format=response_format,
                                                      cache_prompt=prompt_cache(None))}

    async def send(self, request: ChatRequest) -> ChatResponse:
        """One attempt; classify failures as transient or permanent."""
        return await self._send_with(self._client(), request)

    async def probe(self) -> ChatResponse:
        """One short call (one token) on a client of its own, to check the endpoint works.

        Returns:
            The reply (its tokens are billed like any call's).

        Raises:
            TransientBackendError | PermanentBackendError: as :meth:`send`, with ``kind`` set.
        """
        from openai import AsyncOpenAI


        client = AsyncOpenAI(api_key=self._api_key, base_url=self.base_url, max_retries=0, timeout=self.timeout_s)
        request = ChatRequest(messages=[{"role": "user", "content": PROBE_PROMPT}],
                              params=GenerationParams(max_tokens=1), tag="endpoint check")
        try:
            return await self._send_with(client, request)
        finally:
            await client.close()

    async def _send_with(self, client: Any, request: ChatRequest) -> ChatResponse:
        import openai

        t0 = time.perf_counter()
        try:
            body = self.request_body(request)
            own = (*_NOT_OPENAI, *(request.params.extra_body or {}))  # the user's --extra-body fields, as they are
            extra = {k: body.pop(k) for k in own if k in body}  # the SDK takes only its own fields
            resp = await client.chat.completions.create(**body, extra_body=extra or None)
        except openai.APIStatusError as e:
            if e.status_code == 400 and request.params.json_schema is not None and not self._schema_unsupported:
                # Server without json_schema support: fall back to plain JSON mode once.
                self._schema_unsupported = True
                raise TransientBackendError("HTTP 400 with json_schema; retrying with json_object", kind="bad_request") from e
            raise classify_openai_error(e, self.spec.model) from e
        except openai.OpenAIError as e:
            raise classify_openai_error(e, self.spec.model) from e
        except (ValueError, TypeError, KeyError) as e:
            raise TransientBackendError(f"malformed response body: {_short(str(e))}", kind="malformed") from e
        return completion_response(resp, latency_s=time.perf_counter() - t0)

    def parse_body(self, body: Any) -> ChatResponse:
        """A chat-completion JSON body (a batch output line's ``response.body``) as a response.

        Raises:
            TransientBackendError: the body is not a well-formed completion (``kind="malformed"``).
        """
        from openai.types.chat import ChatCompletion

        try:
            resp = ChatCompletion.model_validate(body)
        except ValidationError as e:
            raise TransientBackendError(f"malformed response body: {_short(str(e))}", kind="malformed") from None
        return completion_response(resp, latency_s=0.0)


def completion_response(resp: Any, *, latency_s: float) -> ChatResponse:
    """An SDK ``ChatCompletion`` as a :class:`ChatResponse` (text, finish reason, usage, logprobs).

    Raises:
        TransientBackendError: no ``choices[0].message.content`` (``kind="malformed"``).
    """
    try:
        choice = resp.choices[0]
        text = choice.message.content
    except (AttributeError, IndexError, TypeError) as e:
        raise TransientBackendError("malformed response body: no choices[0].message", kind="malformed") from e
    if text is None or not isinstance(text, str):
        raise TransientBackendError("malformed response body: message content missing", kind="malformed")
    usage = getattr(resp, "usage", None)
    details = getattr(usage, "prompt_tokens_details", None)
    return ChatResponse(
        text=text,
        finish_reason=getattr(choice, "finish_reason", None),
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        cached_prompt_tokens=int(getattr(details, "cached_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        latency_s=latency_s,
        logprobs=token_logprobs(getattr(getattr(choice, "logprobs", None), "content", None)),
    )


def classify_openai_error(e: Exception, model: str) -> TransientBackendError | PermanentBackendError:
    """Turn an ``openai`` SDK exception into a backend error with a ``kind`` and a plain message.

    Kinds (see :data:`noveval.models.chat.ERROR_KINDS`): connection refused, unknown host
    or dropped connection -> ``unreachable``; timeout -> ``timeout``; 401/403 -> ``auth``;
    404 -> ``not_found``; 429 -> ``rate_limited``; 5xx, 408, 409 -> ``server_error``;
    other 4xx -> ``bad_request``; an unreadable body -> ``malformed``. Transient ones (retried)
    are unreachable, timeout, rate_limited, server_error and malformed.

    Args:
        e: The SDK exception.
        model: The model name the request asked for (named in a 404 message).
    """
    import openai

    if isinstance(e, openai.APITimeoutError):  # a subclass of APIConnectionError: test it first
        return TransientBackendError("request timed out", kind="timeout")
    if isinstance(e, openai.APIConnectionError):
        return TransientBackendError(_connection_detail(e), kind="unreachable")
    if isinstance(e, openai.APIStatusError):
        status = e.status_code
        retry_after = parse_retry_after(e.response.headers.get("retry-after"))
        if status == 429:
            return TransientBackendError("HTTP 429 rate limited", retry_after=retry_after, kind="rate_limited")
        if status >= 500 or status in (408, 409):
            return TransientBackendError(f"HTTP {status}", retry_after=retry_after, kind="server_error")
        if status in (401, 403):
            return PermanentBackendError(
                f"HTTP {status}: the endpoint refused the API key (it comes from NOVEVAL_API_KEY, else "
                f"OPENAI_API_KEY): {_short(e.message, 120)}",
                kind="auth",
            )
        if status == 404:
            return PermanentBackendError(
                f"HTTP 404: no model {model!r} at this endpoint (check the model name and the /v1 base URL): "
                f"{_short(e.message, 120)}",
                kind="not_found",
            )
        return PermanentBackendError(f"HTTP {status}: {_short(e.message)}", kind="bad_request")
    if isinstance(e, openai.APIResponseValidationError):
        return TransientBackendError(f"malformed response body: {_short(str(e))}", kind="malformed")
    return PermanentBackendError(f"{type(e).__name__}: {_short(str(e))}", kind="error")


def _connection_detail(e: BaseException) -> str:
    """Name the root cause of a connection failure: refused, unknown host, reset, ..."""
    seen: set[int] = set()
    cur: BaseException | None = e
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        if isinstance(cur, socket.gaierror):
            return f"unknown host ({cur.strerror or cur})"
        if isinstance(cur, ConnectionRefusedError):
            return "connection refused"
        if isinstance(cur, ConnectionResetError):
            return "connection reset by the server"
        if isinstance(cur, OSError) and cur.strerror:
            return cur.strerror.lower()
        cur = cur.__cause__ or cur.__context__
    inner = e.__cause__ or e
    return f"connection error: {_short(str(inner))}"


def _short(s: str, n: int = 200) -> str:
    s = " ".join(str(s).split())
    return s if len(s) <= n else s[: n - 1] + "…"
