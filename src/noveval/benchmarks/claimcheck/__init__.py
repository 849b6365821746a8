"""CLAIMCHECK (004_a9d5f2edb8b15f5c): claim-grounded critique of scientific papers.

Tasks: claim extraction, weakness identification (WI), claim association (CA),
weakness labeling (WL), claim verification (CV), weakness editing (WLE); metrics in
:mod:`noveval.metrics.spans` and :mod:`noveval.metrics.agreement`. One run is one task
(``options.task``).

``run`` and ``score`` are :func:`noveval.run` / :func:`noveval.score` for this system;
the rest of the package loads on first use (attribute access).
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
from noveval.benchmarks.claimcheck.options import ClaimcheckOptions, ClaimcheckScoreOptions


# The hooks: each imported on first use, by an ordinary import (declaring the system stays cheap).
@lazy
def _run() -> RunHook[ClaimcheckOptions]:
    from noveval.benchmarks.claimcheck.contract import run

    return run


@lazy
def _score() -> ScoreHook[ClaimcheckScoreOptions]:
    from noveval.benchmarks.claimcheck.contract import score

    return score


@lazy
def _demo() -> DemoHook:
    from noveval.benchmarks.claimcheck.demo import demo

    return demo


@lazy
def _suite() -> SuiteHook:
    from noveval.benchmarks.claimcheck.suite import eval_plan

    return eval_plan


@lazy
def _yardsticks() -> YardsticksHook:
    from noveval.benchmarks.claimcheck.yardsticks import baselines

    return baselines


@lazy
def _plan() -> PlanHook[ClaimcheckOptions]:
    from noveval.benchmarks.claimcheck.plan import plan

    return plan


BENCHMARK = declare(__name__, "claimcheck", ClaimcheckOptions,
                    score_options=ClaimcheckScoreOptions,
                    data_option="papers",
                    primary_metric=None,
                    greater_is_better=True,
                    plan=_plan, run=_run, score=_score, demo=_demo, suite=_suite, yardsticks=_yardsticks)
"""CLAIMCHECK's declaration (read by the registry, the CLI, the report, compare and export).

The primary metric is per task (``scores.json``'s ``primary_metric``: verified_rate,
f1_edit, f1_edit, alpha_agreement, same, win)."""

_LAZY = {
    "WEAKNESS_TYPES": "data", "ReviewAnnotation": "data", "WeaknessAnnotation": "data",
    "ClaimItem": "data", "PaperText": "data", "load_annotations": "data",
    "load_fulltext_papers": "data", "load_papers_file": "data", "find_span": "data",
    "sample_dir": "data",
    "verify_claims": "extract", "extract_claims": "extract",
    "identify_weaknesses": "wi", "associate_claims": "ca", "label_weakness": "wl",
    "verify_claim": "cv", "rewrite_weakness": "wle", "judge_pair": "wle",
    "export_pairs_csv": "wle", "import_human_choices": "wle",
    "weakness_items": "items", "focal_items": "items",
    "run_task": "generate", "load_inputs": "generate", "wi_to_annotations": "generate",
    "TASKS": "options",
    "score_run": "score", "score_predictions": "score",
    "agreement_report": "agreement",
}

__all__ = ["BENCHMARK", "ClaimcheckOptions", "ClaimcheckScoreOptions", "run", "score", *sorted(_LAZY)]

run, score = entry_points(BENCHMARK)


__getattr__ = lazy_exports(__name__, _LAZY)
