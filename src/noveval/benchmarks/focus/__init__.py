"""Focus-level evaluation of LLM reviews ("Mind the Blind Spots", Shin et al.).

Where do model reviews look? Every strength and weakness point of a model's review and of
the human (expert) reviews is annotated with a target and an aspect; the focus
distributions are compared (KL) and the labels matched (F1), with text similarity to the
expert review (Section 4-5). ``run`` and ``score`` are :func:`noveval.run` /
:func:`noveval.score` for this system; the rest of the package loads on first use::

    import noveval
    noveval.run("focus", "local", "runs/focus", data="neurips-2024.jsonl.gz", options={"limit": 5})
    from noveval.benchmarks.focus import split_points, load_papers
"""

from __future__ import annotations

import importlib
from typing import Any

from noveval.benchmarks._benchmark import About, Benchmark
from noveval.benchmarks._runner import entry_points
from noveval.benchmarks.focus.options import FocusOptions, FocusScoreOptions

BENCHMARK = Benchmark(
    name="focus",
    title="Focus-level review evaluation",
    summary="Where do model reviews look? Targets and aspects of strengths and weaknesses, compared with expert "
            "reviews (KL and multiset F1).",
    about=About(
        paper="Shin et al., Mind the Blind Spots: A Focus-Level Evaluation Framework for LLM Reviews",
        task="Generate reviews, annotate every strength/weakness point with a target and an aspect, and compare "
             "the model's focus distributions with the experts' (KL, facet F1, ROUGE-L/BLEU/BERTScore).",
        needs=("papers with reviews: JSONL(.gz) with id, title, abstract (or fulltext_markdown), reviews[] with "
               "sections strengths/weaknesses, meta_review (the NeurIPS OpenReview layout)",
               "a chat model (--model) and an annotator model (--annotator, default --model)"),
        data=("the paper's own dataset is not public; NeurIPS 2023-2025 OpenReview reviews are: "
              "$D/reviews/neurips-2024.jsonl.gz here",),
        demo=("2 of 3 invented papers, 1 human review each, 300-token reviews; the same bundled model annotates",),
        examples=("noveval run focus -p $D/reviews/neurips-2024.jsonl.gz --limit 5 -o runs/focus",
                  "noveval score focus runs/focus"),
    ),
    options=FocusOptions,
    run="noveval.benchmarks.focus.contract:run",
    score="noveval.benchmarks.focus.contract:score",
    score_options=FocusScoreOptions,
    data_option="papers",
    primary_metric="kl_mean",
    greater_is_better=False,
    model_help="Model spec of the reviewing model (also the annotator unless --annotator): local | local:/path.gguf | "
               "openai/<model> | openai-compatible/<model>@<url>.",
    demo="noveval.benchmarks.focus.cli:demo",
    commands="noveval.benchmarks.focus.cli:app",
)
"""The focus-level system's declaration (read by the registry, the CLI, the report, compare and export)."""

run, score = entry_points(BENCHMARK)

_LAZY = {
    "FocusPaper": "data", "FocusPoint": "data", "FocusReview": "data", "load_papers": "data",
    "points_from_lists": "data", "points_from_sections": "data",
    "run_focus": "pipeline", "score_run": "pipeline",
    "split_points": "split", "split_review_sections": "split",
}

__all__ = ["BENCHMARK", "FocusOptions", "FocusScoreOptions", "run", "score", *sorted(_LAZY)]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
