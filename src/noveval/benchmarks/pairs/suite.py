"""``novelty-pairs`` in ``noveval eval``: pairs of NeurIPS 2025 papers (or of the shipped ideas), both orders."""

from __future__ import annotations

from pathlib import Path

from noveval.benchmarks._benchmark import EvalPlan, EvalRun

__all__ = ["eval_plan"]

REVIEWS = Path("reviews") / "neurips-2025.jsonl.gz"
"""Papers with the reviewers' originality scores, relative to the data folder."""


def eval_plan(data_dir: Path | None, *, limit: int | None, judge: str | None, protocol: str) -> EvalPlan:
    """The pairwise task's eval run: our own task, one protocol.

    Args:
        data_dir: The real data folder (None: pairs of the shipped RINoBench sample ideas).
        limit: At most this many pairs (each asked in both orders).
        judge: Not used (the model under test answers).
        protocol: Not used (the task is ours: one protocol).
    """
    del judge, protocol
    if data_dir is None:
        return EvalPlan((EvalRun("novelty-pairs", {"limit": limit}),),
                        data="pairs of the shipped RINoBench sample ideas (2 pairs)")
    reviews = Path(data_dir) / REVIEWS
    if not reviews.is_file():
        return EvalPlan(skip=f"{reviews} not found (NeurIPS 2025 papers with originality scores)")
    return EvalPlan((EvalRun("novelty-pairs", {"source": "neurips", "data": str(reviews), "limit": limit}),),
                    data=f"{REVIEWS}: papers sharing an author keyword, mean originality >= 1 apart")
