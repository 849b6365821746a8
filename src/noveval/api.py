"""The public Python API: ``noveval.run``, ``noveval.score``, ``noveval.load_run``, ``noveval.read_scores``.

One call per step, the same for every registered system::

    import noveval
    run = noveval.run("rinobench", model="local", out="runs/rino", options={"limit": 2})
    scores = noveval.score(run)           # from the saved outputs alone -> Scores
    results = noveval.load_run(run)       # per-item and score tables (pandas)

:func:`run` goes through the one run path (:func:`noveval.benchmarks._runner.run_benchmark`:
endpoint check, budget, batch, completeness) and returns a :class:`~noveval.runs.Run`;
:func:`score` recomputes a run folder's scores and returns :class:`~noveval.scores.Scores`;
:func:`read_scores` types any run folder's ``scores.json`` (every system, old folders
too); :func:`load_run` is :func:`noveval.export.load_run`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from noveval.export import RunResults, load_run
from noveval.models.chat import ChatClientProtocol
from noveval.options import RunOptions
from noveval.runs import Run
from noveval.scores import MetricValue, Scores, read_scores

__all__ = ["MetricValue", "Run", "RunResults", "Scores", "load_run", "read_scores", "run", "score"]


def run(benchmark: str, model: str | ChatClientProtocol = "local", out: str | os.PathLike[str] = "runs/noveval", *,
        data: str | os.PathLike[str] | None = None, options: RunOptions | Mapping[str, Any] | None = None) -> Run:
    """Run a registered benchmark with a model; resumable (a second call with the same settings makes no model call).

    Args:
        benchmark: Registered name (``noveval.benchmarks.BENCHMARKS``), e.g. ``"rinobench"``.
        model: Model spec (``"local"`` is the bundled SmolLM2-135M; ``"openai/gpt-4o"``, ...)
            or a ready chat client.
        out: Run folder.
        data: The system's input file or ``hf:NAME[:SPLIT]`` (fills its data option; None:
            the option's own value, else its shipped sample).
        options: The system's options object (``noveval.benchmarks.BENCHMARKS[name].options``,
            e.g. :class:`~noveval.benchmarks.rinobench.options.RINoBenchOptions`) or a dict of
            its fields: exactly the options of ``noveval run <name>`` (``--max-tokens`` is
            ``max_tokens``); None: the defaults. Type checkers refuse anything else.

    Returns:
        The :class:`~noveval.runs.Run` (``.path``, ``.complete``, ``.scores``; ``os.fspath``
        gives the folder).

    Raises:
        InputError: an unknown benchmark, a bad option (``options.<field>``), a bad input file.
        ConfigError: a model spec that cannot work (an endpoint that fails its check).
        IncompleteRun: model calls failed (``options.allow_failures``: returned instead).
        BudgetStopped: ``options.max_cost`` reached (resumable).
    """
    from noveval.benchmarks import get
    from noveval.benchmarks._runner import run_benchmark

    return run_benchmark(get(benchmark), model, out, data=data, options=options)


def score(run: str | os.PathLike[str], *, options: BaseModel | Mapping[str, Any] | None = None) -> Scores:
    """Score a run folder from its saved outputs alone (the system is read from its ``config.json``).

    Args:
        run: The run folder (or the :class:`~noveval.runs.Run` of :func:`run`).
        options: The system's scoring options object (``BENCHMARKS[name].score_options``, e.g.
            :class:`~noveval.benchmarks.rinobench.options.RINoBenchScoreOptions`), a dict of its
            fields (``{"judge": "openai/gpt-4o"}`` for RINoBench's justification metrics) or None.

    Returns:
        The typed :class:`~noveval.scores.Scores` (``metrics[name].mean/ci_low/ci_high/n``,
        ``primary_metric``, ``greater_is_better``).

    Raises:
        InputError: not a run folder, or the system cannot score it.
    """
    from noveval.benchmarks import get
    from noveval.benchmarks._runner import score_benchmark
    from noveval.errors import InputError
    from noveval.io import read_json

    cfg_path = Path(run) / "config.json"
    if not cfg_path.is_file():
        raise InputError(cfg_path, None, None, "not a run folder (no config.json)")
    cfg = read_json(cfg_path)
    name = cfg.get("benchmark") if isinstance(cfg, dict) else None
    if not isinstance(name, str):
        raise InputError(cfg_path, None, "benchmark", "the run does not say which benchmark made it")
    return read_scores(score_benchmark(get(name), Path(run), options))
