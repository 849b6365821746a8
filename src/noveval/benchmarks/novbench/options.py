"""NovBench's options: the fields of ``noveval run novbench`` and of ``noveval.run("novbench", options=...)``,
and those of re-scoring a run (``noveval score novbench``, ``noveval.score(run, options=...)``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, field_validator, model_validator

from noveval.errors import InputError
from noveval.options import (
    HF_SOURCE_HELP,
    PAPER_EMBEDDER,
    EmbedderOption,
    ModelOption,
    PromptVariantsOption,
    RunOptions,
    embedder_option,
    option,
)

__all__ = ["AgreementCommand", "DescriptionsOptions", "EvaluationsOptions", "ExtractDescriptionsCommand",
           "ExtractEvaluationsCommand", "NovBenchOptions", "NovBenchScoreCommand", "NovBenchScoreOptions",
           "StructureCommand", "StructureOptions", "parse_years"]

Prompting = Literal["zero-shot", "few-shot", "rag"]
DescriptionStrategy = Literal["zero-shot", "few-shot", "step-by-step", "context"]
"""Stage 1's prompting strategies (Appendix A)."""
EvaluationStrategy = Literal["zero-shot", "rag"]
"""Stage 2's prompting strategies (Appendix B)."""

_DATA_HELP = f"NovBench records (JSON array or JSONL; e.g. coling2020.json), {HF_SOURCE_HELP}"


def parse_years(value: Any) -> str | None:
    """``corpus_years`` as ``FROM-TO`` (``YEAR`` is ``YEAR-YEAR``; a ``(from, to)`` pair is accepted too).

    Raises:
        ValueError: anything else.
    """
    if value is None:
        return None
    if isinstance(value, (tuple, list)) and len(value) == 2:
        lo, hi = value
    elif isinstance(value, str):
        lo, _, hi = value.partition("-")
        hi = hi or lo
    else:
        raise ValueError("expected YEAR or FROM-TO, e.g. 2019-2022")
    try:
        return f"{int(lo)}-{int(hi)}"
    except (TypeError, ValueError):
        raise ValueError("expected YEAR or FROM-TO, e.g. 2019-2022") from None


class NovBenchOptions(RunOptions, EmbedderOption, PromptVariantsOption):
    """Options of a NovBench run (Section 3.2: generate a structured novelty evaluation per paper, then score).

    Attributes:
        data: NovBench records (JSON/JSONL, or ``hf:NAME[:SPLIT]``; None: the shipped sample
            of 4 invented records).
        prompting: ``zero-shot``, ``few-shot`` or ``rag`` (Appendix E).
        corpus: Retrieval corpus for ``rag`` records without ``retrieved_*`` fields.
        corpus_field: Keep only corpus papers of this field.
        corpus_limit: Keep at most this many corpus papers.
        corpus_years: Keep corpus papers from these years (``FROM-TO`` or ``YEAR``).
        embedder: Embedding spec (retrieval, and Relevance/Coverage when the run is scored;
            default ``local:bf16@256``: MiniLM at its own 256 tokens, as the released scorer).
        max_tokens: Reply budget per record.
        timeout: Seconds per request (600: long evaluations on a CPU).
        score: Score the run when generation ends.
    """

    embedder: str = embedder_option(PAPER_EMBEDDER, paper=True)
    data: str | Path | None = option(None, "--data", "-d", help=f"{_DATA_HELP} (default: the shipped sample).")
    prompting: Prompting = option("zero-shot", "--prompting", "-p", help="zero-shot | few-shot | rag (Appendix E).")
    corpus: str | Path | None = option(
        None, help="RAG corpus JSONL (title, abstract) for records without retrieved_* fields.")
    corpus_field: str | None = option(None, help="Keep only corpus papers of this field (e.g. NLP).")
    corpus_limit: int | None = option(None, ge=1, help="Keep at most N corpus papers.")
    corpus_years: str | None = option(None, help="Keep corpus papers from these years, e.g. 2019-2022.")
    max_tokens: int = option(1024, ge=1, help="Max new tokens per reply.")
    timeout: float = option(600.0, gt=0, help="Per-request timeout in seconds.")
    score: bool = option(True, "--score/--no-score", help="Score the run when generation ends.")

    @field_validator("corpus_years", mode="before")
    @classmethod
    def _years(cls, v: Any) -> str | None:
        return parse_years(v)

    def year_range(self) -> tuple[int, int] | None:
        """``corpus_years`` as ``(from, to)`` (None: every year)."""
        if self.corpus_years is None:
            return None
        lo, _, hi = self.corpus_years.partition("-")
        return int(lo), int(hi)


