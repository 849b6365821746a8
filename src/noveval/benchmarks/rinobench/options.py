"""RINoBench's options: the fields of ``noveval run rinobench`` and of ``noveval.run("rinobench", options=...)``."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import ConfigDict

from noveval.options import HF_SOURCE_HELP, JudgeOption, PromptVariantsOption, RunOptions, option

__all__ = ["ConstructOptions", "RINoBenchOptions", "RINoBenchScoreOptions"]

F1LabelsHelp = ("fixed: macro-F1 over classes 1-5 | present: the released eval.py (scikit-learn's default label set; "
                "per-class F1 for gold classes only).")


class _JudgeSettings(JudgeOption):
    """The justification judge's settings (run and score share them: :class:`~noveval.benchmarks.rinobench.judge.JudgeOptions`).

    Attributes:
        max_arguments: Arguments extracted per justification and kind (None: all, as the paper).
        grounding_context: ``split`` (the paper's text) or ``both`` (the released fact-check prompt).
        judge_max_tokens: Token budget of each structured judge reply.
        judge_max_related_works: Related works shown to the judge for grounding (None: all).
        judge_max_abstract_chars: Cut of the abstracts shown to the judge (None: whole).
    """

    max_arguments: int | None = option(
        None, ge=1, help="Cap the judge's extracted arguments per justification and kind (default: all, as the paper).")
    grounding_context: Literal["split", "both"] = option(
        "split", help="split: related works for known aspects, idea for novelty aspects (paper text) | both: idea and "
                      "related works for every argument (released fact-check prompt).")
    judge_max_tokens: int = option(384, ge=1, help="Token budget of each structured judge reply.")
    judge_max_related_works: int | None = option(
        None, ge=1, help="Related works the judge is shown for grounding (default: all).")
    judge_max_abstract_chars: int | None = option(
        None, ge=1, help="Cut the related-work abstracts the judge is shown to N characters (default: whole).")


class RINoBenchOptions(RunOptions, _JudgeSettings, PromptVariantsOption):
    """Options of a RINoBench run (Section 5: judge each idea 1-5 with a justification, then score).

    Attributes:
        items: Items in the published ``test.json`` format or ``hf:NAME[:SPLIT]`` (None: the
            shipped sample of 4 invented ideas).
        rubric: ``label_descriptions.json`` (None: the paper's Table 1).
        protocol: ``noveval`` (our prompt, temperature 0) or ``paper`` (the released set-up).
        structured: Schema-constrained JSON answers (``paper`` never constrains).
        max_tokens: Answer token budget.
        temperature: Override the protocol's temperature, in [0, 2] (None: the protocol's).
        samples: Ask each idea N times and answer the plurality score (self-consistency).
        max_related_works: Show only the first N related works.
        max_abstract_chars: Cut related-work abstracts to N characters.
        f1_labels: ``fixed`` (classes 1-5) or ``present`` (the released ``eval.py``).
        prompt_variants: Run once per prompt variant (a folder, or ``bundled``) and compare.
    """

    items: str | Path | None = option(
        None, "--items", "-i",
        help=f"Items in the published test.json format, {HF_SOURCE_HELP} (default: the shipped samples).")
    rubric: str | Path | None = option(None, help="label_descriptions.json (default: the paper's Table 1).")
    protocol: Literal["noveval", "paper"] = option(
        "noveval", help="noveval: our prompt, temperature 0 | paper: the released predict_novelty.py set-up "
                        "(temperature 1, 2-4 sentence justification, no constrained decoding).")
    f1_labels: Literal["fixed", "present"] = option("fixed", help=F1LabelsHelp)
    max_related_works: int | None = option(None, ge=1, help="Show only the first N related works.")
    max_abstract_chars: int | None = option(None, ge=1, help="Cut related-work abstracts to N characters.")
    structured: bool = option(True, "--structured/--free-text",
                              help="Ask for schema-constrained JSON (--free-text: parse free text).")
    max_tokens: int = option(512, ge=1, help="Answer token budget.")
    temperature: float | None = option(None, ge=0.0, le=2.0,
                                       help="Override the protocol's temperature (noveval 0, paper 1).")
    samples: int = option(1, ge=1, help="Ask each idea N times (seeds seed..seed+N-1, temperature > 0) and answer "
                                        "the plurality score; records self-consistency.")


class RINoBenchScoreOptions(_JudgeSettings):
    """Options of re-scoring a RINoBench run folder (the gold, F1 labels and seed are the run's own)."""

    model_config = ConfigDict(extra="forbid")


class ConstructOptions(RunOptions):
    """Options of ``noveval rinobench construct``: a RINoBench dataset from review records (Section 4.1).

    Run through the runner (:func:`~noveval.benchmarks._runner.run_task`) like a RINoBench run.

    Attributes:
        reviews: OpenReview-like paper records (JSON array or JSONL).
        binning: ``fixed`` (equal-width edges over the 1-4 rating scale, the paper) or ``blended``
            (the released code: 0.7 quantile + 0.3 equal-width).
        min_related_works: Drop ideas with fewer related works (paper: 5).
        test_size: Test share of the stratified split, in (0, 1) (paper: 0.2).
        skip_grounding: Skip the LLM grounding filter of gold justifications.
    """

    reviews: Path = option(..., "--reviews", "-r", help="OpenReview-like paper records (JSON array or JSONL), see "
                                                        "noveval.benchmarks.rinobench.construct.")
    binning: Literal["fixed", "blended"] = option(
        "fixed", help="'fixed' (equal-width edges over the 1-4 rating scale) or 'blended' (released code: 0.7 quantile "
                      "+ 0.3 equal-width).")
    min_related_works: int = option(5, ge=0, help="Drop ideas with fewer related works (paper: 5).")
    test_size: float = option(0.2, gt=0.0, lt=1.0, help="Test share of the stratified split (paper: 0.2).")
    skip_grounding: bool = option(False, help="Skip the LLM grounding filter of gold justifications.")
