"""The bundled MiniLM on ONNX Runtime (``-e local:onnx``), optionally int8-quantised.

:func:`export_onnx` writes ``model.onnx`` (mean pooling included, so the graph returns the
sentence embedding sentence-transformers computes before normalisation) and, with
``int8=True``, ``model-int8.onnx`` (dynamic int8 quantisation of the weights,
``onnxruntime.quantization.quantize_dynamic``) next to a copy of the tokenizer.
:class:`OnnxBackend` runs such a file; use it as ``-e local:/path/to/model-int8.onnx``.
Its model id names the file, so its vectors never mix with the PyTorch model's in the
vector cache or in an index — except the fp32 export of the bundled MiniLM made by
:func:`bundled_onnx_path` (``-e local:onnx``), whose vectors equal PyTorch fp32's to 1e-5
(tests/models/test_embed_backends.py) and which therefore shares its model id. On this
project's 2-core machine it is *not* faster per CPU-second than PyTorch (docs/performance.md).
Needs ``onnx`` and ``onnxruntime`` (export also needs torch).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np

from noveval.errors import ConfigError
from noveval.models.bundled import BUNDLED_EMBEDDER_ID, bundled_minilm_path, default_threads
from noveval.settings import cache_dir

__all__ = ["OnnxBackend", "bundled_onnx_path", "export_onnx"]

_MAX_TOKENS = 256  # all-MiniLM-L6-v2's max_seq_length in sentence-transformers
_BUNDLED_FOLDER = "all-MiniLM-L6-v2-onnx"


def export_onnx(out_dir: str | Path, *, model_dir: str | Path | None = None, int8: bool = True) -> Path:
    """Export a sentence-transformers BERT-style model (default: the bundled MiniLM) to ONNX.

    Returns:
        The path of the file to use (``model-int8.onnx`` when ``int8``, else ``model.onnx``).
    """
    import torch
    from transformers import AutoModel, AutoTokenizer


    src = Path(model_dir) if model_dir else bundled_minilm_path()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tok = AutoTokenizer.from_pretrained(str(src))
    tok.save_pretrained(str(out))
    model = AutoModel.from_pretrained(str(src)).eval()

    class _Pooled(torch.nn.Module):
        def __init__(self, m: torch.nn.Module) -> None:
            super().__init__()
            self.m = m

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor) -> torch.Tensor:
            h = self.m(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).last_hidden_state
            w = attention_mask.unsqueeze(-1).to(h.dtype)
            return (h * w).sum(1) / w.sum(1).clamp(min=1e-9)

    enc = tok(["a probe", "a longer probe sentence"], padding=True, return_tensors="pt")
    names = ["input_ids", "attention_mask", "token_type_ids"]
    fp32 = out / "model.onnx"
    torch.onnx.export(_Pooled(model), tuple(enc[k] for k in names), str(fp32), input_names=names,
                      output_names=["embedding"], opset_version=17, dynamo=False,
                      dynamic_axes={**{k: {0: "batch", 1: "tokens"} for k in names}, "embedding": {0: "batch"}})
    if not int8:
        return fp32
    from onnxruntime.quantization import QuantType, quantize_dynamic

    q = out / "model-int8.onnx"
    quantize_dynamic(str(fp32), str(q), weight_type=QuantType.QInt8)
    return q


def bundled_onnx_path() -> Path:
    """The bundled MiniLM exported to ONNX fp32 under ``<cache dir>/models/`` (exported on first use, seconds)."""
    target = cache_dir() / "models" / _BUNDLED_FOLDER
    if (target / "model.onnx").is_file():
        return target / "model.onnx"
    tmp = target.with_name(f"{target.name}.tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    export_onnx(tmp, int8=False)
    try:
        tmp.rename(target)
    except OSError:  # another process finished first
        shutil.rmtree(tmp, ignore_errors=True)
    return target / "model.onnx"


class OnnxBackend:
    """Embeds with an ONNX file from :func:`export_onnx` (tokenizer in the same folder).

    Args:
        path: The ``.onnx`` file.
        threads: Intra-op threads (default: ``NOVEVAL_THREADS`` or half the cores, at least 1).
    """

    def __init__(self, path: str | Path, *, threads: int | None = None) -> None:
        try:
            import onnxruntime as ort
        except ImportError as e:
            raise ConfigError("ONNX embeddings need onnxruntime: pip install onnxruntime") from e
        from transformers import AutoTokenizer

        self.path = Path(path)
        if not self.path.is_file():
            raise ConfigError(f"ONNX model not found: {path}")
        bundled = self.path.resolve() == (cache_dir() / "models" / _BUNDLED_FOLDER / "model.onnx").resolve()
        self.model_id = BUNDLED_EMBEDDER_ID if bundled else f"local/{self.path.parent.name}/{self.path.name}"
        self.precision, self.tokens_read = "fp32", _MAX_TOKENS  # what resolved_embedder records
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads or default_threads()
        opts.inter_op_num_threads = 1
        self._sess = ort.InferenceSession(str(self.path), opts, providers=["CPUExecutionProvider"])
        self._tok = AutoTokenizer.from_pretrained(str(self.path.parent))

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        """Mean-pooled embeddings of one batch (normalised by :class:`~noveval.models.embed.Embedder`)."""
        enc = self._tok(texts, padding=True, truncation=True, max_length=_MAX_TOKENS, return_tensors="np")
        feed = {k: enc[k].astype(np.int64) for k in ("input_ids", "attention_mask", "token_type_ids")}
        return np.asarray(self._sess.run(["embedding"], feed)[0], dtype=np.float32)

