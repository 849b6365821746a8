"""What ``noveval demo`` runs for the axiomatic benchmark (:class:`~noveval.benchmarks._benchmark.DemoHook`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from noveval.benchmarks._benchmark import DemoRun
from noveval.benchmarks.axioms.options import AxiomsOptions
from noveval.io import read_json, read_jsonl, write_json
from noveval.options import own_embedder

__all__ = ["demo"]


def _combine(out: Path) -> None:
    """The demo's metric combination (``combine.json``) from the run's per-item rows."""
    from noveval.benchmarks.axioms.combine import combine

    rows = read_jsonl(out / "per_item.jsonl")
    write_json(out / "combine.json", combine(rows, read_json(out / "config.json")["config"]["metrics"]))


def demo(*, model: str, embedder: str, real: bool, data_dir: Path | None) -> list[DemoRun]:
    """Tiny configuration: the shipped sample (or 1 real task, 10 focal papers with ``real``), then ``combine``.

    The demo's budget (issue 31: every system cold in <= 180 CPU-s): one t-SNE seed, no
    worker processes, Ax2 paraphrases of at most 160 tokens (the sample's abstracts are
    about 60 tokens; a run's default is 400), 1 per task on the sample. The demo's ``-e local``
    leaves the system its own embedder (``local:bf16@256``; :func:`~noveval.options.own_embedder`).
    """
    from noveval.benchmarks.axioms.pools import DEFAULT_TASKS

    del model  # the demo's model
    tiny: dict[str, Any] = {"embedder": own_embedder(embedder, AxiomsOptions), "semnovel": "approx",
                            "fasttext": "approx", "seeds": 1, "jobs": 1, "ax2_max_tokens": 160}
    if real:
        tiny |= {"data_dir": data_dir, "task": [DEFAULT_TASKS[3].name], "focal": 10, "ax2_limit": 3,
                 "metric": ["Yin", "RND"]}
    else:
        tiny |= {"sample": True, "focal": 6, "ax2_limit": 1}
    return [DemoRun("axioms", AxiomsOptions(**tiny), after=_combine)]
