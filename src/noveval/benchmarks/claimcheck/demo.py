"""What ``noveval demo`` runs for CLAIMCHECK (:class:`~noveval.benchmarks._benchmark.DemoHook`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from noveval.benchmarks._benchmark import DemoRun
from noveval.benchmarks.claimcheck.data import sample_dir
from noveval.benchmarks.claimcheck.options import TASKS, ClaimcheckOptions

__all__ = ["demo"]


def demo(*, model: str, embedder: str, real: bool, data_dir: Path | None) -> list[DemoRun]:
    """Every task tiny on the shipped sample (or, with ``real``, one shared paper for extract and wi).

    Each run is scored (but real wi, which has no gold).
    """
    del model  # the demo's model
    sample = sample_dir()
    runs = []
    for task in TASKS:
        inputs: dict[str, Any] = {"papers": sample / "papers.json"}
        if real and data_dir is not None and task in ("extract", "wi"):
            inputs = {"data_dir": data_dir, "limit": 1}
        else:
            inputs["annotations"] = None if task == "extract" else sample / "annotations.jsonl"
        # the demo's budget (issue 31): 1 item per task, but 2 for wl (Krippendorff's alpha needs two)
        opts = ClaimcheckOptions.model_validate({
            "task": task, "max_tokens": 96, "chunk_chars": 600, "max_chunks": 1, "context_chars": 600,
            "limit_items": 2 if task == "wl" else 1, "bertscore": embedder == "local", **inputs})
        runs.append(DemoRun(f"claimcheck-{task}", opts))
    return runs
