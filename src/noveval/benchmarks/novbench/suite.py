"""NovBench in ``noveval eval``: zero-shot structured novelty evaluations of the COLING 2020 records.

The paper's benchmark set (EMNLP 2023, 1,684 records) is not public; its released COLING 2020
file (73 records with the gold evaluations) is, and it is the one the published Human row
reproduces on (docs/results.md). Zero-shot prompting (Appendix E), scored with the four
dimensions; NovBench has no judge model and one protocol.
"""

from __future__ import annotations

from pathlib import Path

from noveval.benchmarks._benchmark import EvalPlan, EvalRun

__all__ = ["eval_plan"]

RECORDS = Path("novbench") / "coling2020.json"
"""The records file, relative to the data folder."""


def eval_plan(data_dir: Path | None, *, limit: int | None, judge: str | None, protocol: str) -> EvalPlan:
    """NovBench's eval run (see the module docstring).

    Args:
        data_dir: The real data folder (None: the shipped sample of 4 invented records).
        limit: At most this many records.
        judge: Not used (NovBench's metrics use embeddings, not a judge model).
        protocol: Not used (one protocol).
    """
    del judge, protocol
    if data_dir is None:
        return EvalPlan((EvalRun("novbench", {"prompting": "zero-shot", "limit": limit}),),
                        data="the shipped sample (4 invented records)")
    records = Path(data_dir) / RECORDS
    if not records.is_file():
        return EvalPlan(skip=f"{records} not found (NovBench's released COLING 2020 records)")
    return EvalPlan((EvalRun("novbench", {"data": str(records), "prompting": "zero-shot", "limit": limit}),),
                    data=f"{RECORDS} (73 records; the EMNLP 2023 set of the paper's tables is not public)")
