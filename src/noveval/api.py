"""The public Python API: ``noveval.run``, ``noveval.score``, ``noveval.load_run``, ``noveval.read_scores``,
``noveval.eval``, ``noveval.leaderboard``.

One call per step, the same for every registered system::

    import noveval
    run = noveval.run("rinobench", model="local", out="runs/rino", options={"limit": 2})
    scores = noveval.score(run)           # from the saved outputs alone -> Scores
    results = noveval.load_run(run)       # per-item and score tables (pandas)
    ev = noveval.eval("local", "evals/local", sample=True)   # every system, one model -> EvalResult
    board = noveval.leaderboard(["evals/local", "evals/other"])  # models side by side -> ModelLeaderboard

:func:`run` goes through the one run path (:func:`noveval.benchmarks._runner.run_benchmark`:
endpoint check, budget, batch, completeness) and returns a :class:`~noveval.runs.Run`;
:func:`score` recomputes a run folder's scores and returns :class:`~noveval.scores.Scores`;
:func:`read_scores` types any run folder's ``scores.json`` (every system, old folders
too); :func:`load_run` is :func:`noveval.export.load_run`. :func:`eval` is ``noveval eval``
(:func:`noveval.benchmarks._suite.evaluate`, the command's own path) and :func:`leaderboard`
is ``noveval leaderboard`` (:func:`noveval.compare.leaderboard.model_leaderboard`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from noveval.benchmarks import get
from noveval.benchmarks._suite import EvalResult, EvalRow, evaluate
from noveval.errors import InputError
from noveval.export import RunResults, load_run
from noveval.io import read_json
from noveval.models.chat import ChatClientProtocol
from noveval.options import RunOptions
from noveval.runs import Run
from noveval.scores import MetricValue, Scores, read_scores

if TYPE_CHECKING:  # numpy loads with the leaderboard, on first use
    from noveval.compare.leaderboard import ModelLeaderboard

__all__ = ["EvalResult", "EvalRow", "MetricValue", "Run", "RunResults", "Scores", "eval", "leaderboard", "load_run",
           "read_scores", "run", "score"]


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
    from noveval.benchmarks._runner import score_benchmark
    cfg_path = Path(run) / "config.json"
    if not cfg_path.is_file():
        raise InputError(cfg_path, None, None, "not a run folder (no config.json)")
    cfg = read_json(cfg_path)
    name = cfg.get("benchmark") if isinstance(cfg, dict) else None
    if not isinstance(name, str):
        raise InputError(cfg_path, None, "benchmark", "the run does not say which benchmark made it")
    return read_scores(score_benchmark(get(name), Path(run), options))


def eval(model: str = "local", out: str | os.PathLike[str] = "evals/noveval", *,  # noqa: A001 (noveval.eval)
         judge: str | None = None, embedder: str | None = None, only: Sequence[str] | None = None,
         limit: int | None = None, data_dir: str | os.PathLike[str] | None = None, sample: bool = False,
         protocol: str | None = None, max_cost: float | None = None, options: Mapping[str, Any] | None = None,
         overwrite: bool = False) -> EvalResult:
    """Every system (or the ``only`` ones) on its data with one model, into one eval folder: ``noveval eval``.

    Resumable: the same call with the same settings runs only what is missing (finished runs
    make no model call). For several models, call it once per model (one folder each) and give
    the folders to :func:`leaderboard`.

    Args:
        model: Model spec under test (``"local"``: the bundled SmolLM2-135M; ``"openai/gpt-4o"``,
            ``"openai-compatible/<model>@<url>"``).
        out: Eval folder (created; one run folder per row, ``eval.json``, ``eval.csv``).
        judge: Judge spec for the systems with a judge role (None: none).
        embedder: Embedder for every system that embeds (None: each system's own).
        only: System names to run (None: every system that declares eval settings).
        limit: Items per system, >= 1 (None: all).
        data_dir: The real data folder (None: the data folders found, else the shipped samples).
        sample: Use the shipped samples even when real data are found (not with ``data_dir``).
        protocol: ``"paper"`` or ``"noveval"`` (None: ``paper`` on real data, ``noveval`` on samples).
        max_cost: One budget in US dollars for every system's model calls (None: none).
        options: Run options given to every run (``concurrency``, ``allow_unparseable``, ...); the
            generation controls ``max_tokens``, ``temperature``, ``extra_body`` (a dict or JSON
            text) and ``timeout`` are also recorded in the eval's settings (docs/eval.md).
        overwrite: Replace an eval (and its runs) in ``out`` made with other settings.

    Returns:
        The :class:`~noveval.benchmarks._suite.EvalResult`: ``.rows`` is the table, one
        :class:`~noveval.benchmarks._suite.EvalRow` per run (``system``, ``run``, ``status``
        -- ``complete``, ``incomplete``, ``budget``, ``error`` or ``not run`` --, ``metric``,
        ``mean``, ``ci_low``, ``ci_high``, ``n``, ``yardsticks``, ``published``); ``.skipped``
        the systems with nothing to run here and why. A run that failed is a row with its
        status and message, not an exception: check ``row.status``.

    Raises:
        InputError: bad arguments (an unknown system, a bad protocol or option, a missing data
            folder), no system can run on the data, or ``out`` holds an eval with other settings.
        ConfigError: the model (or judge) cannot work; ``EndpointError`` (a ``ConfigError``):
            it fails its first check (nothing is run).
    """
    return evaluate(model, out, judge=judge, embedder=embedder, only=only, limit=limit, data_dir=data_dir,
                    sample=sample, protocol=protocol, max_cost=max_cost, options=options, overwrite=overwrite)


def leaderboard(evals: Sequence[str | os.PathLike[str]], *, baseline: str | None = None, alpha: float = 0.05,
                n_resamples: int = 10_000, seed: int = 0) -> ModelLeaderboard:
    """Several models' eval folders as one model x system table, each tested against a baseline: ``noveval leaderboard``.

    Args:
        evals: Eval folders (:func:`eval`'s ``out``), one per model.
        baseline: The model the others are tested against: its label, spec, model id, model
            name or eval folder (None: the first folder's).
        alpha: Family-wise level of the ``significant`` marks, in (0, 0.5] (Holm over every
            comparison in the table).
        n_resamples: Paired bootstrap resamples per comparison (>= 100).
        seed: Seed of every resampling.

    Returns:
        The :class:`~noveval.compare.leaderboard.ModelLeaderboard`: ``.models`` (one
        ``BoardModel`` per folder: ``label``, ``spec``, ``path``), ``.columns`` (one
        ``BoardColumn`` per run: ``run``, ``metric``, ``yardsticks``, ``published``) and
        ``.cell(label, run)`` (a ``BoardCell``: ``value``, CI, ``n``, ``status``, and for a model
        other than the baseline ``difference``, ``p_holm``, ``significant``); ``.csv_rows()``
        the table in long form.

    Raises:
        InputError: no folder, one that is not an eval folder, the same folder twice, an
            unknown baseline, or runs of one system with different embedders.
    """
    from noveval.compare.leaderboard import model_leaderboard

    return model_leaderboard([Path(e) for e in evals], baseline=baseline, alpha=alpha, n_resamples=n_resamples,
                             seed=seed)
