"""RINoBench's ``run`` (the function its declaration names): one judging run, or one per prompt variant."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from noveval.benchmarks.rinobench.options import RINoBenchOptions
from noveval.models.chat import ChatClientProtocol

__all__ = ["run"]


def run(model: str | ChatClientProtocol, out: Path, options: RINoBenchOptions) -> Any:
    """Judge ``options.items`` with ``model`` into ``out`` (resumable); with ``prompt_variants``, once per variant.

    Returns:
        The run folder, or (prompt variants) the group of run folders with their comparison.
    """
    from noveval.benchmarks.rinobench.contract import judge_run

    if options.prompt_variants is None:
        return judge_run(model, out, options)
    from noveval.benchmarks.rinobench.variants import run_prompt_variants
    from noveval.compare.variants import compare_variants
    from noveval.models.calls import collecting

    runs = run_prompt_variants(model, out, options)
    if collecting():  # a batch pass that only collects requests: nothing is compared yet
        return list(runs.values())
    return compare_variants(runs, out=out)
