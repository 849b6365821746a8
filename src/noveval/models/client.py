"""The one batch API every backend goes through: cache, concurrency, retries, accounting.

:class:`ChatClient` wraps a backend (:mod:`.local` or :mod:`.openai_compat`):

- every request first looks in the SQLite response cache (unless ``refresh``);
- at most ``concurrency`` requests are in flight;
- each attempt has a timeout; transient failures (429, 5xx, timeouts, connection
  errors, malformed bodies) are retried up to ``max_retries`` times with exponential
  backoff and full jitter, waiting at least the server's ``Retry-After``;
- a request that still fails comes back as a :class:`ChatResponse` with ``error`` set —
  one failed item never stops a batch;
- tokens, latency, hits, misses and failures are counted in :attr:`ChatClient.stats`;
- inside a command's call ledger (:mod:`.calls`), the endpoint is checked with one short
  call at the first cache miss, and every outcome is recorded there too;
- every response carries its request's cache key (``ChatResponse.key``), so a parser's
  verdict on it (:func:`noveval.models.calls.note_answer`) reaches the ledger and the
  cache; a cached entry marked unusable (an empty reply, or one a parser rejected) is a
  miss: the request is asked again.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from noveval.models.cache import ResponseCache, cache_key, default_cache_path
from noveval.models.chat import (
    ChatBackend,
    ChatClientProtocol,
    ChatRequest,
    ChatResponse,
    GenerationOverrides,
    GenerationParams,
    Message,
    PermanentBackendError,
    TransientBackendError,
)
from noveval.models.spec import parse_spec


class RetryPolicy:
    """Exponential backoff with full jitter.

    The wait before retry ``k`` (1-based) is ``uniform(0, min(cap, base * 2**(k-1)))``,
    raised to the server's ``Retry-After`` when one was given.
    """

    def __init__(self, *, max_retries: int = 5, base_s: float = 0.5, cap_s: float = 30.0, seed: int | None = None) -> None:
        self.max_retries = max_retries
        self.base_s = base_s
        self.cap_s = cap_s
        self._rng = random.Random(seed)

    def delay(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait before retry number ``attempt`` (1-based)."""
        d = self._rng.uniform(0, min(self.cap_s, self.base_s * 2 ** (attempt - 1)))
        if retry_after is not None:
            d = max(d, min(retry_after, 10 * self.cap_s))
        return d


