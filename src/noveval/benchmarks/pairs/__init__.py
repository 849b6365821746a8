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

from typing import Never

from noveval.benchmarks._benchmark import (
    PlanHook,
    RunHook,
    ScoreHook,
    SuiteHook,
    YardsticksHook,
    declare,
    lazy,
    lazy_exports,
)
from noveval.benchmarks._runner import entry_points
from noveval.benchmarks.pairs.options import PairsOptions


# The hooks: each imported on first use, by an ordinary import (declaring the system stays cheap).
@lazy
def _run() -> RunHook[PairsOptions]:
    from noveval.benchmarks.pairs.contract import run

    return run


@lazy
def _score() -> ScoreHook[Never]:
    from noveval.benchmarks.pairs.contract import score

    return score


@lazy
def _suite() -> SuiteHook:
    from noveval.benchmarks.pairs.suite import eval_plan

    return eval_plan


@lazy
def _yardsticks() -> YardsticksHook:
    from noveval.benchmarks.pairs.yardsticks import baselines

    return baselines


@lazy
def _plan() -> PlanHook[PairsOptions]:
    from noveval.benchmarks.pairs.plan import plan

    return plan


BENCHMARK = declare(__name__, "novelty-pairs", PairsOptions,
                    data_option="data",
                    paper=False,
                    primary_metric="accuracy",
                    greater_is_better=True,
                    no_published="our own task (pairs of RINoBench ideas or NeurIPS 2025 papers with human novelty scores): no paper to quote",
                    plan=_plan, run=_run, score=_score, suite=_suite, yardsticks=_yardsticks)
"""The pairwise task's declaration."""

run, score = entry_points(BENCHMARK)

_LAZY = {"Pair": "data", "PairSide": "data", "build_pairs": "data", "load_neurips": "data",
         "neurips_pairs": "data", "rinobench_sides": "data", "sample_pairs": "data",
         "parse_choice": "task", "score_pairs": "task"}

__all__ = ["BENCHMARK", "PairsOptions", "run", "score", *sorted(_LAZY)]


__getattr__ = lazy_exports(__name__, _LAZY)
