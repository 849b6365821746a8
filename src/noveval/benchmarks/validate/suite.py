"""The validity study in ``noveval eval``: does the model, as a novelty judge, agree with reviewers?

The model rates each NeurIPS 2025 paper with both judge prompts (RINoBench's 1-5 rubric and
a direct 1-4 rating), shown the prior papers retrieved for it; the table shows the Spearman
ρ of the rubric judge with the reviewers' mean originality (``rho_llm_rubric``; the human
ceiling is in the run's scores). The corpus novelty metrics do not depend on the model and
are left out (``noveval run validate`` computes them).
"""

from __future__ import annotations

from pathlib import Path

from noveval.benchmarks._benchmark import EvalPlan, EvalRun
from noveval.benchmarks.validate.data import sample_paths

__all__ = ["eval_plan"]

REVIEWS = Path("reviews") / "neurips-2025.jsonl.gz"
CORPUS = Path("corpus") / "papers.jsonl.gz"
METRIC = "rho_llm_rubric"
"""The eval table's metric: Spearman ρ of the rubric judge with the mean originality rating."""


def eval_plan(data_dir: Path | None, *, limit: int | None, judge: str | None, protocol: str) -> EvalPlan:
    """The validity study's eval run (see the module docstring).

    Args:
        data_dir: The real data folder (None: the shipped synthetic sample, 24 papers).
        limit: At most this many rated papers.
        judge: Not used (the model under test is the judge).
        protocol: Not used (the study is ours: one protocol).
    """
    del judge, protocol
    opts: dict[str, object] = {"metric": [], "limit": limit}
    if data_dir is None:
        reviews, corpus = sample_paths()
        # the sample's scale (as its demo): 40 papers, a small prior corpus, small keyword groups
        opts |= {"reviews": str(reviews), "corpus": str(corpus), "pool_size": 20, "top_k": 3, "min_group": 4,
                 "judge_limit": 0}
        return EvalPlan((EvalRun("validate", opts, metric=METRIC),), data="the shipped synthetic sample")
    missing = [str(Path(data_dir) / f) for f in (REVIEWS, CORPUS) if not (Path(data_dir) / f).is_file()]
    if missing:
        return EvalPlan(skip=f"not found: {', '.join(missing)}")
    opts |= {"reviews": str(Path(data_dir) / REVIEWS), "corpus": str(Path(data_dir) / CORPUS)}
    return EvalPlan((EvalRun("validate", opts, metric=METRIC),),
                    data=f"{REVIEWS} (the judges rate a seeded sample of 200 papers) against {CORPUS}")
