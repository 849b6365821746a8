"""Keep third-party progress bars and warnings off the terminal unless ``-v``.

transformers ("Loading weights", "Converting and de-quantizing GGUF tensors"), tqdm in
other libraries, and library loggers (openTSNE's "Perplexity value 5 is too high", which
only says that a tiny pool got a smaller t-SNE perplexity) write to the terminal in the
middle of noveval's own progress lines. The CLI calls :func:`quiet_third_party` unless
``--verbose``; it also sets :data:`QUIET_ENV`, so worker processes (spawned, they inherit
the environment) quiet themselves when they import :mod:`noveval`.
"""

from __future__ import annotations

import logging
import os
import warnings

QUIET_ENV = "NOVEVAL_QUIET_LIBS"
"""Set to ``1`` by the CLI; read by :func:`apply_from_env` in every process."""

NOISY_LOGGERS = (
    "httpx", "httpx2", "openai", "sentence_transformers", "transformers", "urllib3", "gensim", "smart_open",
    "matplotlib", "PIL", "openTSNE", "numba", "filelock", "huggingface_hub", "bert_score", "absl", "fasttext",
)
"""Library loggers kept at ERROR unless ``-v``."""

_ENV = {
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",  # transformers' and the hub's tqdm bars
    "TQDM_DISABLE": "1",  # every other tqdm bar (tqdm >= 4.66 reads TQDM_* defaults)
    "TRANSFORMERS_VERBOSITY": "error",
    "TRANSFORMERS_NO_ADVISORY_WARNINGS": "1",
    "TOKENIZERS_PARALLELISM": "false",
}


def quiet_third_party() -> None:
    """Silence library progress bars, advisory warnings and chatty loggers in this process and its children."""
    os.environ[QUIET_ENV] = "1"
    for k, v in _ENV.items():
        os.environ.setdefault(k, v)
    for name in NOISY_LOGGERS:
        logging.getLogger(name).setLevel(logging.ERROR)
    for module in ("openTSNE", "sklearn", "transformers", "torch", "gensim", "bert_score", "huggingface_hub"):
        warnings.filterwarnings("ignore", module=rf"{module}(\..*)?")


def apply_from_env() -> None:
    """Call :func:`quiet_third_party` when the parent process asked for it (see :data:`QUIET_ENV`)."""
    if os.environ.get(QUIET_ENV) == "1":
        quiet_third_party()
