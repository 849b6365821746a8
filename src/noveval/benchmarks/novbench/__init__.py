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


# --- declaration (issue 26); the run options are still the hand-written CLI's (legacy) ---
from noveval.benchmarks._benchmark import About as _About  # noqa: E402
from noveval.benchmarks._benchmark import Benchmark as _Benchmark  # noqa: E402
from noveval.options import RunOptions as _RunOptions  # noqa: E402

BENCHMARK = _Benchmark(
    name='novbench',
    title='NovBench',
    summary="Generating novelty evaluations of papers: relevance, coverage, clarity and sentiment-distribution accuracy against reviewers' novelty comments.",
    about=_About(
        paper='Wu et al., NovBench: Evaluating Large Language Models on Academic Paper Novelty Assessment',
        task="Generate structured (positive / neutral / negative) novelty evaluations of papers from their novelty descriptions; Relevance, Correctness (DistAcc), Coverage, Clarity against reviewers' novelty comments, with a Human row; plus the extraction and structuring stages.",
        needs=('records: JSON/JSONL with id, title, abstract, paper_novelty, review_novelty, output_format (the released coling2020.json / EMNLP layout); RAG needs retrieved_title/retrieved_abstract or --corpus', 'a chat model (--model); an embedder (--embedder, default the bundled MiniLM); a causal LM for the Fluency Score (--ppl-model, default the bundled SmolLM2)'),
        data=('released with the paper: github.com/njust-winchy/llm4novelty (coling2020.json, the EMNLP 2023 sample, the labelled sentence files); here under $D/novbench/',),
        demo=('2 of 4 invented records, zero-shot and RAG prompting, 256 answer tokens', 'Fluency Score perplexity from the bundled SmolLM2-135M (the paper used distilgpt2)'),
        examples=('noveval run novbench --data $D/novbench/coling2020.json --prompting zero-shot -o runs/nb-zs', 'noveval score novbench runs/nb-zs --data $D/novbench/coling2020.json'),
    ),
    options=_RunOptions,
    run='noveval.benchmarks.novbench.contract:run',
    score='noveval.benchmarks.novbench.contract:score',
    primary_metric='relevance',
    greater_is_better=True,
    demo='noveval.benchmarks.novbench.cli:demo',
    commands='noveval.benchmarks.novbench.cli:app',
    legacy='noveval.benchmarks.novbench.cli',
)
