"""Focus-level review evaluation's Python entry points of the benchmark contract (:mod:`noveval.benchmarks`).

``run(model, out, *, data=None, options=None)`` generates reviews, annotates every point
and scores them exactly as ``noveval run focus``; ``score(run)`` re-scores the run folder
from its saved reviews and annotations alone (no model call; writes ``per_item.jsonl``
and ``scores.json`` as ``noveval score focus``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from noveval.benchmarks._contract import as_options, sample_file

__all__ = ["FocusOptions", "run", "score", "SAMPLE"]

SAMPLE = ("focus", "sample_reviews.jsonl")
"""The shipped sample: 3 invented papers with human reviews."""


class FocusOptions(BaseModel):
    """Options of a focus run (keyword arguments of :func:`noveval.benchmarks.focus.pipeline.run_focus`).

    Attributes:
        annotator: Annotator model spec (None: the reviewing model).
        protocol: ``noveval`` or ``paper`` (Shin et al.'s choices).
        expert: ``split`` or ``chain`` (None: the protocol's).
        expert_model: Model of the expert chain (None: the annotator).
        expert_max_tokens: Output budget of each expert-chain step.
        source: ``abstract`` or ``fulltext`` input for the reviewing model.
        limit: First N papers only.
        max_reviews: Split route: only the first N human reviews per paper.
        max_input_tokens: Truncate the paper text to this many tokens.
        max_tokens: Output budget of a generated review.
        epsilon: KL smoothing (None: the default).
        seed: Sampling and bootstrap seed.
        concurrency: Requests in flight.
        timeout_s: Seconds per request.
        cache: Use the response cache.
        refresh: Ignore cached replies (and overwrite them).
        overwrite: Replace a run with other settings in ``out``.
        text_metrics: Compute ROUGE-L / BLEU-4 / BERTScore.
        plot: Save ``focus.png``.
        temperature: The annotator's sampling temperature.
        samples: Annotator samples per prompt (plurality vote, self-consistency; needs
            ``temperature`` above 0).
    """

    model_config = ConfigDict(extra="forbid")

    annotator: str | None = None
    protocol: Literal["noveval", "paper"] = "noveval"
    expert: Literal["split", "chain"] | None = None
    expert_model: str | None = None
    expert_max_tokens: int = Field(1200, ge=1)
    source: Literal["abstract", "fulltext"] = "abstract"
    limit: int | None = Field(None, ge=1)
    max_reviews: int | None = Field(None, ge=1)
    max_input_tokens: int = Field(6000, ge=1)
    max_tokens: int = Field(1024, ge=1)
    epsilon: float | None = Field(None, gt=0)
    seed: int = 0
    concurrency: int | None = Field(None, ge=1)
    timeout_s: float = Field(600.0, gt=0)
    cache: bool = True
    refresh: bool = False
    overwrite: bool = False
    text_metrics: bool = True
    plot: bool = True
    temperature: float = Field(0.0, ge=0, le=2)
    samples: int = Field(1, ge=1)


def run(model: str | Any, out: str | Path, *, data: str | Path | None = None,
        options: FocusOptions | dict[str, Any] | None = None) -> Path:
    """Review ``data``'s papers with ``model``, annotate and score into ``out`` (resumable).

    Args:
        model: Model spec (focus builds its own clients: a spec string, not a client).
        out: Run folder.
        data: Papers with reviews (JSONL(.gz) in the NeurIPS OpenReview layout; None: the
            shipped sample).
        options: :class:`FocusOptions` or a dict of its fields.

    Returns:
        The run folder.

    Raises:
        ConfigError: ``model`` is not a spec string.
    """
    from noveval.benchmarks.focus.pipeline import run_focus
    from noveval.errors import ConfigError

    if not isinstance(model, str):
        raise ConfigError("focus takes a model spec string (it builds the reviewer, annotator and expert clients)")
    opts = as_options(FocusOptions, options).model_dump()
    if opts["epsilon"] is None:
        del opts["epsilon"]
    run_focus(data if data is not None else sample_file(*SAMPLE), out, model=model, **opts)
    return Path(out)


def score(run: str | Path, *, protocol: str | None = None, text_metrics: bool = True,
          plot: bool = True) -> dict[str, Any]:
    """Scores of a focus run folder from its saved reviews and annotations (no model call).

    Args:
        run: The run folder.
        protocol: Scoring rules (None: the run's).
        text_metrics: Compute ROUGE-L / BLEU-4 / BERTScore.
        plot: Save ``focus.png``.

    Returns:
        The scores dict (also written to ``scores.json``). The seed is the run's.
    """
    from noveval.benchmarks.focus.pipeline import score_run
    from noveval.runs import RunDir

    seed = int(RunDir.open(run).config.get("seed") or 0)
    return score_run(run, protocol=protocol, seed=seed, text_metrics=text_metrics, plot=plot)
