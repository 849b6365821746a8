"""``noveval validate``: do novelty metrics and LLM novelty judges agree with human reviewers?

Each rated paper (NeurIPS 2025: ~4 reviewers' 1-4 originality scores) gets predictors
computed only from prior work (corpus papers published before it): the four corpus
novelty metrics on a prior-only pool, retrieval signals (distance to the nearest and to
the top-k prior papers) and LLM judges (RINoBench's 1-5 rubric and a direct 1-4 rating)
shown the retrieved prior papers. Each predictor is correlated with the mean rating
(Spearman, Kendall, AUC high vs low, partial ρ; 95% bootstrap CIs) next to the human
ceiling: how well one reviewer agrees with the others.

``run`` and ``score`` are :func:`noveval.run` / :func:`noveval.score` for this system;
the rest of the package loads on first use (attribute access).
"""

from __future__ import annotations

from typing import Never

from noveval.benchmarks._benchmark import (
    DemoHook,
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
from noveval.benchmarks.validate.options import ValidateOptions


# The hooks: each imported on first use, by an ordinary import (declaring the system stays cheap).
@lazy
def _run() -> RunHook[ValidateOptions]:
    from noveval.benchmarks.validate.contract import run

    return run


@lazy
def _score() -> ScoreHook[Never]:
    from noveval.benchmarks.validate.contract import score

    return score


@lazy
def _demo() -> DemoHook:
    from noveval.benchmarks.validate.demo import demo

    return demo


@lazy
def _suite() -> SuiteHook:
    from noveval.benchmarks.validate.suite import eval_plan

    return eval_plan


@lazy
def _yardsticks() -> YardsticksHook:
    from noveval.benchmarks.validate.yardsticks import baselines

    return baselines


@lazy
def _plan() -> PlanHook[ValidateOptions]:
    from noveval.benchmarks.validate.plan import plan

    return plan


BENCHMARK = declare(__name__, "validate", ValidateOptions,
                    data_option="reviews",
                    paper=False,
                    primary_metric=None,
                    greater_is_better=True,
                    model_help="Chat model spec for the LLM judges (local | openai/<model> | openai-compatible/<model>@<url>); "
                               "'none' skips the judges.",
                    no_published="our own validity study (human novelty ratings of NeurIPS 2025 papers): no paper to quote",
                    plan=_plan, run=_run, score=_score, demo=_demo, suite=_suite, yardsticks=_yardsticks)
"""The validity study's declaration (read by the registry, the CLI, the report, compare and export)."""

run, score = entry_points(BENCHMARK)

_LAZY = {"RatedPaper": "data", "load_rated_papers": "data", "load_peerread_ratings": "data", "sample_paths": "data",
         "score_rows": "analysis", "write_scores": "contract"}

__all__ = ["BENCHMARK", "ValidateOptions", "run", "score", *sorted(_LAZY)]


__getattr__ = lazy_exports(__name__, _LAZY)