class NovBenchScoreOptions(EmbedderOption):
    """Options of scoring NovBench predictions (Section 3.2, Eqs. 1-7).

    Attributes:
        data: The records the predictions answer (None: the file the run recorded).
        embedder: Embedding spec for Coverage, and for Relevance unless
            ``relevance_embedder`` is given (default ``local:bf16@256``: the bundled
            all-MiniLM-L6-v2 at its own 256 tokens, as the released scorer; another is noted).
        relevance_embedder: Embedding spec for Relevance only (the paper: SPICED).
        ppl_model: Causal LM for the Fluency Score (None: the bundled SmolLM2-135M).
        clarity: ``paper`` (Eq. 7), ``reference`` (released code, no perplexity) or ``both``.
        tau: Coverage threshold, in [0, 1].
        placeholders: ``drop`` or ``keep`` "nothing here" bullets on both sides.
        seed: Bootstrap seed (None: the run's seed; 0 for a predictions file).
    """

    model_config = ConfigDict(extra="forbid")

    embedder: str = embedder_option(PAPER_EMBEDDER, paper=True)
    data: str | Path | None = option(
        None, "--data", "-d", help=f"{_DATA_HELP} (default: the records file the run recorded).")
    relevance_embedder: str | None = option(
        None, help="Embedder for Relevance only; the paper used SPICED: local:/path/to/spiced (default: --embedder).")
    ppl_model: str | None = option(
        None, help="Causal LM (folder or .gguf) for the Fluency Score; default bundled SmolLM2-135M.")
    clarity: Literal["paper", "reference", "both"] = option(
        "both", help="paper (Eq. 7) | reference (released code) | both.")
    tau: float = option(0.7, ge=0.0, le=1.0, help="Coverage threshold τ.")
    placeholders: Literal["drop", "keep"] = option(
        "drop", help="drop | keep 'nothing here' bullets such as '[No positive comments identified]' (keep: as the "
                     "released scorer would).")
    seed: int | None = option(None, help="Bootstrap seed (default: the run's seed; 0 for a predictions file).")



class NovBenchScoreCommand(NovBenchScoreOptions):
    """``noveval score novbench PREDICTIONS...``: predictions made anywhere (several: a table)."""

    predictions: list[Path] = option(..., argument=True, aliases=("--predictions", "-r"),
                                     help="Run directories or predictions JSONL files (several: a table).")
    out: Path | None = option(None, "--out", "-o", help="Where to write (single input only; default: next to it).")


class DescriptionsOptions(RunOptions):
    """Options of stage 1, ``noveval novbench extract-descriptions`` (Section 3.1.1, Appendix A).

    Run through the runner (:func:`~noveval.benchmarks._runner.run_task`) like a NovBench run.

    Attributes:
        input: CSV ``paper_id,sentence[,label]`` of introduction sentences.
        strategy: ``zero-shot``, ``few-shot``, ``step-by-step`` or ``context`` (Figs. 5-8).
        papers: Use only the first N papers (keeps each paper's context whole).
        constrained: Ask for ``{"answer": "Yes"|"No"}`` under a JSON schema.
    """

    input: Path = option(..., "--input", "-i", help="CSV paper_id,sentence[,label].")
    strategy: DescriptionStrategy = option("context", "--strategy", "-s",
                                           help="zero-shot | few-shot | step-by-step | context (Appendix A).")
    papers: int | None = option(None, ge=1, help="Use only the first N papers (keeps contexts whole).")
    constrained: bool = option(False, help='Ask for {"answer": "Yes"|"No"} under a JSON schema.')


