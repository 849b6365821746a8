"""NovBench (Wu et al.): novelty-evaluation generation and its four-dimension metrics.

Public API (see the modules for details)::

    from noveval.benchmarks import novbench
    recs = novbench.load_records("coling2020.json")
    run = novbench.run_generation("coling2020.json", "runs/zs", client=client, prompting="zero-shot")
    scores = novbench.score_run("runs/zs", "coling2020.json")
"""

from noveval.benchmarks.novbench.agreement import PreferenceRow, agreement_report, load_preferences
from noveval.benchmarks.novbench.analyses import (
    aclassify_paper_types,
    delete_sentences,
    group_scores,
    load_comments,
    perturb_records,
    render_table,
)
from noveval.benchmarks.novbench.data import (
    CorpusPaper,
    IntroSentence,
    NovBenchRecord,
    ReviewSentence,
    load_corpus,
    load_intro_sentences,
    load_records,
    load_review_sentences,
    load_sentence_pool,
    parse_list_field,
)
from noveval.benchmarks.novbench.evaluation_text import (
    StructuredEvaluation,
    format_evaluation,
    parse_evaluation,
)
from noveval.benchmarks.novbench.generate import (
    PROMPTINGS,
    agenerate,
    build_prompt,
    few_shot_examples,
    retrieve_references,
    run_generation,
)
from noveval.benchmarks.novbench.pipeline import (
    DESCRIPTION_STRATEGIES,
    EVALUATION_STRATEGIES,
    aextract_descriptions,
    aextract_evaluations,
    astructure,
    classification_metrics,
    context_window,
    parse_yes_no,
)
from noveval.benchmarks.novbench.score import (
    METRICS,
    aggregate,
    load_predictions,
    score_human,
    score_outputs,
    score_run,
)

__all__ = [
    "CorpusPaper",
    "DESCRIPTION_STRATEGIES",
    "EVALUATION_STRATEGIES",
    "IntroSentence",
    "METRICS",
    "NovBenchRecord",
    "PROMPTINGS",
    "PreferenceRow",
    "ReviewSentence",
    "StructuredEvaluation",
    "aclassify_paper_types",
    "aextract_descriptions",
    "aextract_evaluations",
    "agenerate",
    "aggregate",
    "agreement_report",
    "astructure",
    "build_prompt",
    "classification_metrics",
    "context_window",
    "delete_sentences",
    "few_shot_examples",
    "format_evaluation",
    "group_scores",
    "load_comments",
    "load_corpus",
    "load_intro_sentences",
    "load_predictions",
    "load_preferences",
    "load_records",
    "load_review_sentences",
    "load_sentence_pool",
    "parse_evaluation",
    "parse_list_field",
    "parse_yes_no",
    "perturb_records",
    "render_table",
    "retrieve_references",
    "run_generation",
    "score_human",
    "score_outputs",
    "score_run",
]
