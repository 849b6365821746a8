"""The axiomatic benchmark's options: the fields of ``noveval run axioms`` and of ``noveval.run("axioms", options=...)``.

Pure: pydantic only (the engine's modules load numpy and the metrics).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, field_validator

from noveval.errors import InputError
from noveval.io import canonical_names
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

__all__ = ["AX2_MAX_TOKENS", "AX3_MAX_TOKENS", "METRIC_ORDER", "AxiomsOptions", "CombineCommand", "CompareCommand",
           "TableCommand"]

METRIC_ORDER = ("Yin", "RND", "SemNovel", "FastTextLOF")
"""The four novelty metrics, in Table 2's order."""

AX2_MAX_TOKENS = 400
"""Answer tokens of an Ax2 paraphrase request unless ``options.ax2_max_tokens`` says otherwise."""

AX3_MAX_TOKENS = 512
"""Tokens the Ax3 neighbours (original and edited) are embedded with under ``ax3_position append``
when the embedder is a local sentence-transformers model reading fewer: the paper's BGE-M3
(8,192 tokens) sees every appended fragment; MiniLM at 256 misses a third of them, at 512
under 1% (docs/axioms.md)."""


class AxiomsOptions(RunOptions, EmbedderOption, DataDirOption, PromptVariantsOption):
    """Options of an axioms run (Liu & Zhai 2026, §5-6.1): which corpus, tasks, metrics and settings.

    Every field is its flag with underscores (the repeatable ``--metric`` and ``--task`` fill
    the lists ``metric`` and ``task``, as in every system).

    Attributes:
        metric: Metric names (Yin, RND, SemNovel, FastTextLOF; any case; None: all four).
        corpus: Corpus JSONL(.gz) (None: ``<data_dir>/corpus/papers.jsonl.gz``).
        fulltext: Full texts with reference lists for Ax5/6 (None:
            ``<data_dir>/fulltext/neurips-2025-fulltext.jsonl.gz``; one that does not exist
            leaves Ax5/6 not applicable).
        task: Restrict to these task names (None: every task of the task set).
        sample: The shipped synthetic sample corpus, its full texts, its two tasks and
            scaled-down pool rules (``corpus``, ``fulltext`` and ``data_dir`` are ignored).
        focal: Focal papers per task (paper: 100; the sample has 6 per task at most).
        ax2_limit: Paraphrase only the first N focal papers per task (None: all).
        ax2_max_tokens: Answer tokens of each Ax2 paraphrase request (a reply cut there is
            still kept when :func:`~noveval.benchmarks.axioms.paraphrase.usable`).
        semnovel: ``exact`` (refit t-SNE per pool variant) or ``approx``.
        fasttext: ``exact`` (retrain per pool content) or ``approx``.
        embedder: Embedding spec (default ``local:bf16@256``, the setting results.md's tables
            were made with; another one is noted in the run).
        ax3_position: ``append`` (§5.2; the Ax3 neighbours are embedded at
            :data:`AX3_MAX_TOKENS` tokens) or ``prepend`` the Ax3 fragments (a deviation).
        jobs: Processes for t-SNE / fastText fits (>= 1).
        seeds: SemNovel t-SNE seeds ``seed, seed + 1, ...`` (>= 1).
        semnovel_metric: t-SNE input metric, ``cosine`` (reference code) or ``euclidean``.
        fasttext_variant: ``reference`` (Jeon et al.'s code) or ``normalized``.
        rnd_p, rnd_q: RND's P and Q (None: 100 and 50; 20 and 5 on the sample).
        ax56_rule: ``ours`` (>= 5 references found in the pool) or ``paper`` (any found).
        limit: Run only the first N tasks (after ``task``).
        seed: Focal sampling, the Ax2 paraphrase requests, fastText, and the first t-SNE seed.
    """

    metric: list[str] | None = option(
        None, "--metric", help="Metric (repeatable): Yin, RND, SemNovel, FastTextLOF. Default: all four.")
    corpus: Path | None = option(None, help="Corpus JSONL(.gz) (default: <data-dir>/corpus/papers.jsonl.gz).")
    fulltext: Path | None = option(
        None, help="Full texts with reference lists (default: <data-dir>/fulltext/neurips-2025-fulltext.jsonl.gz).")
    task: list[str] | None = option(None, "--task", help="Restrict to these default task names (repeatable).")
    sample: bool = option(False, help="Use the shipped synthetic sample corpus and its tasks.")
    focal: int = option(100, ge=1, help="Focal papers per task (paper: 100).")
    ax2_limit: int | None = option(None, ge=1, help="Paraphrase only the first N focal papers per task.")
    ax2_max_tokens: int = option(AX2_MAX_TOKENS, ge=1, help="Answer tokens of each Ax2 paraphrase.")
    semnovel: Literal["exact", "approx"] = option(
        "exact", help="exact (refit t-SNE per variant) or approx (openTSNE transform into per-pool maps).")
    fasttext: Literal["exact", "approx"] = option(
        "exact", help="exact (retrain per pool content) or approx (reuse base-pool models).")
    embedder: str = embedder_option(PAPER_EMBEDDER, paper=True)
    ax3_position: Literal["append", "prepend"] = option(
        "append", help=f"append (paper §5.2: the Ax3 neighbour and its edited copies are embedded at {AX3_MAX_TOKENS} "
                       "tokens, so the appended fragments count) or prepend (a deviation from the paper: the "
                       "fragments lead the abstract).")
    jobs: int = option(2, ge=1, help="Processes for t-SNE / fastText.")
    seeds: int = option(3, ge=1, help="SemNovel t-SNE seeds (seed, seed+1, ...); pass rates are reported as "
                                      "mean ± SD over them.")
    semnovel_metric: Literal["cosine", "euclidean"] = option(
        "cosine", help="t-SNE input metric: cosine (reference SemNovel code) or euclidean.")
    fasttext_variant: Literal["reference", "normalized"] = option(
        "reference", help="reference (Jeon et al.'s code) or normalized (noveval before issue 14).")
    rnd_p: int | None = option(None, ge=1, help="RND neighbours P (Wang et al. 2025: 100; --sample: 20).")
    rnd_q: int | None = option(None, ge=1, help="RND density neighbours Q (Wang et al. 2025: 50; --sample: 5).")
    ax56_rule: Literal["ours", "paper"] = option(
        "ours", help="Ax5/6 applicability: ours (>= 20 references, >= 5 of them in the pool) or paper "
                     "(>= 20 references, any found).")
    limit: int | None = option(None, "--limit", "-n", ge=1, help="Run only the first N tasks (after --task).")

    @field_validator("metric")
    @classmethod
    def _canonical_metrics(cls, names: list[str] | None) -> list[str] | None:
        """Metric names spelled as in :data:`METRIC_ORDER` (matched case-insensitively)."""
        if names is None:
            return None
        try:
            return canonical_names(names, METRIC_ORDER, option="metric")
        except InputError as e:
            raise ValueError(e.message) from None


