"""A generic task: run any model over a JSONL file of prompts, resumably.

Useful on its own (batch generation with caching and retries against any backend)
and the smallest end-to-end path through the foundation. ``run`` and ``score`` are
:func:`noveval.run` / :func:`noveval.score` for this system.
"""

from __future__ import annotations

from noveval.benchmarks._benchmark import declare
from noveval.benchmarks._runner import entry_points
from noveval.benchmarks.chat.options import ChatOptions, ChatScoreOptions

BENCHMARK = declare(__name__, "chat", ChatOptions,
                    score_options=ChatScoreOptions,
                    data_option="input",
                    paper=False,
                    primary_metric="exact_match",
                    greater_is_better=True,
                    no_published="a generic task over the user's own prompts: no paper to quote",
                    standard=("score_command", "yardsticks"))
"""The chat task's declaration."""

run, score = entry_points(BENCHMARK)

__all__ = ["BENCHMARK", "ChatOptions", "ChatScoreOptions", "run", "score"]
