"""NovBench (Wu et al.): novelty-evaluation generation and its four-dimension metrics.

Task (Section 3.2): from a paper's novelty-description sentences, generate a structured
(positive / neutral / negative) novelty evaluation; zero-shot, few-shot or RAG prompting
(Appendix E). Metrics: Relevance (Eq. 1), Correctness as DistAcc (Eq. 2), Coverage
(Eq. 3) and Clarity (Eqs. 4-7) against the reviewers' novelty comments, with a Human row.
The dataset-construction stages (Appendices A-C) and the human agreement (Appendix D)
are :mod:`.pipeline` and :mod:`.agreement` (``noveval novbench ...``).

``run`` and ``score`` are :func:`noveval.run` / :func:`noveval.score` for this system::

    import noveval
    run = noveval.run("novbench", "local", "runs/zs", data="coling2020.json", options={"prompting": "zero-shot"})
    scores = noveval.score(run.path)          # the records file is the one the run recorded

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
from noveval.benchmarks.novbench.options import NovBenchOptions, NovBenchScoreOptions


# The hooks: each imported on first use, by an ordinary import (declaring the system stays cheap).
@lazy
def _run() -> RunHook[NovBenchOptions]:
    from noveval.benchmarks.novbench.contract import run

    return run


@lazy
def _score() -> ScoreHook[NovBenchScoreOptions]:
    from noveval.benchmarks.novbench.contract import score

    return score


@lazy
def _demo() -> DemoHook:
    from noveval.benchmarks.novbench.demo import demo

    return demo


@lazy
def _suite() -> SuiteHook:
    from noveval.benchmarks.novbench.suite import eval_plan

    return eval_plan


@lazy
def _yardsticks() -> YardsticksHook:
    from noveval.benchmarks.novbench.yardsticks import baselines

    return baselines


@lazy
def _plan() -> PlanHook[NovBenchOptions]:
    from noveval.benchmarks.novbench.plan import plan

    return plan


BENCHMARK = declare(__name__, "novbench", NovBenchOptions,
                    score_options=NovBenchScoreOptions,
                    data_option="data",
                    primary_metric="relevance",
                    greater_is_better=True,
                    plan=_plan, run=_run, score=_score, demo=_demo, suite=_suite, yardsticks=_yardsticks)
"""NovBench's declaration (read by the registry, the CLI, the report, compare and export)."""

run, score = entry_points(BENCHMARK)

_LAZY = {
    "PreferenceRow": "agreement", "agreement_report": "agreement", "load_preferences": "agreement",
    "aclassify_paper_types": "analyses", "delete_sentences": "analyses", "group_scores": "analyses",
    "load_comments": "analyses", "perturb_records": "analyses", "render_table": "analyses",
    "CorpusPaper": "data", "IntroSentence": "data", "NovBenchRecord": "data", "ReviewSentence": "data",
    "load_corpus": "data", "load_intro_sentences": "data", "load_records": "data", "load_review_sentences": "data",
    "load_sentence_pool": "data", "parse_list_field": "data",
    "StructuredEvaluation": "evaluation_text", "format_evaluation": "evaluation_text",
    "parse_evaluation": "evaluation_text",
    "PROMPTINGS": "generate", "agenerate": "generate", "build_prompt": "generate", "few_shot_examples": "generate",
    "retrieve_references": "generate", "run_generation": "generate",
    "DESCRIPTION_STRATEGIES": "pipeline", "EVALUATION_STRATEGIES": "pipeline", "aextract_descriptions": "pipeline",
    "aextract_evaluations": "pipeline", "astructure": "pipeline", "classification_metrics": "pipeline",
    "context_window": "pipeline", "parse_yes_no": "pipeline",
    "METRICS": "scoring", "aggregate": "scoring", "load_predictions": "scoring", "score_human": "scoring",
    "score_outputs": "scoring", "score_run": "scoring",
    "score_predictions": "contract",
}

__all__ = ["BENCHMARK", "NovBenchOptions", "NovBenchScoreOptions", "run", "score", *sorted(_LAZY)]


__getattr__ = lazy_exports(__name__, _LAZY)
