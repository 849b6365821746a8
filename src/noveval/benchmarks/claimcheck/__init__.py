"""CLAIMCHECK (004_a9d5f2edb8b15f5c): claim-grounded critique of scientific papers.

Tasks: claim extraction, weakness identification (WI), claim association (CA),
weakness labeling (WL), claim verification (CV), weakness editing (WLE); metrics in
:mod:`noveval.metrics.spans` and :mod:`noveval.metrics.agreement`. Heavy modules are
imported lazily (attribute access)."""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "WEAKNESS_TYPES": "data", "ReviewAnnotation": "data", "WeaknessAnnotation": "data",
    "ClaimItem": "data", "PaperText": "data", "load_annotations": "data",
    "load_fulltext_papers": "data", "load_papers_file": "data", "find_span": "data",
    "sample_dir": "data",
    "TaskOptions": "_common",
    "verify_claims": "extract", "extract_claims": "extract",
    "identify_weaknesses": "wi", "associate_claims": "ca", "label_weakness": "wl",
    "verify_claim": "cv", "rewrite_weakness": "wle", "judge_pair": "wle",
    "export_pairs_csv": "wle", "import_human_choices": "wle",
    "weakness_items": "items", "focal_items": "items",
    "run_task": "generate", "load_inputs": "generate", "wi_to_annotations": "generate",
    "TASKS": "generate",
    "score_run": "score", "score_predictions": "score",
    "agreement_report": "agreement",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        module = importlib.import_module(f"noveval.benchmarks.claimcheck.{_EXPORTS[name]}")
        return getattr(module, name)
    raise AttributeError(name)


# --- declaration (issue 26); the run options are still the hand-written CLI's (legacy) ---
from noveval.benchmarks._benchmark import About as _About  # noqa: E402
from noveval.benchmarks._benchmark import Benchmark as _Benchmark  # noqa: E402
from noveval.options import RunOptions as _RunOptions  # noqa: E402

BENCHMARK = _Benchmark(
    name='claimcheck',
    title='CLAIMCHECK',
    summary="Weakness identification, claim association, labeling, verification and rewriting of reviews' weaknesses against annotated claims.",
    about=_About(
        paper='CLAIMCHECK: How Grounded are LLM Critiques of Scientific Papers? (ACL submission)',
        task="Claim extraction, weakness identification (WI), claim association (CA), weakness labeling (WL), claim verification (CV) and weakness editing (WLE); span F1, Krippendorff's alpha, win rates.",
        needs=('papers: id, title, abstract, fulltext_markdown, reviews (the NeurIPS full-text layout), or --data-dir with fulltext/neurips-2025-fulltext.jsonl.gz', "annotations (wi/ca/wl/cv/wle): noveval's documented JSONL format (docs/claimcheck.md)", 'a chat model (--model); a judge (--judge) for cv and wle'),
        data=('the CLAIMCHECK annotations are not public: write them in the documented format; full texts of 400 NeurIPS 2025 papers: $D/fulltext/',),
        demo=('one invented paper, 2 items per task, 1500-character contexts, one 1500-character chunk for extraction, 160 answer tokens',),
        examples=('noveval run claimcheck --task extract -o runs/cc-extract --data-dir $D --limit 1', 'noveval score claimcheck runs/cc-extract'),
    ),
    options=_RunOptions,
    run='noveval.benchmarks.claimcheck.contract:run',
    score='noveval.benchmarks.claimcheck.contract:score',
    primary_metric=None,
    greater_is_better=True,
    demo='noveval.benchmarks.claimcheck.cli:demo',
    commands='noveval.benchmarks.claimcheck.cli:app',
    legacy='noveval.benchmarks.claimcheck.cli',
)
