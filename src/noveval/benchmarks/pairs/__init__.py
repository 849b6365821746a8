"""``novelty-pairs``: which of two ideas or papers is more novel, asked in both orders (issue 18 item 4).

Pairs come from RINoBench items with different gold novelty scores, or from NeurIPS 2025
papers that share an author keyword and whose reviewers' mean originality (1-4) differs
by at least 1 (:mod:`.data`). Each pair is put to the model twice, once in each order
(:mod:`.task`); the gold is the more original of the two. Metrics: accuracy (per order and
consistent over both orders), position consistency, position bias, tie and unparseable
rates, with 95% bootstrap CIs over pairs (:func:`.task.score_pairs`).

``run`` and ``score`` are :func:`noveval.run` / :func:`noveval.score` for this system; the
data and task helpers load on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

from noveval.benchmarks._benchmark import About, Benchmark
from noveval.benchmarks._runner import entry_points
from noveval.benchmarks.pairs.options import PairsOptions

BENCHMARK = Benchmark(
    name="novelty-pairs",
    title="Pairwise novelty",
    summary="Which of two research ideas (or NeurIPS papers) is more novel, each pair asked in both orders: "
            "accuracy against the gold, position consistency and bias.",
    about=About(
        paper="none: a pairwise task (issue 18) on RINoBench items and NeurIPS 2025 originality scores",
        task="Say which of two research ideas (or papers) is more novel, each pair asked in both orders; "
             "accuracy against the gold (per order and consistent over both), position consistency, "
             "position bias, tie and unparseable rates, 95% bootstrap CIs over pairs.",
        needs=("items: a RINoBench test.json-format file (gold novelty_score 1-5), or "
               "reviews/neurips-2025.jsonl.gz (id, title, abstract, keywords, reviews[].scores.originality 1-4)",
               "a chat model (--model)"),
        data=("the shipped RINoBench sample (default); $D/reviews/neurips-2025.jsonl.gz with --source neurips",),
        examples=("noveval run novelty-pairs -o runs/pairs-sample -m local",
                  "noveval run novelty-pairs --source neurips --data $D/reviews/neurips-2025.jsonl.gz "
                  "--limit 100 -o runs/pairs-neurips -m local",
                  "noveval score novelty-pairs runs/pairs-sample"),
    ),
    options=PairsOptions,
    run="noveval.benchmarks.pairs.contract:run",
    score="noveval.benchmarks.pairs.contract:score",
    data_option="data",
    paper=False,
    primary_metric="accuracy",
    greater_is_better=True,
)
"""The pairwise task's declaration."""

run, score = entry_points(BENCHMARK)

_LAZY = {"Pair": "data", "PairSide": "data", "build_pairs": "data", "load_neurips": "data",
         "neurips_pairs": "data", "rinobench_sides": "data", "sample_pairs": "data",
         "parse_choice": "task", "score_pairs": "task"}

__all__ = ["BENCHMARK", "PairsOptions", "run", "score", *sorted(_LAZY)]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
