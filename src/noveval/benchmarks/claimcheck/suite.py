"""CLAIMCHECK in ``noveval eval``: claim association (CA, Section 4.1) scored with F1_edit against the gold.

CA is the first of the paper's tasks on annotated weaknesses. Its gold annotations are not
part of the shared data folder: the eval reads them from
``<data>/claimcheck/annotations.jsonl`` (the published format, with the papers' full texts of
the data folder). ``protocol`` ``paper`` adds the related works the weaknesses cite (found in
``<data>/corpus/papers.jsonl.gz``) and averages seeds 0, 42 and 2025; on the shipped sample
(one invented paper, no matching corpus) only ``noveval`` runs.
"""

from __future__ import annotations

from pathlib import Path

from noveval.benchmarks._benchmark import EvalPlan, EvalRun
from noveval.benchmarks.claimcheck.data import sample_dir

__all__ = ["eval_plan"]

ANNOTATIONS = Path("claimcheck") / "annotations.jsonl"
"""The gold annotations, relative to the data folder."""
CORPUS = Path("corpus") / "papers.jsonl.gz"
"""The corpus the paper protocol matches references against, relative to the data folder."""


def eval_plan(data_dir: Path | None, *, limit: int | None, judge: str | None, protocol: str) -> EvalPlan:
    """CLAIMCHECK's eval run (see the module docstring).

    Args:
        data_dir: The real data folder (None: the shipped sample).
        limit: At most this many weaknesses (task items).
        judge: Not used by CA (CV and WLE would use it).
        protocol: ``paper`` or ``noveval``.
    """
    del judge
    opts = {"task": "ca", "protocol": protocol, "limit_items": limit}
    if data_dir is None:
        if protocol == "paper":
            return EvalPlan(skip="the paper protocol matches the papers' references against a corpus; the shipped "
                                 "sample has none (the noveval protocol runs on it)")

        sample = sample_dir()
        return EvalPlan((EvalRun("claimcheck", {**opts, "papers": str(sample / "papers.json"),
                                                "annotations": str(sample / "annotations.jsonl")}),),
                        data="the shipped sample (one invented paper, its annotated weaknesses)")
    ann = Path(data_dir) / ANNOTATIONS
    if not ann.is_file():
        return EvalPlan(skip=f"CLAIMCHECK's gold annotations are not in the data folder ({ann}, the published format)")
    corpus = Path(data_dir) / CORPUS
    if protocol == "paper" and not corpus.is_file():
        return EvalPlan(skip=f"{corpus} not found: the paper protocol matches the papers' references against it")
    opts |= {"data_dir": str(data_dir), "annotations": str(ann), "corpus": str(corpus) if protocol == "paper" else None}
    return EvalPlan((EvalRun("claimcheck", opts),), data=f"{ANNOTATIONS} with the NeurIPS 2025 full texts")
