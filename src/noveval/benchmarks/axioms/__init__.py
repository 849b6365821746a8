"""The axiomatic benchmark of novelty metrics (Liu & Zhai, arXiv 2604.15145).

Nine axiomatic checks over manipulated reference pools (:mod:`.axioms`), the pools and
tasks built from a corpus (:mod:`.pools`), the scoring engine (:mod:`.engine`), the run
(:mod:`.run`), metric combination (:mod:`.combine`) and the CLI extras (:mod:`.cli`).

``run`` and ``score`` are :func:`noveval.run` / :func:`noveval.score` for this system;
importing this package is cheap (the modules load numpy and the metrics on use).
"""

from __future__ import annotations

from typing import Never

from noveval.benchmarks._benchmark import (
    DemoHook,
    RunHook,
    ScoreHook,
    SuiteHook,
    YardsticksHook,
    declare,
    lazy,
)
from noveval.benchmarks._runner import entry_points
from noveval.benchmarks.axioms.options import METRIC_ORDER, AxiomsOptions


# The hooks: each imported on first use, by an ordinary import (declaring the system stays cheap).
@lazy
def _run() -> RunHook[AxiomsOptions]:
    from noveval.benchmarks.axioms.contract import run

    return run


@lazy
def _score() -> ScoreHook[Never]:
    from noveval.benchmarks.axioms.contract import score

    return score


@lazy
def _demo() -> DemoHook:
    from noveval.benchmarks.axioms.demo import demo

    return demo


@lazy
def _suite() -> SuiteHook:
    from noveval.benchmarks.axioms.suite import eval_plan

    return eval_plan


@lazy
def _yardsticks() -> YardsticksHook:
    from noveval.benchmarks.axioms.yardsticks import baselines

    return baselines


BENCHMARK = declare(__name__, "axioms", AxiomsOptions,
                    data_option="corpus",
                    primary_metric="overall Avg pass rate",
                    greater_is_better=True,
                    model_help="Chat model for the Ax2 paraphrases ('none' skips Ax2).",
                    run=_run, score=_score, demo=_demo, suite=_suite, yardsticks=_yardsticks)
"""The axiomatic benchmark's declaration (read by the registry, the CLI, the report, compare and export)."""

run, score = entry_points(BENCHMARK)

__all__ = ["BENCHMARK", "METRIC_ORDER", "AxiomsOptions", "run", "score"]
