"""A generic task: run any model over a JSONL file of prompts, resumably.

Useful on its own (batch generation with caching and retries against any backend)
and the smallest end-to-end path through the foundation. ``run`` and ``score`` are
:func:`noveval.run` / :func:`noveval.score` for this system.
"""

from __future__ import annotations

from noveval.benchmarks._benchmark import About, Benchmark
from noveval.benchmarks._runner import entry_points
from noveval.benchmarks.chat.options import ChatOptions, ChatScoreOptions

BENCHMARK = Benchmark(
    name="chat",
    title="chat",
    summary="Replies of a model to a prompts file; exact match against the prompts' references where given.",
    about=About(
        paper="none: a plain prompts-to-replies task that exercises the model layer",
        task="Generate a reply for every prompt; optional exact-match accuracy against a reference.",
        needs=("prompts file: JSONL or JSON list of {id, prompt | messages[, system, reference]}",
               "a chat model (--model)"),
        data=("your own prompts",),
        examples=("noveval run chat -i prompts.jsonl -o runs/chat -m local",
                  "noveval score chat runs/chat"),
    ),
    options=ChatOptions,
    run="noveval.benchmarks.chat.contract:run",
    score="noveval.benchmarks.chat.contract:score",
    score_options=ChatScoreOptions,
    data_option="input",
    paper=False,
    primary_metric="exact_match",
    greater_is_better=True,
    score_command="noveval.benchmarks.chat.cli:score",
)
"""The chat task's declaration."""

run, score = entry_points(BENCHMARK)

__all__ = ["BENCHMARK", "ChatOptions", "ChatScoreOptions", "run", "score"]