class ChatClient:
    """Batch chat completions with caching, bounded concurrency and retries.

    Args:
        backend: The backend making single attempts.
        cache: A response cache, or None to disable caching.
        refresh: Ignore cached entries (but store fresh ones).
        concurrency: Maximum requests in flight (default: the backend's).
        timeout_s: Per-attempt timeout in seconds.
        retry: Retry policy (default: 5 retries, 0.5 s base, 30 s cap).
        generation: Settings for every request (``--max-tokens``, ``--temperature``,
            ``--extra-body``), applied before the cache key is made (None: each request's own).
    """

    def __init__(
        self,
        backend: ChatBackend,
        *,
        cache: ResponseCache | None = None,
        refresh: bool = False,
        concurrency: int | None = None,
        timeout_s: float = 120.0,
        retry: RetryPolicy | None = None,
        generation: GenerationOverrides | None = None,
    ) -> None:
        self.backend = backend
        self.generation = generation if generation is not None and not generation.empty else None
        self.cache = cache
        self.refresh = refresh
        self.concurrency = max(1, concurrency or backend.default_concurrency)
        self.timeout_s = timeout_s
        self.retry = retry or RetryPolicy()
        self._sem: asyncio.Semaphore | None = None
        self._sem_loop: int | None = None
        from noveval.models.calls import active_ledger

        self._ledger = active_ledger()
        if self._ledger is not None:
            probe = self._check_endpoint if hasattr(backend, "probe") else None
            self._ledger.register(self, self.model_id, role="model", probe=probe)
        self._stats: dict[str, Any] = {
            "requests": 0,
            "attempts": 0,
            "cache_hits": 0,
            "cache_misses": 0,
            "failures": 0,
            "retries": 0,
            "prompt_tokens": 0,
            "completion_tokens": 0,
            "latency_s": 0.0,
        }

    @property
    def model_id(self) -> str:
        """The model's identity (used in cache keys and run configs)."""
        return self.backend.model_id

    @property
    def stats(self) -> dict[str, Any]:
        """Counters since the client was made (a copy)."""
        return dict(self._stats)

    def describe(self) -> dict[str, Any]:
        """What a run config records about this client (no secrets)."""
        return {
            "model_id": self.model_id,
            "base_url": self.backend.base_url,
            "concurrency": self.concurrency,
            "timeout_s": self.timeout_s,
            "max_retries": self.retry.max_retries,
            "cache": str(self.cache.path) if self.cache else None,
            **({"generation": self.generation.describe()} if self.generation is not None else {}),
        }

    async def _attempts(self, request: ChatRequest) -> ChatResponse:
        last_error = "no attempt made"
        last_kind = "error"
        attempt = 0
        while True:
            attempt += 1
            self._stats["attempts"] += 1
            try:
                resp = await asyncio.wait_for(self.backend.send(request), timeout=self.timeout_s)
                return resp.model_copy(update={"attempts": attempt})
            except PermanentBackendError as e:
                return ChatResponse(error=str(e), attempts=attempt, error_kind=e.kind)
            except (TimeoutError, TransientBackendError) as e:
                retry_after = getattr(e, "retry_after", None)
                last_error = str(e) or f"timed out after {self.timeout_s:g}s"
                last_kind = getattr(e, "kind", "timeout")
            if attempt > self.retry.max_retries:
                return ChatResponse(
                    error=f"{last_error} (gave up after {attempt} attempts)", attempts=attempt, error_kind=last_kind
                )
            self._stats["retries"] += 1
            await asyncio.sleep(self.retry.delay(attempt, retry_after))

    def _check_endpoint(self) -> Any:
        """One short call to the endpoint (blocking), retried like a request on 429/5xx/malformed.

        Returns the check's reply (the ledger books its tokens).

        Unreachable, auth, not-found and timeout failures are not retried: a typo in a URL
        or a key should stop the run in seconds, not after the whole backoff.

        Raises:
            TransientBackendError | PermanentBackendError: the endpoint cannot answer.
        """
        from noveval.models.calls import run_blocking

        probe = self.backend.probe  # type: ignore[attr-defined]

        async def once() -> Any:
            try:
                return await asyncio.wait_for(probe(), timeout=self.timeout_s)
            except TimeoutError:
                raise TransientBackendError(f"no reply within {self.timeout_s:g} s", kind="timeout") from None

        attempt = 0
        while True:
            attempt += 1
            try:
                return run_blocking(once)
            except TransientBackendError as e:
                if e.kind in ("unreachable", "timeout") or attempt > self.retry.max_retries:
                    if attempt > 1:
                        e.args = (f"{e} (gave up after {attempt} attempts)",)
                    raise
                time.sleep(self.retry.delay(attempt, e.retry_after))

    async def acomplete(self, request: ChatRequest) -> ChatResponse:
        """Complete one request (cache first). Never raises for backend failures.

        Backend calls are bounded by the client-wide semaphore (:meth:`semaphore`).
        """
        self._stats["requests"] += 1
        if self.generation is not None:  # the user's settings: in the cache key, the budget and the body
            request = request.model_copy(update={"params": self.generation.apply(request.params)})
        ledger = self._ledger
        key = None
        if self.cache is not None or ledger is not None:
            key = cache_key(self.model_id, self.backend.base_url, request)
        if self.cache is not None and key is not None:
            if not self.refresh:
                hit = self.cache.get(key)  # an entry marked unusable is a miss: asked again
                if hit is None:  # ... unless this very command marked it (a batch's later pass reads it again)
                    from noveval.models.calls import marked_here

                    hit = self.cache.get(key, unusable=True) if marked_here(self, key) else None
                if hit is not None:
                    hit.key = key
                    self._stats["cache_hits"] += 1
                    if ledger is not None:
                        ledger.record(self, key, cached=True, response=hit, request=request)
                    return hit
            self._stats["cache_misses"] += 1
        reserved = 0.0
        if ledger is not None:
            instead = ledger.intercept(self, key, request, batchable=hasattr(self.backend, "request_body"))
            if instead is not None:  # collected for a batch, or its batch failed
                if instead.error_kind != "deferred":
                    self._stats["failures"] += 1
                    ledger.record(self, key, cached=False, error=instead.error, kind=instead.error_kind, request=request)
                return instead
            ledger.admit(self, request, reserve=False)  # over budget: stop before even the endpoint check
            await ledger.aensure_checked()  # raises EndpointError: the run stops before this item fails
        async with self.semaphore():
            if ledger is not None:  # waits while in-flight requests may leave room; BudgetExceeded: stop here
                reserved = await ledger.aadmit(self, request)
            try:
                resp = await self._attempts(request)
            except BaseException:
                if ledger is not None:
                    ledger.release(reserved)
                raise
        if resp.ok:
            self._stats["prompt_tokens"] += resp.prompt_tokens
            self._stats["completion_tokens"] += resp.completion_tokens
            self._stats["latency_s"] += resp.latency_s
            if self.cache is not None and key is not None:
                self.cache.put(key, self.model_id, resp)
        else:
            self._stats["failures"] += 1
        if ledger is not None:
            ledger.record(self, key, cached=False, error=resp.error, kind=resp.error_kind, response=resp,
                          reserved=reserved, request=request)
        resp.key = key
        if resp.ok and not (resp.text or "").strip():  # empty: unusable whatever parses it (the cache keeps it unusable)
            from noveval.models.calls import tag_item

            tag_item("model")
        return resp

    def semaphore(self) -> asyncio.Semaphore:
        """The semaphore bounding this client's in-flight requests in the running loop.

        One per event loop and client, shared by every call, so ``concurrency`` holds
        across concurrent ``acomplete`` / ``acomplete_many`` calls. Never hold it while
        calling the client (that would deadlock at concurrency 1).
        """
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # called outside a loop
            return asyncio.Semaphore(self.concurrency)
        if self._sem_loop != id(loop) or self._sem is None:
            self._sem, self._sem_loop = asyncio.Semaphore(self.concurrency), id(loop)
        return self._sem

    async def acomplete_many(
        self,
        requests: Sequence[ChatRequest],
        *,
        progress: str | None = None,
        on_result: Callable[[int, ChatResponse], None] | None = None,
    ) -> list[ChatResponse]:
        """Complete many requests concurrently; results come back in request order.

        Args:
            requests: The requests.
            progress: Label for a progress display (None = no display).
            on_result: Called as ``on_result(index, response)`` as each one finishes.
        """
        from noveval.progress import track

        results: list[ChatResponse | None] = [None] * len(requests)
        with track(len(requests), progress or "", client=self) as tracker:

            async def one(i: int, r: ChatRequest) -> None:
                resp = await self.acomplete(r)
                results[i] = resp
                if on_result is not None:
                    on_result(i, resp)
                tracker.advance()

            await asyncio.gather(*(one(i, r) for i, r in enumerate(requests)))
        return [r if r is not None else ChatResponse(error="not run") for r in results]

    async def aclose(self) -> None:
        """Release the backend's connections for the running event loop."""
        close = getattr(self.backend, "aclose", None)
        if close is not None:
            await close()

    def run(self, coro: Any) -> Any:
        """Run a coroutine that uses this client in a fresh event loop, then close connections."""
        return run_async(coro, self)

    def complete_many(self, requests: Sequence[ChatRequest], *, progress: str | None = None) -> list[ChatResponse]:
        """Synchronous :meth:`acomplete_many` (do not call from inside an event loop)."""
        return self.run(self.acomplete_many(requests, progress=progress))  # type: ignore[no-any-return]

    def complete(self, messages: list[Message] | str, **params: Any) -> ChatResponse:
        """Complete one conversation synchronously; a string is a single user message."""
        if isinstance(messages, str):
            messages = [{"role": "user", "content": messages}]
        req = ChatRequest(messages=messages, params=GenerationParams(**params))
        return self.run(self.acomplete(req))  # type: ignore[no-any-return]


