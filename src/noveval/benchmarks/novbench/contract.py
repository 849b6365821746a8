"""NovBench's run and score (the functions its declaration names).

``run(model, out, options)`` generates a structured novelty evaluation per paper (Section
3.2, Appendix E) and scores the run; ``score(run, options)`` recomputes the scores from
the run folder alone: its saved evaluations and the records file its ``config.json``
records (``records``: the reviewers' comments the metrics compare with).
:func:`score_predictions` scores predictions made anywhere (a run folder or a predictions
file) against a records file: ``noveval score novbench PREDICTIONS --data records.json``.
Scoring calls no chat model; it embeds (the bundled MiniLM by default) and computes the
Fluency Score's perplexity.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from noveval.benchmarks._contract import client_of
from noveval.benchmarks.novbench.data import SAMPLE
from noveval.benchmarks.novbench.generate import run_generation
from noveval.benchmarks.novbench.options import NovBenchOptions, NovBenchScoreOptions
from noveval.benchmarks.novbench.scoring import score_run
from noveval.errors import InputError
from noveval.models.calls import collecting
from noveval.models.chat import ChatClientProtocol
from noveval.runs import RunDir

__all__ = ["SAMPLE", "generate", "run", "score", "score_predictions"]


def run(model: str | ChatClientProtocol, out: Path, options: NovBenchOptions) -> Path:
    """Generate novelty evaluations of ``options.data``'s papers with ``model`` into ``out``, then score them.

    Args:
        model: Model spec or a chat client.
        out: Run folder (resumed when it holds the same settings).
        options: The run's options (``data`` None: the shipped sample).

    Returns:
        The run folder.

    Raises:
        InputError: bad records or corpus, bad options, or a run with other settings in ``out``.
    """
    path = generate(client_of(model, **options.client_kwargs()), out, options)
    if options.score and not collecting():  # a batch pass that only collects requests: nothing to score yet
        score_predictions(path, NovBenchScoreOptions(embedder=options.embedder))
    return path


def generate(client: ChatClientProtocol, out: Path, options: NovBenchOptions) -> Path:
    """The generation step of :func:`run` with a ready client (the demo shares one)."""
    return Path(run_generation(client, out, options).path)


def score(run: Path, options: NovBenchScoreOptions | None = None) -> dict[str, Any]:
    """Scores of a NovBench run folder from its saved evaluations (writes ``per_item.jsonl``, ``scores.json``).

    The records file is the one the run recorded (``options.data`` replaces it); the
    bootstrap seed is the run's unless ``options.seed`` is given.

    Raises:
        InputError: not a NovBench run folder, or its records file is gone.
    """
    rd = RunDir.open(run)
    cfg = rd.config
    if cfg.get("benchmark") != "novbench":
        raise InputError(rd.path / "config.json", None, "benchmark", f"not a NovBench run ({cfg.get('benchmark')!r})")
    return score_predictions(rd.path, options)


def score_predictions(predictions: str | Path, options: NovBenchScoreOptions | None = None, *,
                      out: str | Path | None = None) -> dict[str, Any]:
    """Score NovBench predictions made anywhere (a run folder or a predictions JSON/JSONL file).

    Args:
        predictions: Run folder or predictions file (rows ``{id, output}``).
        options: Scoring options; a predictions file needs ``options.data``.
        out: Where to write ``per_item.jsonl`` and ``scores.json`` (default: the run
            folder, or the predictions file's folder).

    Returns:
        The scores dict (see :func:`noveval.benchmarks.novbench.scoring.score_run`).
    """
    return score_run(predictions, options, out=out)
