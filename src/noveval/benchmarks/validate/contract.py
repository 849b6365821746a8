"""Validity study's Python entry points of the benchmark contract (:mod:`noveval.benchmarks`).

``run(model, out, *, data=None, options=None)`` is :func:`noveval.benchmarks.validate.api.run`
(``noveval validate run``) with the contract's signature; ``score(run)`` re-scores the run
folder from its ``per_item.jsonl`` alone (:func:`noveval.benchmarks.validate.api.score`).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from noveval.benchmarks.validate.api import ValidateOptions

__all__ = ["ValidateOptions", "run", "score"]

RUN_KEYS = ("corpus", "embedder", "overwrite", "cache", "concurrency", "progress")
"""Options of :func:`run` that are not fields of :class:`ValidateOptions`."""


def _options(options: ValidateOptions | dict[str, Any] | None) -> tuple[ValidateOptions, dict[str, Any]]:
    """Split ``options`` into the :class:`ValidateOptions` and the run keywords (:data:`RUN_KEYS`)."""
    from noveval.errors import InputError

    if options is None:
        return ValidateOptions(), {}
    if isinstance(options, ValidateOptions):
        return options, {}
    if not isinstance(options, dict):
        raise InputError(None, None, "options", f"expected ValidateOptions or a dict of its fields, got {type(options).__name__}")
    fields = {f.name for f in dataclasses.fields(ValidateOptions)}
    unknown = sorted(set(options) - fields - set(RUN_KEYS))
    if unknown:
        raise InputError(None, None, f"options.{unknown[0]}", "unknown option")
    opts = ValidateOptions(**{k: v for k, v in options.items() if k in fields})
    return opts, {k: v for k, v in options.items() if k in RUN_KEYS}


def run(model: str | Any, out: str | Path, *, data: str | Path | None = None,
        options: ValidateOptions | dict[str, Any] | None = None) -> Path:
    """Compute every predictor for ``data``'s rated papers and score them into ``out`` (resumable).

    Args:
        model: Chat model spec or client for the LLM judges (``"none"`` or None: no judges).
        out: Run folder.
        data: Ratings file (papers with reviews); None: the shipped synthetic sample (and
            its corpus).
        options: :class:`ValidateOptions`, or a dict of its fields plus ``corpus`` (the
            corpus file; required with ``data``), ``embedder`` (default ``local``),
            ``overwrite``, ``cache``, ``concurrency``, ``progress``.

    Returns:
        The run folder.

    Raises:
        InputError: a bad option or input file (nothing is written then).
    """
    from noveval.benchmarks.validate.api import run as api_run
    from noveval.benchmarks.validate.data import sample_paths
    from noveval.errors import InputError

    opts, kw = _options(options)
    corpus = kw.pop("corpus", None)
    if data is None:
        data, sample_corpus = sample_paths()
        corpus = corpus or sample_corpus
    if corpus is None:
        raise InputError(None, None, "options.corpus", "give the corpus file that goes with the ratings")
    return Path(api_run(data, corpus, out=out, model=None if model == "none" else model, options=opts, **kw))


def score(run: str | Path, *, progress: bool = True) -> dict[str, Any]:
    """Scores of a validity run folder from its ``per_item.jsonl`` alone (no model call).

    Args:
        run: The run folder.
        progress: Show progress.

    Returns:
        The ``scores.json`` dict (also written).
    """
    from noveval.benchmarks.validate.api import score as api_score

    return api_score(run, progress=progress)
