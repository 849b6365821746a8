"""Focus-level review evaluation in ``noveval eval``: model reviews of NeurIPS 2024 papers vs the experts'.

``protocol`` ``paper`` is Shin et al.'s set-up (rejected papers, the meta-review chain, set
F1, KL over distributions present on both sides; docs/fidelity.md); ``noveval`` this
toolkit's. The model under test writes the reviews; a judge model, when given, is the
target/aspect annotator (and the expert chain's model), as the paper used one fixed
annotator (o3-mini) for every reviewing model. Without one, the model annotates its own
reviews and the experts' points.
"""

from __future__ import annotations

from pathlib import Path

from noveval.benchmarks._benchmark import EvalPlan, EvalRun

__all__ = ["eval_plan"]

REVIEWS = Path("reviews") / "neurips-2024.jsonl.gz"
"""Papers with their reviews, relative to the data folder."""


def eval_plan(data_dir: Path | None, *, limit: int | None, judge: str | None, protocol: str) -> EvalPlan:
    """The focus system's eval run (see the module docstring).

    Args:
        data_dir: The real data folder (None: the shipped sample of 3 invented papers).
        limit: At most this many papers.
        judge: The annotator model (None: the model under test annotates).
        protocol: ``paper`` or ``noveval``.
    """
    opts = {"protocol": protocol, "annotator": judge, "limit": limit}
    note = None if judge else "no judge: the reviewing model also annotates (the paper used one fixed annotator)"
    if data_dir is None:
        return EvalPlan((EvalRun("focus", opts),), data="the shipped sample (3 invented papers)", note=note)
    reviews = Path(data_dir) / REVIEWS
    if not reviews.is_file():
        return EvalPlan(skip=f"{reviews} not found (NeurIPS 2024 papers with their reviews)")
    which = "its rejected papers" if protocol == "paper" else "every paper"
    return EvalPlan((EvalRun("focus", {**opts, "papers": str(reviews)}),), data=f"{REVIEWS} ({which})", note=note)
