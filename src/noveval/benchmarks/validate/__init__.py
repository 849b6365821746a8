"""``noveval validate``: do novelty metrics and LLM novelty judges agree with human reviewers?

Each rated paper (NeurIPS 2025: ~4 reviewers' 1-4 originality scores) gets predictors
computed only from prior work (corpus papers published before it): the four corpus
novelty metrics on a prior-only pool, retrieval signals (distance to the nearest and to
the top-k prior papers) and LLM judges (RINoBench's 1-5 rubric and a direct 1-4 rating)
shown the retrieved prior papers. Each predictor is correlated with the mean rating
(Spearman, Kendall, AUC high vs low, partial ρ; 95% bootstrap CIs) next to the human
ceiling: how well one reviewer agrees with the others.

``run`` and ``score`` are :func:`noveval.run` / :func:`noveval.score` for this system;
the rest of the package loads on first use (attribute access).
"""

from __future__ import annotations

import importlib
from typing import Any

from noveval.benchmarks._benchmark import About, Benchmark
from noveval.benchmarks._runner import entry_points
from noveval.benchmarks.validate.options import ValidateOptions

BENCHMARK = Benchmark(
    name="validate",
    title="Validity",
    summary="Do novelty metrics, retrieval signals and LLM judges agree with reviewers' originality ratings? "
            "Each predictor's rank correlation next to the human ceiling.",
    about=About(
        paper="none: noveval's own study (docs/validate.md); it scores the novelty metrics of Liu & Zhai and "
              "RINoBench-style LLM judges against reviewers' originality scores",
        task="Rank-correlate novelty metrics (Yin, RND, SemNovel, FastTextLOF) and LLM novelty judges with the mean "
             "human originality rating of each paper, next to the leave-one-reviewer-out human ceiling.",
        needs=("papers with rated reviews: JSONL(.gz) with id, title, abstract, year, reviews[].scores.originality "
               "(the NeurIPS 2025 OpenReview layout)",
               "a prior-work corpus: JSONL(.gz) with id, title, abstract, year",
               "an embedder (--embedder, default the bundled MiniLM); a judge model (--model, 'none' skips judges)"),
        data=("$D/reviews/neurips-2025.jsonl.gz (4,474 papers, ~4 originality scores each) and "
              "$D/corpus/papers.jsonl.gz (earlier papers) here; the defaults read them from --data-dir",),
        demo=("a shipped fixture-sized sample; the bundled SmolLM2-135M judges and MiniLM embeds",),
        examples=("noveval validate run -o runs/validity-quick --limit 200 --metric Yin --metric RND -m none --field ML",
                  "noveval validate ceiling $D/reviews/neurips-2025.jsonl.gz"),
    ),
    options=ValidateOptions,
    run="noveval.benchmarks.validate.contract:run",
    score="noveval.benchmarks.validate.contract:score",
    data_option="reviews",
    paper=False,
    primary_metric=None,
    greater_is_better=True,
    demo="noveval.benchmarks.validate.cli:demo",
    commands="noveval.benchmarks.validate.cli:app",
    model_help="Chat model spec for the LLM judges (local | openai/<model> | openai-compatible/<model>@<url>); "
               "'none' skips the judges.",
)
"""The validity study's declaration (read by the registry, the CLI, the report, compare and export)."""

run, score = entry_points(BENCHMARK)

_LAZY = {"RatedPaper": "data", "load_rated_papers": "data", "load_peerread_ratings": "data", "sample_paths": "data",
         "score_rows": "analysis", "write_scores": "contract"}

__all__ = ["BENCHMARK", "ValidateOptions", "run", "score", *sorted(_LAZY)]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
