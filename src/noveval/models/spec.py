"""Model specs: one string names a model and where it runs.

Grammar (chat models):

- ``local`` — the bundled SmolLM2-135M-Instruct (Q4_1 GGUF) run in-process by xllamacpp.
- ``local:/path/to/model.gguf`` — any GGUF chat model, in-process.
- ``openai/<model>`` — the OpenAI API; key from ``OPENAI_API_KEY``.
- ``openai-compatible/<model>@<base_url>`` — any server speaking the chat-completions
  protocol (vLLM, Ollama, llama.cpp server, LM Studio, OpenRouter, Together, Azure
  via base URL); key from ``NOVEVAL_API_KEY``, else ``OPENAI_API_KEY``, else none.

Embedders use the same grammar (:func:`parse_embedder_spec`, :data:`EMBEDDER_GRAMMAR`),
and a local one may say its precision and how many tokens it reads:
``local[:fp32|:bf16|:onnx|:static|:/folder][@<tokens>]``. ``local`` is the bundled
all-MiniLM-L6-v2 (bf16 where the CPU computes it natively, 128 tokens: the fast everyday
setting), ``local@256`` the same at 256 tokens, ``local:bf16@256`` / ``local:fp32@512``
precision and length both; ``openai/<model>`` and ``openai-compatible/<model>@<base_url>``
the ``/embeddings`` endpoint (the server's own window).

Keys are read from the environment only, never from the spec, and never stored.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import urlparse

from noveval.errors import ConfigError

Provider = Literal["local", "openai", "openai-compatible"]


@dataclass(frozen=True)
class ModelSpec:
    """A parsed model spec."""

    provider: Provider
    model: str
    """Model name for remote providers; a file/folder path (or "") for local ones."""
    base_url: str | None = None

    @property
    def label(self) -> str:
        """A short human label, safe to print and store (no secrets)."""
        if self.provider == "local":
            return "local" if not self.model else f"local:{self.model}"
        if self.provider == "openai":
            return f"openai/{self.model}"
        return f"openai-compatible/{self.model}@{self.base_url}"

    def api_key(self) -> str:
        """The API key from the environment (a placeholder for keyless local servers)."""
        if self.provider == "openai":
            key = os.environ.get("OPENAI_API_KEY")
            if not key:
                raise ConfigError("model 'openai/...' needs the OPENAI_API_KEY environment variable")
            return key
        return os.environ.get("NOVEVAL_API_KEY") or os.environ.get("OPENAI_API_KEY") or "no-key"


def parse_spec(spec: str) -> ModelSpec:
    """Parse a model spec string (see module docstring).

    Raises:
        ConfigError: the spec does not follow the grammar.
    """
    s = (spec or "").strip()
    if s == "local":
        return ModelSpec("local", "")
    if s.startswith("local:"):
        path = s[len("local:") :]
        if not path:
            raise ConfigError("spec 'local:' needs a path, e.g. local:/models/my.gguf")
        return ModelSpec("local", path)
    if s.startswith("openai/"):
        model = s[len("openai/") :]
        if not model:
            raise ConfigError("spec 'openai/' needs a model name, e.g. openai/gpt-4o-mini")
        return ModelSpec("openai", model)
    if s.startswith("openai-compatible/"):
        rest = s[len("openai-compatible/") :]
        model, sep, url = rest.rpartition("@")
        if not sep or not model or not url:
            raise ConfigError(
                f"bad spec {spec!r}: expected openai-compatible/<model>@<base_url>, "
                "e.g. openai-compatible/llama3@http://127.0.0.1:8000/v1"
            )
        parsed = urlparse(url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ConfigError(f"bad base URL {url!r} in spec: expected http(s)://host:port/v1")
        return ModelSpec("openai-compatible", model, url.rstrip("/"))
    raise ConfigError(
        f"unknown model spec {spec!r}: use 'local', 'local:/path', 'openai/<model>' "
        "or 'openai-compatible/<model>@<base_url>'"
    )


EMBEDDER_GRAMMAR = ("local | local@N | local:bf16[@N] | local:fp32[@N] | local:onnx | local:static | "
                    "local:/folder[@N] | openai/<model> | openai-compatible/<model>@<url>")
"""The embedder spec grammar, as every ``-e/--embedder`` help lists it (N: tokens read per text)."""

_TOKENS = re.compile(r"^(local(?::.+?)?)@(\d+)$")


def parse_embedder_spec(spec: str) -> tuple[ModelSpec, int | None]:
    """Parse an embedder spec: the model spec and the tokens it reads (None: the variant's default).

    ``local[:variant]@N`` sets N tokens (1-8192) for the sentence-transformers variants
    (``local``, ``local:fp32``, ``local:bf16``, ``local:/folder``); ``local:onnx`` and
    ``local:static`` read a fixed length, and a remote endpoint its server's window, so
    ``@N`` is refused there (an ``@`` of ``openai-compatible/...`` is its base URL).

    Raises:
        ConfigError: the spec does not follow the grammar.
    """
    s = (spec or "").strip()
    m = _TOKENS.match(s)
    if m is None:
        return parse_spec(s), None
    n = int(m.group(2))
    base = parse_spec(m.group(1))
    if base.model in ("onnx", "static"):
        raise ConfigError(f"bad embedder spec {spec!r}: local:{base.model} reads a fixed length; "
                          f"@<tokens> goes with {EMBEDDER_GRAMMAR}")
    if not 1 <= n <= 8192:
        raise ConfigError(f"bad embedder spec {spec!r}: @<tokens> must be 1-8192, got {n}")
    return base, n


def local_model(path: str | None, *, bundled: Callable[[], Path], bundled_id: str, what: str,
                folder: bool) -> tuple[str, str]:
    """Where a ``local``/``local:<path>`` model lives and its model id.

    Args:
        path: The model's file or folder; None or empty: the bundled one.
        bundled: Finds the bundled model (called only when ``path`` is not given).
        bundled_id: The bundled model's id.
        what: What the model is, for the error (``local model file``, ...).
        folder: True when the model is a folder, False when it is a file.

    Returns:
        ``(absolute path, model id)``: ``local/<name>`` for a given path.

    Raises:
        ConfigError: ``path`` is not an existing file (folder).
    """
    if not path:
        return str(bundled()), bundled_id
    p = Path(path)
    if not (p.is_dir() if folder else p.is_file()):
        raise ConfigError(f"{what} not found: {path}")
    return str(p.resolve()), f"local/{p.name}"
