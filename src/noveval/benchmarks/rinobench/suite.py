"""RINoBench in ``noveval eval``: judge the test ideas 1-5 (Section 5), score F1/MAE.

The gold test set is public (TimSchopf/RINoBench) but not part of the shared data folder:
the eval reads it from ``<data>/rinobench/test.json`` and, without it, says where to get it.
``protocol`` ``paper`` is the released generation set-up (temperature 1, free text);
``noveval`` is this toolkit's (temperature 0, schema-constrained). A judge model adds the
LLM-judged justification metrics of Section 4.2.
"""

from __future__ import annotations

from pathlib import Path

from noveval.benchmarks._benchmark import EvalPlan, EvalRun
from noveval.benchmarks.rinobench import GOLD_URL

__all__ = ["eval_plan"]

GOLD = Path("rinobench") / "test.json"
"""The gold test set, relative to the data folder."""
RUBRIC = Path("rinobench") / "label_descriptions.json"
"""The released rubric, relative to the data folder."""


def eval_plan(data_dir: Path | None, *, limit: int | None, judge: str | None, protocol: str) -> EvalPlan:
    """RINoBench's eval run (see the module docstring).

    Args:
        data_dir: The real data folder (None: the shipped sample of 4 invented ideas).
        limit: At most this many ideas.
        judge: Judge model of the justification metrics (None: F1/MAE only).
        protocol: ``paper`` or ``noveval`` (the run's ``protocol``).
    """
    opts = {"protocol": protocol, "judge": judge, "limit": limit}
    if data_dir is None:
        return EvalPlan((EvalRun("rinobench", opts),), data="the shipped sample (4 invented ideas)")
    gold = Path(data_dir) / GOLD
    if not gold.is_file():
        return EvalPlan(skip=f"the gold test set is not in the data folder: download {GOLD_URL} to {gold}")
    rubric = Path(data_dir) / RUBRIC
    opts |= {"items": str(gold), "rubric": str(rubric) if rubric.is_file() else None}
    return EvalPlan((EvalRun("rinobench", opts),), data=f"{GOLD} (277 test ideas)")