class CombineCommand(BaseModel):
    """``noveval axioms combine RUN``: the weighted metric combination (Section 6.2)."""

    model_config = ConfigDict(extra="forbid")

    run_dir: Path = option(..., argument=True, help="An axioms run directory.")
    step: float = option(0.05, ge=0.01, le=0.5, help="Simplex grid step (paper: 0.05).")
    metric: list[str] | None = shared("metric", AxiomsOptions)


class TableCommand(BaseModel):
    """``noveval axioms table RUNS...``: Table 2 over the focal papers of several runs."""

    model_config = ConfigDict(extra="forbid")

    runs: list[Path] = option(..., argument=True, help="Axioms run folders of one benchmark (e.g. the tasks split "
                                                       "over folders run side by side).")
    metric: list[str] | None = shared("metric", AxiomsOptions)
    json_out: Path | None = option(None, "--json", help="Also write the table (and which run gave which tasks) to "
                                                        "this JSON file.")


class CompareCommand(BaseModel):
    """``noveval axioms compare RUN_A RUN_B``: how often two runs reach the same pass/fail decision."""

    model_config = ConfigDict(extra="forbid")

    run_a: Path = option(..., argument=True, help="An axioms run directory.")
    run_b: Path = option(..., argument=True, help="Another run of the same focal papers (e.g. --semnovel approx, "
                                                  "another embedder).")