def run_async(coro: Any, *clients: ChatClientProtocol | None) -> Any:
    """Run ``coro`` in a fresh event loop and close every given client's connections in it.

    Use instead of ``asyncio.run`` for code that awaits chat clients: HTTP connections
    opened in the loop are closed before the loop ends (no "Event loop is closed" noise
    at exit). ``None`` entries (an optional judge, say) are skipped.
    """

    async def wrapped() -> Any:
        from noveval.models.costs import BudgetExceeded

        try:
            return await coro
        except BudgetExceeded:
            await _drain()  # requests already sent finish: their answers are cached and booked
            raise
        finally:
            seen: set[int] = set()
            for c in clients:
                if c is not None and id(c) not in seen:
                    seen.add(id(c))
                    await c.aclose()

    return asyncio.run(wrapped())


async def _drain(timeout_s: float = 600.0) -> None:
    """Wait for the loop's other tasks (requests in flight when the budget stopped the run).

    Once the budget has stopped, every new request is refused at once, so these tasks end
    as soon as their requests already sent are answered (or time out).
    """
    me = asyncio.current_task()
    others = [t for t in asyncio.all_tasks() if t is not me and not t.done()]
    if others:
        done, pending = await asyncio.wait(others, timeout=timeout_s)
        for t in pending:
            t.cancel()
        for t in done:
            if not t.cancelled():
                t.exception()  # retrieved: a refused request's BudgetExceeded is expected, not news


