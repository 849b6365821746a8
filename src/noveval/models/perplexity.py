"""Perplexity of texts under a causal language model (NovBench Clarity's fluency term).

Default model: the bundled SmolLM2-135M-Instruct, read from its GGUF file by
``transformers`` (``gguf_file=``) and dequantised. Expanding the GGUF takes ~15 s, so
the expanded model is saved once under ``<cache dir>/models/`` and loaded from there
afterwards. Any local folder (or GGUF file) of a causal LM can be used instead; the
NovBench authors used distilgpt2, which cannot be obtained offline here.

PPL(t) = exp(-(1/N) Σ_i log p(t_i | t_<i)) over the N predicted tokens of ``t``
(the first token has no context and is not scored). Values are cached in the vector
cache as 1-dimensional vectors keyed by (``ppl:<model id>``, text hash).
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
import shutil
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from noveval.errors import ConfigError
from noveval.models.bundled import torch_threads
from noveval.models.embed import VectorCache, default_vector_cache_path, text_hash
from noveval.models.local import BUNDLED_GGUF, bundled_gguf_path
from noveval.settings import cache_dir


@contextlib.contextmanager
def _gguf_parsed_once() -> Iterator[None]:
    """Inside the block, ``gguf`` parses a file once and builds a tensor-name map once per architecture.

    transformers reads the GGUF three times for one model (tokenizer, config, weights: each
    parse walks the 49k-entry vocabulary and merges in Python) and rebuilds the name map for
    every submodule (~400 times); sharing them takes the expansion from ~17 to ~8 CPU-s.
    The tensors and values read are the same (a reader only reads). With a transformers that
    no longer imports these names at call time the patch does nothing and it is just slower.
    """
    import gguf as gguf_module

    gguf: Any = gguf_module  # its names are replaced for the block
    saved_reader, saved_map = gguf.GGUFReader, gguf.get_tensor_name_map
    readers: dict[tuple[str, str], Any] = {}

    def reader(path: Any, mode: Any = "r") -> Any:
        key = (str(path), mode)
        if key not in readers:
            readers[key] = saved_reader(path, mode)
        return readers[key]

    gguf.GGUFReader, gguf.get_tensor_name_map = reader, functools.lru_cache(maxsize=None)(saved_map)
    try:
        yield
    finally:
        gguf.GGUFReader, gguf.get_tensor_name_map = saved_reader, saved_map


def _expanded_bundled_dir() -> Path:
    target = cache_dir() / "models" / "SmolLM2-135M-Instruct-Q4_1-expanded"
    if (target / "config.json").exists():
        return target
    from transformers import AutoModelForCausalLM, AutoTokenizer

    gguf = bundled_gguf_path()
    with _gguf_parsed_once():
        tok = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=BUNDLED_GGUF)
        model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=BUNDLED_GGUF)
    # A GGUF-loaded model refuses save_pretrained; save plain float weights + a config
    # without the quantisation entry, which from_pretrained then reads like any model.

    from safetensors.torch import save_model

    tmp = target.with_name(target.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    cfg = model.config
    if hasattr(cfg, "quantization_config"):
        delattr(cfg, "quantization_config")
    cfg.save_pretrained(tmp)
    save_model(model, str(tmp / "model.safetensors"))
    tok.save_pretrained(tmp)
    shutil.rmtree(target, ignore_errors=True)
    tmp.rename(target)
    return target


_loaded_models: dict[str | None, tuple[Any, Any]] = {}
_loaded_lock = threading.Lock()


def _loaded(model_path: str | None) -> tuple[Any, Any]:
    """(tokenizer, model in eval mode) of a causal LM, loaded once per process.

    ``None`` is the bundled SmolLM2 (expanded from its GGUF into the cache dir the first
    time). Scoring never changes the model, so every scorer of the same model shares it.
    """
    with _loaded_lock:
        if model_path not in _loaded_models:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer

            if model_path is None:
                folder, kw = str(_expanded_bundled_dir()), {}
            elif str(model_path).endswith(".gguf"):
                p = Path(model_path)
                folder, kw = str(p.parent), {"gguf_file": p.name}
            else:
                folder, kw = str(model_path), {}
            tok = AutoTokenizer.from_pretrained(folder, **kw)
            model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32, **kw)
            model.eval()
            _loaded_models[model_path] = (tok, model)
        return _loaded_models[model_path]


class PerplexityScorer:
    """Compute per-text perplexity with a causal LM on CPU.

    Args:
        model_path: A folder with a causal LM (``config.json``) or a ``.gguf`` file;
            None = the bundled SmolLM2-135M-Instruct.
        max_tokens: Texts are truncated to this many tokens (the rule is recorded in
            :attr:`model_id`).
        cache: Cache values in the vector cache (default True).
        batch_size: Texts per forward pass (sorted by length, right-padded).
    """

    def __init__(self, model_path: str | None = None, *, max_tokens: int = 1024, cache: bool = True, batch_size: int = 16) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        self.model_path = model_path
        self.max_tokens = max_tokens
        self.batch_size = batch_size
        if model_path is None:
            self.model_id = "ppl:local/SmolLM2-135M-Instruct-Q4_1"
        else:
            if not Path(model_path).exists():
                raise ConfigError(f"perplexity model not found: {model_path}")
            self.model_id = f"ppl:local/{Path(model_path).name}"
        self.model_id += f"@{max_tokens}"
        self._cache = None
        if cache:
            self._cache = VectorCache(default_vector_cache_path())
        self._model: Any = None
        self._tok: Any = None

    def _load(self) -> None:
        if self._model is None:
            self._tok, self._model = _loaded(self.model_path)

    def _ids(self, text: str) -> list[int]:
        assert self._tok is not None
        ids = list(self._tok(text, truncation=True, max_length=self.max_tokens)["input_ids"])
        bos = self._tok.bos_token_id
        if bos is not None and (not ids or ids[0] != bos):
            ids = [bos, *ids]
        return ids

    def _batch(self, seqs: list[list[int]]) -> list[float]:
        """Perplexities of token sequences in one padded forward pass (right padding)."""
        import torch

        assert self._model is not None
        width = max(len(x) for x in seqs)
        ids = torch.zeros((len(seqs), width), dtype=torch.long)
        mask = torch.zeros((len(seqs), width), dtype=torch.long)
        for i, x in enumerate(seqs):
            ids[i, : len(x)] = torch.tensor(x)
            mask[i, : len(x)] = 1
        with torch.no_grad():
            logits = self._model(input_ids=ids, attention_mask=mask).logits[:, :-1].float()
        target, tmask = ids[:, 1:], mask[:, 1:].float()
        nll = torch.nn.functional.cross_entropy(logits.transpose(1, 2), target, reduction="none")
        mean_nll = (nll * tmask).sum(1) / tmask.sum(1).clamp(min=1)
        return [float(math.exp(float(v))) for v in mean_nll]

    def perplexity(self, texts: Sequence[str]) -> list[float]:
        """Perplexity of each text (range [1, inf); lower = more fluent). Empty text -> NaN."""
        hashes = [text_hash(t) for t in texts]
        found = self._cache.get_many(self.model_id, hashes) if self._cache is not None else {}
        out: list[float] = [float("nan")] * len(texts)
        todo: dict[str, str] = {}
        for i, (t, h) in enumerate(zip(texts, hashes)):
            if h in found:
                out[i] = float(found[h][0])
            elif t.strip():
                todo[h] = t
        new: dict[str, np.ndarray] = {}
        if todo:
            with torch_threads():  # torch's default (every core) is several times the CPU on a busy machine
                self._load()
                items = sorted(((h, self._ids(t)) for h, t in todo.items()), key=lambda x: len(x[1]))
                for k in range(0, len(items), self.batch_size):
                    chunk = [x for x in items[k : k + self.batch_size] if len(x[1]) >= 2]
                    if chunk:
                        for (h, _), v in zip(chunk, self._batch([ids for _, ids in chunk])):
                            new[h] = np.array([v], dtype=np.float32)
            for i, h in enumerate(hashes):
                if h in new:
                    out[i] = float(new[h][0])
        if new and self._cache is not None:
            self._cache.put_many(self.model_id, new)
        return out
