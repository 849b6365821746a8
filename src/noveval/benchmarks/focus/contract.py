"""Focus-level review evaluation's run and score (the functions its declaration names).

``run(model, out, options)`` generates reviews, annotates every human and model point
and scores them (:func:`~noveval.benchmarks.focus.pipeline.run_focus`);
``score(run, options)`` re-scores the run folder from its saved reviews and annotations
alone (no model call; writes ``per_item.jsonl``, ``scores.json`` and ``focus.png``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from noveval.benchmarks.focus.options import FocusOptions, FocusScoreOptions
from noveval.benchmarks.focus.pipeline import SAMPLE, run_focus, score_run
from noveval.errors import InputError
from noveval.models.chat import ChatClientProtocol
from noveval.runs import RunDir

__all__ = ["SAMPLE", "run", "score"]


def run(model: str | ChatClientProtocol, out: Path, options: FocusOptions) -> Path:
    """Review ``options.papers`` with ``model``, annotate and score into ``out`` (resumable).

    Args:
        model: The reviewing model (spec or client); the annotator and the expert chain
            too unless ``options.annotator`` / ``options.expert_model`` name others.
        out: The run folder.
        options: The run's options.

    Returns:
        The run folder (``predictions.jsonl``, ``judgments.jsonl``, ``per_item.jsonl``,
        ``scores.json``, ``focus.png``; ``expert.jsonl`` on the chain route).

    Raises:
        InputError: bad options or papers, or a run with other settings in ``out``
            (nothing written).
    """
    run_focus(model, out, options)
    return Path(out)


def score(run: Path, options: FocusScoreOptions | None = None) -> dict[str, Any]:
    """Scores of a focus run folder from its saved reviews and annotations (no model call).

    Returns:
        The scores dict (also written to ``scores.json``); the seed is the run's unless
        ``options.seed`` gives one.

    Raises:
        InputError: not a focus run folder, no predictions, or a judgments row with an
            unknown label (file, line, field).
    """
    rd = RunDir.open(run)
    if rd.config.get("benchmark") != "focus":
        raise InputError(rd.path / "config.json", None, "benchmark", f"not a focus run ({rd.config.get('benchmark')!r})")
    return score_run(rd.path, options)
