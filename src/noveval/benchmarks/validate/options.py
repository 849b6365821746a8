"""The validity study's options: the fields of ``noveval run validate`` (also ``noveval validate run``)
and of ``noveval.run("validate", options=...)``. Pure: pydantic only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator
from pydantic_core import PydanticCustomError

from noveval.options import (
    PAPER_EMBEDDER,
    DataDirOption,
    EmbedderOption,
    PromptVariantsOption,
    RunOptions,
    embedder_option,
    option,
    shared,
)

__all__ = ["ALL_JUDGES", "ALL_METRICS", "MAX_POOL", "CeilingCommand", "ValidateOptions"]

ALL_METRICS = ("Yin", "RND", "SemNovel", "FastTextLOF")
"""The four corpus metrics of Liu & Zhai (2026) §4, in their table order (the default of ``metric``)."""

ALL_JUDGES = ("rubric", "direct")
"""The LLM judge prompts (the default of ``judge_prompt``)."""

MAX_POOL = 5000
"""Largest metric pool: the exact metrics fit the whole pool for every paper (a t-SNE map, a fastText model)."""


class ValidateOptions(RunOptions, EmbedderOption, DataDirOption, PromptVariantsOption):
    """Options of a validity run (the model, ``-m``, is the LLM judges' model; ``none`` skips them).

    Attributes:
        embedder: Embedding spec (default ``local:bf16@256``, the setting of results.md's rows;
            another one is noted in the run).
        reviews: Papers with reviews (None: ``<data_dir>/reviews/neurips-2025.jsonl.gz``).
        corpus: Prior-work corpus (None: ``<data_dir>/corpus/papers.jsonl.gz``).
        metric: Corpus novelty metrics (``noveval.novelty.get_metric`` names, any case);
            ``["none"]`` or ``[]``: none.
        pool: ``neighbours`` (each paper's nearest prior papers) or ``field`` (a seeded
            sample of the paper's field before its year).
        pool_size: Papers in a metric's pool (2 to 5,000).
        field: Restrict prior work to this corpus field (None: all fields; in ``field`` mode
            the paper's own field, from its corpus record).
        top_k: k of the top-k mean similarity signal.
        judge_prompt: LLM judge prompts (``rubric``, ``direct``).
        judge_limit: Papers the LLM judges rate (the first of a seeded order of the rated
            papers; 0: all).
        metric_limit: Metric name (or ``"*"``: every metric) -> number of papers it is
            computed for, the first of the same seeded order (so the samples are nested: a
            judged paper is also scored by a limited metric when its limit is at least the
            judge limit; raising a limit later only adds papers). A dict, or the CLI's
            strings ``N`` (every metric) / ``NAME=N``. None: all papers.
        related_works: Prior papers shown to the LLM judges.
        max_abstract_chars: Characters of each prior abstract shown to the judges (0: whole).
        max_tokens: Judge answer budget.
        max_corpus: Seeded sample of at most N prior corpus papers (quick runs).
        min_raters: Ratings a paper needs for the human ceiling.
        min_group: Smallest keyword group analysed.
        resamples: Bootstrap resamples.
        jobs: Processes for the metric fits.
        fasttext_bucket: fastText hash buckets of FastTextLOF (fastText's default 2,000,000;
            a small corpus needs far fewer, and each fit initialises every bucket's vector).
    """

    embedder: str = embedder_option(PAPER_EMBEDDER, paper=True)
    reviews: Path | None = option(
        None, "--reviews", "-r",
        help="Papers with reviews (JSONL.gz; default: <data-dir>/reviews/neurips-2025.jsonl.gz).")
    corpus: Path | None = option(None, help="Prior-work corpus (default: <data-dir>/corpus/papers.jsonl.gz).")
    metric: list[str] = option(
        list(ALL_METRICS),
        help="Novelty metric (repeatable): Yin, RND, SemNovel, FastTextLOF, or none.")
    pool: str = option(
        "neighbours", help="neighbours (each paper's nearest prior papers) or field (a sample of the paper's field).")
    pool_size: int = option(500, ge=2, le=MAX_POOL, help="Papers in each metric's pool.")
    field: str | None = option(None, help="Use only prior work of this corpus field (ML, CV, NLP, ...).")
    top_k: int = option(10, ge=1, help="k of the top-k mean similarity signal.")
    judge_prompt: list[str] = option(
        list(ALL_JUDGES),
        help="LLM judge prompt (repeatable): rubric (RINoBench 1-5), direct (1-4).")
    judge_limit: int = option(200, ge=0, help="Papers the LLM judges rate (a seeded sample); 0 = all.")
    metric_limit: dict[str, int] | None = option(
        None,
        help="Compute metrics for a seeded sample of N papers only: N (every metric) or NAME=N (repeatable), "
             "e.g. SemNovel=1000.")
    related_works: int = option(5, ge=0, help="Prior papers shown to the judges.")
    max_abstract_chars: int = option(
        800, ge=0, help="Characters of each prior abstract shown to the judges (0: whole).")
    max_tokens: int = option(384, ge=16, help="Judge answer budget.")
    temperature: float = option(0.0, ge=0.0, le=2.0, help="The LLM judges' sampling temperature.")
    samples: int = option(1, ge=1, help="Ask each judge N times per paper (seeds seed..seed+N-1, temperature > 0) "
                                        "and score the plurality answer; records self-consistency.")
    max_corpus: int | None = option(None, ge=2, help="Sample at most N prior corpus papers (quick runs).")
    min_raters: int = option(3, ge=2, help="Ratings a paper needs for the human ceiling.")
    min_group: int = option(80, ge=2, help="Smallest keyword group analysed.")
    resamples: int = option(1000, ge=10, help="Bootstrap resamples.")
    jobs: int = option(1, ge=1, help="Processes for the metric fits (t-SNE, fastText).")
    fasttext_bucket: int = option(2_000_000, ge=1, help="fastText hash buckets of FastTextLOF (fastText's default).")

    @field_validator("metric", mode="before")
    @classmethod
    def _no_metric(cls, v: Any) -> Any:
        """``["none"]`` (any case) selects no metric."""
        if isinstance(v, (list, tuple)) and [str(m).lower() for m in v] == ["none"]:
            return []
        return v

    @field_validator("metric_limit", mode="before")
    @classmethod
    def _limits(cls, v: Any) -> Any:
        """``["N", "NAME=N", ...]`` as ``{"*": N, NAME: N}`` (a dict passes as it is; empty: None)."""
        if isinstance(v, str):
            v = [v]
        if not isinstance(v, (list, tuple)):
            return v
        out: dict[str, int] = {}
        for item in v:
            name, _, n = str(item).rpartition("=")
            if not n.strip().isdigit():
                raise PydanticCustomError("metric_limit", "expected N or NAME=N, got {item}", {"item": repr(item)})
            out[name.strip() or "*"] = int(n)
        return out or None


class CeilingCommand(BaseModel):
    """``noveval validate ceiling RATINGS``: human agreement alone (the ceiling a metric can reach)."""

    model_config = ConfigDict(extra="forbid")

    ratings: Path = option(..., argument=True, help="A reviews JSONL(.gz) (scores.<aspect> per review) or the "
                                                    "PeerRead aspect-score TSV.")
    aspect: str | None = option(None, help="Score to use (default: originality; ORIGINALITY for a TSV).")
    min_raters: int = option(3, ge=2, help="Ratings a paper needs.")
    resamples: int = option(1000, ge=10, help="Bootstrap resamples.")
    seed: int = shared("seed")
