"""A static (token-lookup) embedder distilled offline from the bundled MiniLM: ``-e local:static``.

``model2vec``'s distillation (Tulkens & van Dongen, 2024) passes every token of MiniLM's
vocabulary through MiniLM once, reduces the token vectors to ``STATIC_DIMS`` dimensions by
PCA and weights them by SIF (``a / (a + p(token))``); encoding a text is then the mean of
its tokens' rows, with no transformer pass. It runs entirely on the local model (no hub),
takes ~100 CPU-seconds once, and is saved under ``<cache dir>/models/`` like the
perplexity model's expanded copy. Encoding is hundreds of times faster than MiniLM and
less accurate; docs/performance.md measures both on the citation-gold retrieval
benchmark. The model id carries a hash of the distilled weights, so vectors of a
different distillation never mix with these in the vector cache or an index.
Needs ``model2vec`` (``pip install 'model2vec[distill]'``; see pyproject's ``static`` extra).
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
from pathlib import Path

import numpy as np

from noveval.errors import ConfigError
from noveval.models.bundled import bundled_minilm_path, torch_threads
from noveval.settings import cache_dir

__all__ = ["STATIC_DIMS", "StaticBackend", "bundled_static_path", "distill_static"]

STATIC_DIMS = 256
"""PCA dimensions of the distilled token vectors (model2vec's default)."""

_FOLDER = f"all-MiniLM-L6-v2-static{STATIC_DIMS}"


def distill_static(out_dir: str | Path, *, model_dir: str | Path | None = None, pca_dims: int = STATIC_DIMS) -> Path:
    """Distil a sentence-transformers model (default: the bundled MiniLM) into a static model.

    Args:
        out_dir: Folder to write (model2vec's format: ``model.safetensors``, tokenizer, config).
        model_dir: Source model folder; None = the bundled all-MiniLM-L6-v2.
        pca_dims: Output dimensions.

    Returns:
        ``out_dir``.

    Raises:
        ConfigError: ``model2vec`` is not installed.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        from model2vec.distill import distill
    except ImportError as e:
        raise ConfigError("the static embedder needs model2vec: pip install 'model2vec[distill]'") from e

    src = Path(model_dir) if model_dir else bundled_minilm_path()
    with torch_threads():  # torch's default (every core) spins on a shared machine: 16-151 s for the same work
        model = distill(model_name=str(src), pca_dims=pca_dims, quantize_to="float32", device="cpu")
    model.save_pretrained(str(out_dir))
    return Path(out_dir)


def bundled_static_path() -> Path:
    """The static model distilled from the bundled MiniLM, distilled on first use (~100 CPU-s)."""
    target = cache_dir() / "models" / _FOLDER
    if (target / "model.safetensors").is_file():
        return target

    logging.getLogger(__name__).warning("distilling the static embedder from the bundled MiniLM once "
                                        "(~100 CPU-seconds) into %s", target)
    tmp = target.with_name(f"{target.name}.tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    distill_static(tmp)
    try:
        tmp.rename(target)
    except OSError:  # another process finished first
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def _weights_hash(folder: Path) -> str:
    h = hashlib.sha256()
    with open(folder / "model.safetensors", "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:10]


class StaticBackend:
    """Embeds with a model2vec static model (mean of token rows; no transformer pass).

    Args:
        path: A model2vec folder; None = the one distilled from the bundled MiniLM.
        max_tokens: Tokens read per text (model2vec's default 512).
    """

    def __init__(self, path: str | Path | None = None, *, max_tokens: int = 512) -> None:
        try:
            from model2vec import StaticModel
        except ImportError as e:
            raise ConfigError("the static embedder needs model2vec: pip install 'model2vec[distill]'") from e
        folder = Path(path) if path else bundled_static_path()
        if not (folder / "model.safetensors").is_file():
            raise ConfigError(f"static model folder not found (no model.safetensors): {folder}")
        self.path = folder
        self.max_tokens = max_tokens
        self.model_id = f"local/{folder.name}-{_weights_hash(folder)}"
        self.precision, self.tokens_read = "fp32", max_tokens  # what resolved_embedder records
        self._model = StaticModel.from_pretrained(str(folder))

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        """Mean token vectors of one batch (normalised by :class:`~noveval.models.embed.Embedder`)."""
        return np.asarray(self._model.encode(texts, max_length=self.max_tokens, show_progress_bar=False,
                                             use_multiprocessing=False), dtype=np.float32)
