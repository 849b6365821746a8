"""Focus-level evaluation of LLM reviews ("Mind the Blind Spots", Shin et al.).

Python API (the CLI is a thin shell over it)::

    from noveval.benchmarks.focus import run_focus, score_run, split_points
"""

from noveval.benchmarks.focus.data import (
    FocusPaper,
    FocusPoint,
    FocusReview,
    load_papers,
    points_from_lists,
    points_from_sections,
)
from noveval.benchmarks.focus.pipeline import run_focus, score_run
from noveval.benchmarks.focus.split import split_points, split_review_sections

__all__ = [
    "FocusPaper",
    "FocusPoint",
    "FocusReview",
    "load_papers",
    "points_from_lists",
    "points_from_sections",
    "run_focus",
    "score_run",
    "split_points",
    "split_review_sections",
]


# --- declaration (issue 26); the run options are still the hand-written CLI's (legacy) ---
from noveval.benchmarks._benchmark import About as _About  # noqa: E402
from noveval.benchmarks._benchmark import Benchmark as _Benchmark  # noqa: E402
from noveval.options import RunOptions as _RunOptions  # noqa: E402

BENCHMARK = _Benchmark(
    name='focus',
    title='Focus-level review evaluation',
    summary='Where do model reviews look? Targets and aspects of strengths and weaknesses, compared with expert reviews (KL and multiset F1).',
    about=_About(
        paper='Shin et al., Mind the Blind Spots: A Focus-Level Evaluation Framework for LLM Reviews',
        task="Generate reviews, annotate every strength/weakness point with a target and an aspect, and compare the model's focus distributions with the experts' (KL, facet F1, ROUGE-L/BLEU/BERTScore).",
        needs=('papers with reviews: JSONL(.gz) with id, title, abstract (or fulltext_markdown), reviews[] with sections strengths/weaknesses, meta_review (the NeurIPS OpenReview layout)', 'a chat model (--model) and an annotator model (--annotator, default --model)'),
        data=("the paper's own dataset is not public; NeurIPS 2023-2025 OpenReview reviews are: $D/reviews/neurips-2024.jsonl.gz here",),
        demo=('2 of 3 invented papers, 1 human review each, 300-token reviews; the same bundled model annotates',),
        examples=('noveval run focus -p $D/reviews/neurips-2024.jsonl.gz --limit 5 -o runs/focus', 'noveval score focus runs/focus'),
    ),
    options=_RunOptions,
    run='noveval.benchmarks.focus.contract:run',
    score='noveval.benchmarks.focus.contract:score',
    primary_metric='kl_mean',
    greater_is_better=False,
    demo='noveval.benchmarks.focus.cli:demo',
    commands='noveval.benchmarks.focus.cli:app',
    legacy='noveval.benchmarks.focus.cli',
)
