"""The axiomatic benchmark in ``noveval eval``: not a model evaluation, so it runs nothing there."""

from __future__ import annotations

from pathlib import Path

from noveval.benchmarks._benchmark import EvalPlan

__all__ = ["eval_plan"]


def eval_plan(data_dir: Path | None, *, limit: int | None, judge: str | None, protocol: str) -> EvalPlan:
    """No eval run: the benchmark scores corpus novelty metrics (the chat model only paraphrases for Ax2)."""
    del data_dir, limit, judge, protocol
    return EvalPlan(skip="it evaluates corpus novelty metrics, not a chat model (the model only writes the Ax2 "
                         "paraphrases): run `noveval run axioms`")
