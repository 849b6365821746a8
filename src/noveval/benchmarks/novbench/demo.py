"""What ``noveval demo`` runs for NovBench (:class:`~noveval.benchmarks._benchmark.DemoHook`)."""

from __future__ import annotations

from pathlib import Path

from noveval.benchmarks._benchmark import DemoRun
from noveval.benchmarks.novbench.options import NovBenchOptions
from noveval.data.folders import data_folder
from noveval.errors import InputError
from noveval.options import own_embedder

__all__ = ["demo"]


def demo(*, model: str, embedder: str, real: bool, data_dir: Path | None) -> list[DemoRun]:
    """Tiny end to end: generate (zero-shot and RAG), then score (the run's own scoring step), on samples or real data."""
    del model  # the demo's model
    data = None  # the shipped sample
    if real:
        rel = "novbench/emnlp2023-sample-paraphrased.json"
        root = data_folder([rel], data_dir)
        if root is None:
            raise InputError(data_dir, None, None, f"no data folder holds {rel}")
        data = root / rel  # ships RAG papers
    # the demo's budget (issue 31: every system cold in <= 180 CPU-s): 1 record, 192 tokens, each prompting
    # the demo's -e local leaves NovBench its own embedder (local:bf16@256) for retrieval and the metrics
    emb = own_embedder(embedder, NovBenchOptions)
    return [DemoRun(f"novbench-{p}", NovBenchOptions(data=data, prompting=p, limit=1, max_tokens=192, timeout=120.0,
                                                      embedder=emb, score=True))
            for p in ("zero-shot", "rag")]
