"""RINoBench: judging the novelty of research ideas (Schopf & Färber, 2026).

Task (Section 5): given a research idea and its related works, answer a 1-5 novelty
score on the rubric (Table 1) with a justification. Metrics (Section 4.2): per-class
and macro F1, MAE, and seven LLM-judged justification metrics (Alignment; Recall,
Additional Ratio and Hallucination Rate for known and novelty aspects, Eqs. 1-3).
Dataset construction (Section 4.1): :mod:`.construct`. The same run under several
wordings of the judging prompt: ``options.prompt_variants`` (:mod:`.variants`).

``run`` and ``score`` are :func:`noveval.run` / :func:`noveval.score` for this system;
the rest of the package loads on first use (attribute access).
"""

from __future__ import annotations

import importlib
from typing import Any

from noveval.benchmarks._benchmark import About, Answer, Benchmark
from noveval.benchmarks._runner import entry_points
from noveval.benchmarks.rinobench.options import RINoBenchOptions, RINoBenchScoreOptions

GOLD_URL = "https://github.com/TimSchopf/RINoBench (data/final_benchmark_dataset/test.json)"
HF_URL = "https://huggingface.co/datasets/TimSchopf/RINoBench"

BENCHMARK = Benchmark(
    name="rinobench",
    title="RINoBench",
    summary="Judging research-idea novelty on a 1-5 scale with a justification, scored by F1/MAE and by a judge "
            "that compares justifications with the gold reasoning.",
    about=About(
        paper="Schopf & Färber, Is this Idea Novel? An Automated Benchmark for Judgment of Research Ideas "
              "(LREC 2026, arXiv 2603.10303)",
        task="Judge a research idea's novelty 1-5 on a rubric with a justification; per-class and macro F1, "
             "MAE, and with --judge the LLM-judged justification metrics (alignment, recall, additional "
             "ratio, hallucination rate).",
        needs=("items: the published test.json format: research_idea{problem_statement, objective, "
               "solution_approach}, related_works[{title, abstract}], novelty_score 1-5 and novelty_reasoning "
               "(gold; needed for scores)",
               "predictions to score: the published [{reasoning, novelty_score}] JSON list (in test.json "
               "order) or noveval's predictions.jsonl; novelty_score must be an integer 1-5 or null",
               "a chat model (--model) for run; a judge model (--judge) for the justification metrics"),
        data=(f"gold test set: public dataset, {GOLD_URL}, also {HF_URL}; download test.json "
              "and pass it with --items (run) or --gold (score)",
              "published predictions of 7 models and the rubric: the same repository "
              "(data/novelty_predictions/, label_descriptions.json); here under $D/rinobench/"),
        demo=("2 of 4 invented ideas, 256 answer tokens; the same bundled model is the judge",
              "judge capped for time: at most 3 arguments per justification and kind, 3 related works "
              "(600-character abstracts), 256-token judge replies (the paper: all arguments)"),
        examples=("noveval run rinobench --items test.json -o runs/rino -m SPEC",
                  "noveval score rinobench $D/rinobench/predictions/"
                  "novelty_predictions-o3-2025-04-16.json --gold test.json -o runs/rino-o3"),
    ),
    options=RINoBenchOptions,
    run="noveval.benchmarks.rinobench.contract:run",
    score="noveval.benchmarks.rinobench.contract:score",
    score_options=RINoBenchScoreOptions,
    data_option="items",
    primary_metric="f1_macro",
    greater_is_better=True,
    answer=Answer("predicted_score", "ordinal", prediction="novelty_score"),
    demo="noveval.benchmarks.rinobench.cli:demo",
    score_command="noveval.benchmarks.rinobench.cli:score",
    commands="noveval.benchmarks.rinobench.cli:app",
)
"""RINoBench's declaration (read by the registry, the CLI, the report, compare and export)."""

_LAZY = {
    "DEFAULT_RUBRIC": "data", "Prediction": "data", "RINoBenchItem": "data", "load_items": "data",
    "load_predictions": "data", "load_rubric": "data",
    "JUSTIFICATION_METRICS": "judge", "JudgeOptions": "judge", "ajudge_item": "judge",
    "ParsedJudgment": "parse", "parse_judgment": "parse",
    "bundled_variants": "variants", "run_prompt_variants": "variants",
    "score_predictions": "contract",
}

__all__ = ["BENCHMARK", "RINoBenchOptions", "RINoBenchScoreOptions", "run", "score", *sorted(_LAZY)]


run, score = entry_points(BENCHMARK)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