class EvaluationsOptions(RunOptions, EmbedderOption):
    """Options of stage 2, ``noveval novbench extract-evaluations`` (Section 3.1.2, Appendix B).

    Attributes:
        input: Review sentence files (repeatable).
        strategy: ``zero-shot`` (Fig. 11) or ``rag`` (Fig. 12; needs ``pool``).
        pool: Labelled novelty sentences the ``rag`` examples are retrieved from.
        k: Examples retrieved per sentence (``rag``).
        sample: A seeded random sample of N sentences instead of the first N.
        constrained: Ask for ``{"answer": "Yes"|"No"}`` under a JSON schema.
        embedder: Embedding spec of the ``rag`` retrieval.
    """

    input: list[Path] = option(
        ..., "--input", "-i", help="Review sentences: [sentence, NOVELTY] JSON, {text, labels} JSON, CSV/JSONL "
                                   "sentence[,label]. Repeatable.")
    strategy: EvaluationStrategy = option("zero-shot", "--strategy", "-s", help="zero-shot | rag (Appendix B).")
    pool: Path | None = option(
        None, help="Labelled novelty sentences for rag (e.g. reviewadvisor-novelty-sentences.json.gz).")
    k: int = option(5, "--k", ge=1, help="Examples retrieved per sentence (rag).")
    sample: int | None = option(None, ge=1, help="Random sample of N sentences (seeded), instead of the first N.")
    constrained: bool = option(False, help='Ask for {"answer": "Yes"|"No"} under a JSON schema.')

    @model_validator(mode="after")
    def _rag_needs_a_pool(self) -> EvaluationsOptions:
        if self.strategy == "rag" and self.pool is None:
            raise InputError(None, None, "options.pool", "the rag strategy needs --pool")
        return self


class StructureOptions(RunOptions):
    """Options of stage 3, ``noveval novbench structure`` (Section 3.1.3, Appendix C).

    Attributes:
        input: NovBench records (their ``review_novelty``) or JSONL ``{id, comments: [...]}``.
        max_tokens: Reply budget of each structuring call (this stage's own, not laid over others).
    """

    input: Path = option(..., "--input", "-i",
                         help="NovBench records (uses review_novelty) or JSONL {id, comments: [...]}.")
    max_tokens: int = option(768, ge=1, help="Max new tokens per reply.")


_OUT_HELP = "Output JSONL of per-sentence predictions."


class ExtractDescriptionsCommand(DescriptionsOptions, ModelOption):
    """Stage 1: classify introduction sentences as novelty descriptions (Yes/No)."""

    out: Path = option(..., "--out", "-o", help=_OUT_HELP)


class ExtractEvaluationsCommand(EvaluationsOptions, ModelOption):
    """Stage 2: classify review sentences as novelty evaluations (Yes/No)."""

    out: Path = option(..., "--out", "-o", help=_OUT_HELP)


class StructureCommand(StructureOptions, ModelOption):
    """Stage 3: deduplicate novelty comments and sort them by sentiment (Appendix C)."""

    out: Path = option(..., "--out", "-o", help="Output JSONL {id, output_format, counts}.")


class AgreementCommand(BaseModel):
    """Human agreement (Appendix D): Fleiss' κ, majority-vote agreement, Spearman ρ."""

    model_config = ConfigDict(extra="forbid")

    input: Path = option(..., "--input", "-i", help="JSON/JSONL rows {id, annotators: [A|B|tie, ...], metric: "
                                                    "A|B|tie} or {..., metric_a, metric_b}.")
    out: Path | None = option(None, "--out", "-o", help="Write the result JSON here.")
    metric_field: str = option("metric", help="Per-row metric field holding the metric's score difference or choice.")
