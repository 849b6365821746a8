"""Options of the pairwise novelty task (``noveval run novelty-pairs`` and ``noveval.run("novelty-pairs", ...)``)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import model_validator

from noveval.options import PromptVariantsOption, RunOptions, option

__all__ = ["PairsOptions"]


class PairsOptions(RunOptions, PromptVariantsOption):
    """Options of a ``novelty-pairs`` run.

    Attributes:
        data: The items file (None: the shipped RINoBench sample; ``source=neurips`` needs one).
        source: ``rinobench`` (a file in the published test.json format) or ``neurips``
            (``reviews/neurips-2025.jsonl.gz``).
        min_diff: NeurIPS: least difference of mean originality between the two papers.
        min_reviews: NeurIPS: least number of originality scores per paper.
        allow_tie: Let the model answer "tie".
        structured: Schema-constrained JSON answers.
        max_tokens: Answer token budget.
        temperature: Sampling temperature.
        samples: Samples per pair and order (self-consistency; needs temperature > 0).
    """

    data: str | Path | None = option(
        None, "--data", "-d", help="Items: a RINoBench test.json-format file (--source rinobench; default the "
                                   "shipped sample) or reviews/neurips-2025.jsonl.gz (--source neurips).")
    source: Literal["rinobench", "neurips"] = option(
        "rinobench", help="rinobench: pairs of ideas with different gold scores | neurips: papers sharing an author "
                          "keyword whose mean originality differs by >= --min-diff.")
    limit: int | None = option(None, "--limit", "-n", ge=1, help="At most N pairs (each asked in both orders).")
    min_diff: float = option(1.0, gt=0, help="NeurIPS: least difference of mean originality (1-4).")
    min_reviews: int = option(2, ge=1, help="NeurIPS: least originality scores per paper.")
    allow_tie: bool = option(True, "--tie/--no-tie", help="Offer 'tie' as an answer (--no-tie: do not).")
    structured: bool = option(True, "--structured/--free-text",
                              help="Ask for schema-constrained JSON (--free-text: parse free text).")
    max_tokens: int = option(32, ge=1, help="Answer token budget.")
    temperature: float = option(0.0, ge=0.0, help="Sampling temperature.")
    samples: int = option(1, ge=1, help="Ask each pair in each order N times (seeds seed..seed+N-1, temperature > 0) "
                                        "and take the plurality answer; records self-consistency.")

    @model_validator(mode="after")
    def _neurips_needs_data(self) -> PairsOptions:
        if self.source == "neurips" and self.data is None:
            raise ValueError("source neurips needs data (reviews/neurips-2025.jsonl.gz)")
        return self
