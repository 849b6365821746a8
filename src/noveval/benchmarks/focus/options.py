"""Focus-level evaluation's options: the fields of ``noveval run focus`` and of ``noveval.run("focus", options=...)``.

Pure: pydantic only (the declaration imports this module).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, model_validator

from noveval.errors import InputError
from noveval.options import (
    DataDirOption,
    ModelOption,
    OutOption,
    PromptVariantsOption,
    RunOptions,
    option,
    shared,
)

__all__ = ["AgreementCommand", "AgreementOptions", "ExpertCommand", "ExpertOptions", "FocusOptions", "FocusScoreOptions", "SplitCommand"]

_PROTOCOL_HELP = ("'noveval' (default: all papers, all reviewers' points, multiset F1, best reference) or 'paper' "
                  "(Shin et al.: rejected papers, meta-review chain, set F1, mean over references, KL on distributions "
                  "present on both sides). See docs/fidelity.md.")
_TEXT_METRICS_HELP = "Compute ROUGE-L/BLEU-4/BERTScore (--no-text-metrics: skip them)."
_PLOT_HELP = "Save focus.png, the Figure-4 focus distributions (--no-plot: do not)."


class FocusOptions(RunOptions, PromptVariantsOption):
    """Options of a focus run ("Mind the Blind Spots", Fig. 2: expert points, model reviews, annotation, scores).

    Attributes:
        papers: Papers with reviews (JSONL(.gz) or JSON in the NeurIPS OpenReview layout;
            None: the shipped sample of 3 invented papers).
        annotator: Annotator model spec (None: the reviewing model).
        protocol: ``noveval`` or ``paper`` (Shin et al.'s choices, :mod:`.protocol`).
        expert: ``split`` (splitter of review sections) or ``chain`` (Appendix A.1.1's
            meta-review chain); None: the protocol's. The paper protocol needs ``chain``.
        expert_model: Model spec of the expert chain (None: the annotator).
        source: ``abstract`` or ``fulltext`` input for the reviewing model.
        max_reviews: Split route: only the first N human reviews per paper (None: all).
        max_input_tokens: Truncate the paper text to this many tokens (4 chars/token).
        max_tokens: Output budget of a generated review.
        expert_max_tokens: Output budget of each expert-chain step.
        epsilon: KL smoothing added to every bin (None: 1e-3, :data:`noveval.metrics.focus.DEFAULT_EPSILON`).
        text_metrics: Compute ROUGE-L / BLEU-4 / BERTScore.
        plot: Save ``focus.png``.
        temperature: The annotator's sampling temperature in [0, 2] (0: greedy; the
            reviews and the expert chain stay at 0).
        samples: Annotator samples per prompt (seeds ``seed .. seed + N - 1``, plurality
            vote, self-consistency; needs ``temperature`` above 0).
        timeout: Seconds per model request (600: a long chain step of a small local model
            on a busy CPU needs minutes).
    """

    papers: str | Path | None = option(
        None, "--papers", "-p",
        help="Papers with reviews (.jsonl[.gz] or .json), e.g. shared/data/reviews/neurips-2024.jsonl.gz "
             "(default: the shipped sample of 3 invented papers).")
    annotator: str | None = option(None, "--annotator", "-a",
                                   help="Model spec of the target/aspect annotator (default: --model).")
    protocol: Literal["noveval", "paper"] = option("noveval", help=_PROTOCOL_HELP)
    expert: Literal["split", "chain"] | None = option(
        None, help="Expert points: 'split' (deterministic splitter of review sections) or 'chain' (three-prompt chain "
                   "from the meta-review). Default: the protocol's (noveval: split; paper: chain).")
    expert_model: str | None = option(None, help="Model spec of the expert chain (--expert chain; default: the annotator).")
    source: Literal["abstract", "fulltext"] = option(
        "abstract", help="Paper input: 'abstract' or 'fulltext' (when the record has fulltext_markdown).")
    max_reviews: int | None = option(None, ge=1, help="Split route: only the first N human reviews per paper.")
    max_input_tokens: int = option(6000, ge=1, help="Truncate the paper text to this many tokens (4 chars/token).")
    max_tokens: int = option(1024, ge=1, help="Output budget of a generated review.")
    expert_max_tokens: int = option(1200, ge=1, help="Output budget of each step of the expert chain (--expert chain).")
    epsilon: float | None = option(None, gt=0, help="KL smoothing added to every bin before normalising (default: 1e-3).")
    text_metrics: bool = option(True, "--text-metrics/--no-text-metrics", help=_TEXT_METRICS_HELP)
    plot: bool = option(True, "--plot/--no-plot", help=_PLOT_HELP)
    temperature: float = option(0.0, ge=0.0, le=2.0,
                                help="The annotator's sampling temperature (0: greedy; reviews stay at 0).")
    samples: int = option(1, ge=1, help="Ask the annotator each prompt N times (seeds seed..seed+N-1, temperature > 0) "
                                        "and take the plurality label; records self-consistency.")
    timeout: float = option(600.0, gt=0, help="Per-request timeout in seconds.")


class FocusScoreOptions(BaseModel):
    """Options of re-scoring a focus run folder (no model call).

    Attributes:
        protocol: Scoring rules, ``noveval`` or ``paper`` (None: the run's). The expert
            route and the paper selection stay the run's, and scores.json says so.
        text_metrics: Compute ROUGE-L / BLEU-4 / BERTScore.
        plot: Save ``focus.png``.
        seed: Bootstrap seed (None: the run's).
    """

    model_config = ConfigDict(extra="forbid")

    protocol: Literal["noveval", "paper"] | None = option(
        None, help="Scoring rules 'noveval' or 'paper' (default: the run's protocol). Expert route and paper "
                   "selection stay the run's.")
    text_metrics: bool = option(True, "--text-metrics/--no-text-metrics", help=_TEXT_METRICS_HELP)
    plot: bool = option(True, "--plot/--no-plot", help=_PLOT_HELP)
    seed: int | None = option(None, help="Bootstrap seed (default: the run's).")


class ExpertOptions(RunOptions):
    """Options of ``noveval focus expert``: the expert points of papers by the three-prompt chain (Appendix A.1.1).

    Run through the runner (:func:`~noveval.benchmarks._runner.run_task`) like a focus run.

    Attributes:
        papers: Papers with reviews (JSONL(.gz) or JSON in the NeurIPS OpenReview layout).
    """

    papers: Path = option(..., "--papers", "-p",
                          help="Papers with reviews (.jsonl[.gz] or .json), e.g. shared/data/reviews/neurips-2024.jsonl.gz.")


class _PapersInput(BaseModel):
    """The papers an extra command reads (required, unlike a run's)."""

    model_config = ConfigDict(extra="forbid")

    papers: Path = option(..., "--papers", "-p", help="Papers with reviews (.jsonl[.gz] or .json), e.g. "
                                                      "shared/data/reviews/neurips-2024.jsonl.gz.")
    limit: int | None = shared("limit")


class SplitCommand(_PapersInput):
    """``noveval focus split``: expert points without a model."""

    out: Path = option(..., "--out", "-o", help="Output .jsonl of points.")


class ExpertCommand(ExpertOptions, OutOption, ModelOption):
    """``noveval focus expert``: expert points by the three-prompt chain (every run option, through the runner)."""


class AgreementOptions(RunOptions, DataDirOption):
    """Options of ``noveval focus agreement``: Cohen's kappa of the annotator against DISAPERE aspects
    and MReD polarity (:func:`~noveval.benchmarks.focus.agreement.run_agreement`).

    Run through the runner (:func:`~noveval.benchmarks._runner.run_task`, one report file) like
    every model call. ``limit`` is refused (the subsample sizes are ``n_disapere`` and ``n_mred``).

    Attributes:
        n_disapere: DISAPERE sentences (seeded subsample; 0: skip).
        n_mred: MReD strength/weakness sentences (seeded subsample; 0: skip).
        temperature: The annotator's sampling temperature in [0, 2] (0: greedy).
        samples: Ask each prompt N times (seeds ``seed .. seed + N - 1``) and score the plurality
            label; needs ``temperature`` above 0 (checked here, before any model call).
    """

    n_disapere: int = option(400, ge=0, help="DISAPERE sentences to annotate (random subsample).")
    n_mred: int = option(200, ge=0, help="MReD strength/weakness sentences (random subsample).")
    temperature: float = shared("temperature", FocusOptions)
    samples: int = shared("samples", FocusOptions)

    @model_validator(mode="after")
    def _checked(self) -> AgreementOptions:
        from noveval.metrics.consistency import check_samples

        if self.limit is not None:
            raise InputError(None, None, "options.limit", "the subsample sizes are --n-disapere and --n-mred")
        check_samples(self.samples, self.temperature, hint="give a temperature above 0")
        return self


class AgreementCommand(AgreementOptions, ModelOption):
    """``noveval focus agreement``: its options, the annotator model and where to keep the report."""

    out: Path | None = option(None, "--out", "-o", help="Write the report as JSON.")
