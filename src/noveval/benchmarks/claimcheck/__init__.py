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
