"""A generic task: run any model over a JSONL file of prompts, resumably.

Useful on its own (batch generation with caching and retries against any backend)
and the smallest end-to-end path through the foundation. ``run`` and ``score`` are
:func:`noveval.run` / :func:`noveval.score` for this system.
"""

from __future__ import annotations

from noveval.benchmarks._benchmark import RunHook, ScoreHook, YardsticksHook, declare, lazy
from noveval.benchmarks._runner import entry_points
from noveval.benchmarks.chat.options import ChatOptions, ChatScoreOptions


# The hooks: each imported on first use, by an ordinary import (declaring the system stays cheap).
@lazy
def _run() -> RunHook[ChatOptions]:
    from noveval.benchmarks.chat.contract import run

    return run


@lazy
def _score() -> ScoreHook[ChatScoreOptions]:
    from noveval.benchmarks.chat.contract import score

    return score


@lazy
def _yardsticks() -> YardsticksHook:
    from noveval.benchmarks.chat.yardsticks import baselines

    return baselines


BENCHMARK = declare(__name__, "chat", ChatOptions,
                    score_options=ChatScoreOptions,
                    data_option="input",
                    paper=False,
                    primary_metric="exact_match",
                    greater_is_better=True,
                    no_published="a generic task over the user's own prompts: no paper to quote",
                    run=_run, score=_score, yardsticks=_yardsticks)
"""The chat task's declaration."""

run, score = entry_points(BENCHMARK)

__all__ = ["BENCHMARK", "ChatOptions", "ChatScoreOptions", "run", "score"]
