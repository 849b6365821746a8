"""CLAIMCHECK (004_a9d5f2edb8b15f5c): claim-grounded critique of scientific papers.

Tasks: claim extraction, weakness identification (WI), claim association (CA),
weakness labeling (WL), claim verification (CV), weakness editing (WLE); metrics in
:mod:`noveval.metrics.spans` and :mod:`noveval.metrics.agreement`. One run is one task
(``options.task``).

``run`` and ``score`` are :func:`noveval.run` / :func:`noveval.score` for this system;
the rest of the package loads on first use (attribute access).
"""

from __future__ import annotations

import importlib
from typing import Any

from noveval.benchmarks._benchmark import About, Benchmark
from noveval.benchmarks._runner import entry_points
from noveval.benchmarks.claimcheck.options import ClaimcheckOptions, ClaimcheckScoreOptions

BENCHMARK = Benchmark(
    name="claimcheck",
    title="CLAIMCHECK",
    summary="Weakness identification, claim association, labeling, verification and rewriting of reviews' "
            "weaknesses against annotated claims.",
    about=About(
        paper="CLAIMCHECK: How Grounded are LLM Critiques of Scientific Papers? (ACL submission)",
        task="Claim extraction, weakness identification (WI), claim association (CA), weakness labeling (WL), "
             "claim verification (CV) and weakness editing (WLE); span F1, Krippendorff's alpha, win rates.",
        needs=("papers: id, title, abstract, fulltext_markdown, reviews (the NeurIPS full-text layout), or the "
               "data folder (--data-dir) with fulltext/neurips-2025-fulltext.jsonl.gz",
               "annotations (wi/ca/wl/cv/wle): noveval's documented JSONL format (docs/claimcheck.md)",
               "a chat model (--model); a judge (--judge) for cv and wle"),
        data=("the CLAIMCHECK annotations are not public: write them in the documented format; full texts of "
              "400 NeurIPS 2025 papers: $D/fulltext/",),
        demo=("one invented paper, 2 items per task, 1500-character contexts, one 1500-character chunk for "
              "extraction, 160 answer tokens",),
        examples=("noveval run claimcheck --task extract -o runs/cc-extract --data-dir $D --limit 1",
                  "noveval score claimcheck runs/cc-extract"),
    ),
    options=ClaimcheckOptions,
    run="noveval.benchmarks.claimcheck.contract:run",
    score="noveval.benchmarks.claimcheck.contract:score",
    score_options=ClaimcheckScoreOptions,
    data_option="papers",
    primary_metric=None,
    greater_is_better=True,
    demo="noveval.benchmarks.claimcheck.cli:demo",
    score_command="noveval.benchmarks.claimcheck.cli:score",
    commands="noveval.benchmarks.claimcheck.cli:app",
)
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


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