def make_backend(spec: str, *, timeout_s: float = 120.0) -> ChatBackend:
    """Build the backend a spec names (see :mod:`noveval.models.spec`)."""
    s = parse_spec(spec)
    if s.provider == "local":
        from noveval.models.local import LocalBackend

        return LocalBackend(s.model or None)
    from noveval.models.openai_compat import OpenAICompatBackend

    return OpenAICompatBackend(s, timeout_s=timeout_s)


def get_client(
    spec: str = "local",
    *,
    cache: ResponseCache | str | None = "default",
    refresh: bool = False,
    concurrency: int | None = None,
    timeout_s: float = 120.0,
    max_retries: int = 5,
    retry: RetryPolicy | None = None,
    generation: GenerationOverrides | Mapping[str, Any] | None = None,
) -> ChatClient:
    """Return a :class:`ChatClient` for a model spec.

    Args:
        spec: ``local``, ``local:/path.gguf``, ``openai/<model>`` or
            ``openai-compatible/<model>@<base_url>``.
        cache: ``"default"`` (the user cache dir), a path, a ResponseCache, or None (off).
        refresh: Recompute and overwrite cached responses.
        concurrency: Max in-flight requests (default 1 for local, 8 for HTTP).
        timeout_s: Per-attempt timeout.
        max_retries: Retries after the first attempt for transient failures.
        retry: A full retry policy (overrides ``max_retries``).
        generation: Settings for every request (max tokens, temperature, extra body fields;
            a dict of :class:`~noveval.models.chat.GenerationOverrides` fields, as
            :meth:`noveval.options.RunOptions.client_kwargs` gives them).
    """
    backend = make_backend(spec, timeout_s=timeout_s)
    if cache == "default":
        cache_obj: ResponseCache | None = ResponseCache(default_cache_path())
    elif isinstance(cache, str):
        cache_obj = ResponseCache(cache)
    else:
        cache_obj = cache
    return ChatClient(
        backend,
        cache=cache_obj,
        refresh=refresh,
        concurrency=concurrency,
        timeout_s=timeout_s,
        retry=retry or RetryPolicy(max_retries=max_retries),
        generation=GenerationOverrides.model_validate(generation) if isinstance(generation, Mapping) else generation,
    )


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    """Run ``fn`` and return ``(result, seconds)``."""
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0
