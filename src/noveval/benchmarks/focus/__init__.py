"""Focus-level evaluation of LLM reviews ("Mind the Blind Spots", Shin et al.).

Where do model reviews look? Every strength and weakness point of a model's review and of
the human (expert) reviews is annotated with a target and an aspect; the focus
distributions are compared (KL) and the labels matched (F1), with text similarity to the
expert review (Section 4-5). ``run`` and ``score`` are :func:`noveval.run` /
:func:`noveval.score` for this system; the rest of the package loads on first use::

    import noveval
    noveval.run("focus", "local", "runs/focus", data="neurips-2024.jsonl.gz", options={"limit": 5})
    from noveval.benchmarks.focus import split_points, load_papers
"""

from __future__ import annotations

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
from noveval.benchmarks.focus.options import FocusOptions, FocusScoreOptions


# The hooks: each imported on first use, by an ordinary import (declaring the system stays cheap).
@lazy
def _run() -> RunHook[FocusOptions]:
    from noveval.benchmarks.focus.contract import run

    return run


@lazy
def _score() -> ScoreHook[FocusScoreOptions]:
    from noveval.benchmarks.focus.contract import score

    return score


@lazy
def _demo() -> DemoHook:
    from noveval.benchmarks.focus.demo import demo

    return demo


@lazy
def _suite() -> SuiteHook:
    from noveval.benchmarks.focus.suite import eval_plan

    return eval_plan


@lazy
def _yardsticks() -> YardsticksHook:
    from noveval.benchmarks.focus.yardsticks import baselines

    return baselines


@lazy
def _plan() -> PlanHook[FocusOptions]:
    from noveval.benchmarks.focus.plan import plan

    return plan


BENCHMARK = declare(__name__, "focus", FocusOptions,
                    score_options=FocusScoreOptions,
                    data_option="papers",
                    primary_metric="kl_mean",
                    greater_is_better=False,
                    model_help="Model spec of the reviewing model (also the annotator unless --annotator): local | local:/path.gguf | "
                               "openai/<model> | openai-compatible/<model>@<url>.",
                    plan=_plan, run=_run, score=_score, demo=_demo, suite=_suite, yardsticks=_yardsticks)
"""The focus-level system's declaration (read by the registry, the CLI, the report, compare and export)."""

run, score = entry_points(BENCHMARK)

_LAZY = {
    "FocusPaper": "data", "FocusPoint": "data", "FocusReview": "data", "load_papers": "data",
    "points_from_lists": "data", "points_from_sections": "data",
    "run_focus": "pipeline", "score_run": "pipeline",
    "split_points": "split", "split_review_sections": "split",
}

__all__ = ["BENCHMARK", "FocusOptions", "FocusScoreOptions", "run", "score", *sorted(_LAZY)]


__getattr__ = lazy_exports(__name__, _LAZY)
