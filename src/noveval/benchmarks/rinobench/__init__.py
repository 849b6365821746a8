"""RINoBench: judging the novelty of research ideas (Schopf & Färber, 2026).

Task (Section 5): given a research idea and its related works, answer a 1-5 novelty
score on the rubric (Table 1) with a justification. Metrics (Section 4.2): per-class
and macro F1, MAE, and seven LLM-judged justification metrics (Alignment; Recall,
Additional Ratio and Hallucination Rate for known and novelty aspects, Eqs. 1-3).
Dataset construction (Section 4.1): :mod:`.construct`. The same run under several
wordings of the judging prompt: ``options.prompt_variants`` (:mod:`noveval.benchmarks._variants`;
three rewordings of ``judge_novelty`` ship in ``prompt_variants/``).

``run`` and ``score`` are :func:`noveval.run` / :func:`noveval.score` for this system;
the rest of the package loads on first use (attribute access).
"""

from __future__ import annotations

from noveval.benchmarks._benchmark import (
    Answer,
    DemoHook,
    PlanHook,
    PlannedConfigHook,
    RunHook,
    ScoreHook,
    SuiteHook,
    UsedPromptsHook,
    YardsticksHook,
    declare,
    lazy,
    lazy_exports,
)
from noveval.benchmarks._runner import entry_points
from noveval.benchmarks.rinobench.options import RINoBenchOptions, RINoBenchScoreOptions

GOLD_URL = "https://github.com/TimSchopf/RINoBench (data/final_benchmark_dataset/test.json)"
HF_URL = "https://huggingface.co/datasets/TimSchopf/RINoBench"


# The hooks: each imported on first use, by an ordinary import (declaring the system stays cheap).
@lazy
def _run() -> RunHook[RINoBenchOptions]:
    from noveval.benchmarks.rinobench.contract import judge_run

    return judge_run


@lazy
def _score() -> ScoreHook[RINoBenchScoreOptions]:
    from noveval.benchmarks.rinobench.contract import score

    return score


@lazy
def _demo() -> DemoHook:
    from noveval.benchmarks.rinobench.demo import demo

    return demo


@lazy
def _suite() -> SuiteHook:
    from noveval.benchmarks.rinobench.suite import eval_plan

    return eval_plan


@lazy
def _yardsticks() -> YardsticksHook:
    from noveval.benchmarks.rinobench.yardsticks import baselines

    return baselines


@lazy
def _used_prompts() -> UsedPromptsHook[RINoBenchOptions]:
    from noveval.benchmarks.rinobench.contract import used_prompts

    return used_prompts


@lazy
def _planned_config() -> PlannedConfigHook[RINoBenchOptions]:
    from noveval.benchmarks.rinobench.contract import planned_config

    return planned_config


@lazy
def _plan() -> PlanHook[RINoBenchOptions]:
    from noveval.benchmarks.rinobench.plan import plan

    return plan


BENCHMARK = declare(__name__, "rinobench", RINoBenchOptions,
                    score_options=RINoBenchScoreOptions,
                    data_option="items",
                    primary_metric="f1_macro",
                    greater_is_better=True,
                    answer=Answer("predicted_score", "ordinal", prediction="novelty_score"),
                    plan=_plan, run=_run, score=_score, demo=_demo, suite=_suite, yardsticks=_yardsticks, used_prompts=_used_prompts, planned_config=_planned_config)
"""RINoBench's declaration (read by the registry, the CLI, the report, compare and export)."""

_LAZY = {
    "DEFAULT_RUBRIC": "data", "Prediction": "data", "RINoBenchItem": "data", "load_items": "data",
    "load_predictions": "data", "load_rubric": "data",
    "JUSTIFICATION_METRICS": "judge", "JudgeOptions": "judge", "ajudge_item": "judge",
    "ParsedJudgment": "parse", "parse_judgment": "parse",
    "score_predictions": "contract",
}

__all__ = ["BENCHMARK", "RINoBenchOptions", "RINoBenchScoreOptions", "run", "score", *sorted(_LAZY)]


run, score = entry_points(BENCHMARK)


__getattr__ = lazy_exports(__name__, _LAZY)
