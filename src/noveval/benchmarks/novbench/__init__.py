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

import importlib
from typing import Any

from noveval.benchmarks._benchmark import About, Benchmark
from noveval.benchmarks._runner import entry_points
from noveval.benchmarks.novbench.options import NovBenchOptions, NovBenchScoreOptions

BENCHMARK = Benchmark(
    name="novbench",
    title="NovBench",
    summary="Generating novelty evaluations of papers: relevance, coverage, clarity and sentiment-distribution "
            "accuracy against reviewers' novelty comments.",
    about=About(
        paper="Wu et al., NovBench: Evaluating Large Language Models on Academic Paper Novelty Assessment",
        task="Generate structured (positive / neutral / negative) novelty evaluations of papers from their novelty "
             "descriptions; Relevance, Correctness (DistAcc), Coverage, Clarity against reviewers' novelty "
             "comments, with a Human row; plus the extraction and structuring stages.",
        needs=("records: JSON/JSONL with id, title, abstract, paper_novelty, review_novelty, output_format (the "
               "released coling2020.json / EMNLP layout); RAG needs retrieved_title/retrieved_abstract or --corpus",
               "a chat model (--model); an embedder (--embedder, default the bundled MiniLM); a causal LM for the "
               "Fluency Score (--ppl-model, default the bundled SmolLM2)"),
        data=("released with the paper: github.com/njust-winchy/llm4novelty (coling2020.json, the EMNLP 2023 "
              "sample, the labelled sentence files); here under $D/novbench/",),
        demo=("2 of 4 invented records, zero-shot and RAG prompting, 256 answer tokens",
              "Fluency Score perplexity from the bundled SmolLM2-135M (the paper used distilgpt2)"),
        examples=("noveval run novbench --data $D/novbench/coling2020.json --prompting zero-shot -o runs/nb-zs",
                  "noveval score novbench runs/nb-zs --data $D/novbench/coling2020.json"),
    ),
    options=NovBenchOptions,
    run="noveval.benchmarks.novbench.contract:run",
    score="noveval.benchmarks.novbench.contract:score",
    score_options=NovBenchScoreOptions,
    data_option="data",
    primary_metric="relevance",
    greater_is_better=True,
    demo="noveval.benchmarks.novbench.cli:demo",
    score_command="noveval.benchmarks.novbench.cli:score",
    commands="noveval.benchmarks.novbench.cli:app",
)
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


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
