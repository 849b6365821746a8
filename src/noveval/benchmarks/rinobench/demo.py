"""What ``noveval demo`` runs for RINoBench (:class:`~noveval.benchmarks._benchmark.DemoHook`)."""

from __future__ import annotations

from pathlib import Path

from noveval.benchmarks._benchmark import DemoRun
from noveval.benchmarks.rinobench.options import RINoBenchOptions

__all__ = ["demo"]


def demo(*, model: str, embedder: str, real: bool, data_dir: Path | None) -> list[DemoRun]:
    """Tiny end-to-end run on the shipped samples: judge one idea, score it, judge its justification.

    With ``real`` the rubric is read from ``<data_dir>/rinobench/label_descriptions.json``
    (no gold test set is available there, so the items stay the shipped samples).
    """
    del embedder  # RINoBench embeds nothing
    rubric = None
    if real and data_dir is not None and (Path(data_dir) / "rinobench" / "label_descriptions.json").exists():
        rubric = Path(data_dir) / "rinobench" / "label_descriptions.json"
    # the demo's budget (issue 31: every system cold in <= 180 CPU-s): one idea (its metrics still
    # computed, n=1); the paper's judge reads every argument, here at most 2 of each kind
    opts = RINoBenchOptions(judge=model, rubric=rubric, limit=1, max_tokens=256, overwrite=True, max_arguments=2,
                            judge_max_tokens=160, judge_max_related_works=2, judge_max_abstract_chars=300)
    return [DemoRun("run", opts)]
