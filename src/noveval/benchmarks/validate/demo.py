"""What ``noveval demo`` runs for the validity study (:class:`~noveval.benchmarks._benchmark.DemoHook`)."""

from __future__ import annotations

from pathlib import Path

from noveval.benchmarks._benchmark import DemoRun
from noveval.benchmarks.validate.data import sample_paths
from noveval.benchmarks.validate.options import ValidateOptions
from noveval.options import own_embedder

__all__ = ["demo"]


def demo(*, model: str, embedder: str, real: bool, data_dir: Path | None) -> list[DemoRun]:
    """Small run: the shipped fixture-sized sample (or 60 real NeurIPS 2025 papers with ``real``).

    The demo's ``-e local`` leaves validate its own embedder (``local:bf16@256``,
    :func:`~noveval.options.own_embedder`).
    """
    del model  # the demo's model
    emb = own_embedder(embedder, ValidateOptions)
    if real:
        opts = ValidateOptions(data_dir=data_dir, embedder=emb, limit=60, pool_size=100, max_corpus=3000,
                               judge_limit=3, max_tokens=160, resamples=200, min_group=10, overwrite=True)
    else:
        reviews, corpus = sample_paths()
        # the demo's budget (issue 31): 2 judged papers, 2 short prior abstracts, the slow metrics on 8 papers,
        # fastText with 20,000 hash buckets (the 2M default initialise 2M vectors per fit: 0.8 CPU-s each)
        opts = ValidateOptions(reviews=reviews, corpus=corpus, embedder=emb, pool_size=20, judge_limit=2,
                               related_works=2, max_abstract_chars=300, metric_limit={"SemNovel": 8, "FastTextLOF": 8},
                               fasttext_bucket=20_000, max_tokens=128, resamples=200, min_group=4, top_k=3,
                               overwrite=True)
    return [DemoRun("run", opts)]
