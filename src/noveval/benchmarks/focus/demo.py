"""What ``noveval demo`` runs for the focus-level system (:class:`~noveval.benchmarks._benchmark.DemoHook`)."""

from __future__ import annotations

from pathlib import Path

from noveval.benchmarks._benchmark import DemoRun
from noveval.benchmarks.focus.options import FocusOptions
from noveval.data.folders import data_folder

__all__ = ["demo"]


def demo(*, model: str, embedder: str, real: bool, data_dir: Path | None) -> list[DemoRun]:
    """Tiny end-to-end: 1 shipped sample paper (or 1 real NeurIPS 2024 paper with ``real``), 1 human review."""
    del model, embedder  # the demo's model; the system's own embedder
    papers = None
    if real:
        d = data_folder(["reviews/neurips-2024.jsonl.gz"], data_dir)
        if d is None:
            raise FileNotFoundError("no data folder holds reviews/neurips-2024.jsonl.gz")
        papers = Path(d) / "reviews" / "neurips-2024.jsonl.gz"
    return [DemoRun("focus", FocusOptions(papers=papers, limit=1, max_reviews=1, max_tokens=200))]
