"""noveval: evaluate machine judgments of scientific novelty and of peer-review critique.

The package is layered (see ``docs/internals.md``): pure metric functions in
:mod:`noveval.metrics` and :mod:`noveval.novelty`, model backends in
:mod:`noveval.models`, benchmarks composing both in :mod:`noveval.benchmarks`, and a
thin CLI on top. Heavy libraries (torch, the models) load on first use.

Python API (:mod:`noveval.api`)::

    import noveval
    run = noveval.run("rinobench", model="local", out="runs/rino", options={"limit": 2})
    scores = noveval.score(run)               # typed Scores, from the saved outputs alone
    table = noveval.load_run(run).scores      # pandas DataFrame
    ev = noveval.eval("local", "evals/local", sample=True)  # every system, one model: ev.rows
    board = noveval.leaderboard(["evals/local", "evals/other"])  # models side by side
    noveval.benchmarks.BENCHMARKS             # the registry: every system
"""

from noveval import benchmarks
from noveval._version import __version__
from noveval.api import (
    EvalResult,
    EvalRow,
    MetricValue,
    Run,
    RunResults,
    Scores,
    eval,  # noqa: A004 (noveval.eval)
    leaderboard,
    load_run,
    read_scores,
    run,
    score,
)
from noveval.quiet import apply_from_env as _apply_quiet

_apply_quiet()  # worker processes of a CLI run keep library noise off the terminal too

__all__ = ["EvalResult", "EvalRow", "MetricValue", "Run", "RunResults", "Scores", "__version__", "benchmarks", "eval",
           "leaderboard", "load_run", "read_scores", "run", "score"]
