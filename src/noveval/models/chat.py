"""Request and response types shared by every chat backend, and the backend protocol."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

Message = dict[str, str]
"""A chat message: ``{"role": "system"|"user"|"assistant", "content": "..."}``."""


class GenerationParams(BaseModel):
    """Generation settings passed through to the backend (all part of the cache key)."""

    model_config = ConfigDict(frozen=True)

    temperature: float = Field(default=0.0, ge=0.0, description="Sampling temperature; 0 = greedy.")
    max_tokens: int = Field(default=512, ge=1, description="Maximum new tokens.")
    seed: int | None = Field(default=0, description="Sampling seed (ignored by some servers).")
    top_p: float | None = Field(default=None, description="Nucleus sampling mass.")
    stop: tuple[str, ...] | None = Field(default=None, description="Stop strings.")
    json_schema: dict[str, Any] | None = Field(
        default=None,
        description="JSON schema the reply must follow (grammar on the local backend, "
        "response_format on OpenAI-compatible servers).",
    )
    logprobs: bool = Field(default=False, description="Return per-token log-probabilities.")
    top_logprobs: int | None = Field(default=None, description="Alternatives per token (needs logprobs).")
    extra_body: dict[str, Any] | None = Field(
        default=None,
        description="Further request-body fields sent as they are (e.g. chat_template_kwargs, reasoning_effort); "
        "part of the cache key when set.",
    )


class GenerationOverrides(BaseModel):
    """Settings a user gives for every call to the model under test (``--max-tokens``,
    ``--temperature``, ``--extra-body``); None leaves each call's own value.

    Applied by the client to every request before the cache key is made
    (:meth:`apply`), so the cache, the budget and the request body all see them.
    """

    model_config = ConfigDict(frozen=True)

    max_tokens: int | None = Field(default=None, ge=1, description="Max new tokens of every call (None: each call's own).")
    temperature: float | None = Field(default=None, ge=0.0, description="Temperature of every call (None: each call's own).")
    extra_body: dict[str, Any] | None = Field(default=None, description="Fields added to every request body.")

    @property
    def empty(self) -> bool:
        """Whether nothing is overridden."""
        return self.max_tokens is None and self.temperature is None and not self.extra_body

    def apply(self, params: GenerationParams) -> GenerationParams:
        """``params`` with the overridden settings (extra fields merged over the call's own ones)."""
        if self.empty:
            return params
        update: dict[str, Any] = {}
        if self.max_tokens is not None:
            update["max_tokens"] = self.max_tokens
        if self.temperature is not None:
            update["temperature"] = self.temperature
        if self.extra_body:
            update["extra_body"] = {**(params.extra_body or {}), **self.extra_body}
        return params.model_copy(update=update)

    def describe(self) -> dict[str, Any]:
        """The set settings (what run configs record; empty when none)."""
        return self.model_dump(exclude_none=True)


class ChatRequest(BaseModel):
    """One chat completion request."""

    messages: list[Message] = Field(description="The conversation, oldest first.")
    params: GenerationParams = Field(default_factory=GenerationParams, description="Generation settings.")
    tag: str | None = Field(default=None, description="Label for logs and progress; not in the cache key.")


class TopLogprob(BaseModel):
    """One alternative token at a position."""

    token: str
    logprob: float


class TokenLogprob(BaseModel):
    """The chosen token at a position, its log-probability and the top alternatives."""

    token: str
    logprob: float
    top: list[TopLogprob] = Field(default_factory=list)


class ChatResponse(BaseModel):
    """The outcome of one request: a reply or a recorded failure, never an exception."""

    text: str | None = Field(default=None, description="The reply text (None on failure).")
    error: str | None = Field(default=None, description="Why the request failed, after all retries.")
    finish_reason: str | None = Field(default=None, description="stop, length, ... as the backend said.")
    prompt_tokens: int = Field(default=0, description="Prompt tokens billed/used.")
    cached_prompt_tokens: int = Field(
        default=0, description="Of the prompt tokens, those the provider served from its prompt cache (billed lower)."
    )
    completion_tokens: int = Field(default=0, description="Generated tokens.")
    latency_s: float = Field(default=0.0, description="Wall time of the successful attempt.")
    cached: bool = Field(default=False, description="Served from the response cache.")
    attempts: int = Field(default=0, description="Backend attempts made (0 when cached).")
    logprobs: list[TokenLogprob] | None = Field(default=None, description="Per-token log-probabilities.")
    error_kind: str | None = Field(
        default=None,
        description="Class of the failure (see :data:`ERROR_KINDS`); None when the call succeeded.",
    )
    key: str | None = Field(
        default=None, exclude=True,
        description="The request's cache key, set by the client (never stored): how a parser's verdict "
        "on this reply finds its request (:func:`noveval.models.calls.note_answer`).",
    )

    @property
    def ok(self) -> bool:
        """True when a reply was obtained."""
        return self.error is None and self.text is not None


ERROR_KINDS: dict[str, str] = {
    "unreachable": "no connection to the endpoint (refused, unknown host, dropped)",
    "auth": "the endpoint refused the API key (HTTP 401/403)",
    "not_found": "no such model or path at the endpoint (HTTP 404)",
    "timeout": "no reply within the timeout",
    "rate_limited": "HTTP 429",
    "server_error": "HTTP 5xx",
    "bad_request": "the endpoint rejected the request (other 4xx)",
    "malformed": "a reply that is not a well-formed completion",
    "batch": "the request's batch failed, expired or was cancelled (a re-run submits it again)",
    "deferred": "collected for a batch, not sent (inside a batch's collect pass only)",
    "error": "any other failure",
}
"""Failure classes a backend assigns; the first four mean the endpoint cannot work at all."""

FATAL_KINDS = frozenset({"unreachable", "auth", "not_found", "timeout"})
"""Kinds that stop a run at its endpoint check (no item can succeed)."""


class TransientBackendError(Exception):
    """A failure worth retrying (429, 5xx, timeout, dropped connection, malformed body)."""

    def __init__(self, message: str, *, retry_after: float | None = None, kind: str = "error") -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.kind = kind


class PermanentBackendError(Exception):
    """A failure that retrying cannot fix (4xx other than 429, prompt too long, ...)."""

    def __init__(self, message: str, *, kind: str = "error") -> None:
        super().__init__(message)
        self.kind = kind


class ChatBackend(Protocol):
    """What a backend implements: one attempt at one request.

    Backends raise :class:`TransientBackendError` or :class:`PermanentBackendError`;
    retries, caching, concurrency and accounting are the client's job.
    """

    model_id: str
    """Identity of the model for cache keys and run configs (no secrets)."""
    @property
    def base_url(self) -> str | None:
        """Endpoint, part of the cache key (None for in-process backends)."""
        ...

    default_concurrency: int
    """Concurrency that suits the backend when the user gives none."""

    async def send(self, request: ChatRequest) -> ChatResponse:
        """Make one attempt; return a response with ``text`` set or raise."""
        ...


class ChatClientProtocol(Protocol):
    """What every system asks of a chat client (:class:`noveval.models.client.ChatClient`
    implements it; so can a user's own object, e.g. a client for an in-house service).

    Requests go through ``acomplete``/``acomplete_many`` (never raising for a failed
    request: the response carries ``error``); ``semaphore()`` bounds concurrent calls per
    event loop; ``run`` runs a coroutine using the client; ``model_id`` names the model in
    run configs and cache keys; ``stats`` and ``describe()`` are what run folders record.
    """

    @property
    def model_id(self) -> str:
        """The model's identity (no secrets)."""
        ...

    @property
    def stats(self) -> dict[str, Any]:
        """Counters: requests, cache hits, failures, tokens, latency."""
        ...

    def describe(self) -> dict[str, Any]:
        """What a run config records about the client (no secrets)."""
        ...

    def semaphore(self) -> asyncio.Semaphore:
        """The client-wide bound on concurrent calls in the running event loop."""
        ...

    async def acomplete(self, request: ChatRequest) -> ChatResponse:
        """One request (cached, retried); failures are in the response."""
        ...

    async def acomplete_many(self, requests: Sequence[ChatRequest], *, progress: str | None = None,
                             on_result: Callable[[int, ChatResponse], None] | None = None) -> list[ChatResponse]:
        """Many requests, answers in request order."""
        ...

    def complete_many(self, requests: Sequence[ChatRequest], *, progress: str | None = None) -> list[ChatResponse]:
        """Synchronous :meth:`acomplete_many`."""
        ...

    def complete(self, messages: list[Message] | str, **params: Any) -> ChatResponse:
        """One synchronous request from messages (or a user string) and generation parameters."""
        ...

    def run(self, coro: Any) -> Any:
        """Run a coroutine that uses the client in a fresh event loop, closing connections after."""
        ...

    async def aclose(self) -> None:
        """Close the client's connections in the running event loop."""
        ...
