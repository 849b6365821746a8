"""RINoBench's Python entry points of the benchmark contract (:mod:`noveval.benchmarks`).

``run(model, out, *, data=None, options=None)`` judges the items' novelty (and scores
them when they carry gold) exactly as ``noveval run rinobench``;
``score(run)`` recomputes the scores from the run folder's saved predictions alone (no
model call without a judge; with one, the cache answers what the run asked before).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from noveval.benchmarks._contract import RunOptions, as_options, sample_file

__all__ = ["RINoBenchOptions", "run", "score", "SAMPLE"]

SAMPLE = ("rinobench", "test.json")
"""The shipped sample: 4 invented ideas in the published test.json format, with gold."""


class RINoBenchOptions(RunOptions):
    """Options of a RINoBench run (the keyword arguments of :func:`noveval.benchmarks.rinobench.run`). ``overwrite``, ``cache`` and ``concurrency`` come from :class:`~noveval.benchmarks._contract.RunOptions`.

    Attributes:
        judge: Judge model spec for the justification metrics (None: skip them).
        rubric: ``label_descriptions.json`` (None: Table 1).
        limit: Only the first N items.
        protocol: ``noveval`` (our prompt, temperature 0) or ``paper`` (the released set-up).
        structured: Schema-constrained JSON answers (ignored by ``paper``).
        max_tokens: Answer token budget.
        seed: Sampling and bootstrap seed.
        max_related_works: Show only the first N related works.
        max_abstract_chars: Cut related-work abstracts to this length.
        f1_labels: ``fixed`` (classes 1-5) or ``present`` (the released eval.py).
        progress: Show progress.
    """

    judge: str | None = None
    rubric: str | None = None
    limit: int | None = Field(None, ge=1)
    protocol: Literal["noveval", "paper"] = "noveval"
    structured: bool = True
    max_tokens: int = Field(512, ge=1)
    seed: int = 0
    max_related_works: int | None = Field(None, ge=1)
    max_abstract_chars: int | None = Field(None, ge=1)
    f1_labels: Literal["fixed", "present"] = "fixed"
    progress: bool = True


def run(model: str | Any, out: str | Path, *, data: str | Path | None = None,
        options: RINoBenchOptions | dict[str, Any] | None = None) -> Path:
    """Judge the novelty of ``data``'s ideas with ``model`` into ``out`` (resumable).

    Args:
        model: Model spec (``local``, ``openai/gpt-4o``, ...) or a chat client.
        out: Run folder.
        data: Items in the published test.json format, or ``hf:NAME[:SPLIT]`` (None: the
            shipped sample).
        options: :class:`RINoBenchOptions` or a dict of its fields.

    Returns:
        The run folder (``predictions.jsonl``; with gold also ``per_item.jsonl``, ``scores.json``).
    """
    from noveval.benchmarks.rinobench.api import run as run_rino

    opts = as_options(RINoBenchOptions, options)
    return run_rino(data if data is not None else sample_file(*SAMPLE), model=model, out=out, **opts.model_dump())


def score(run: str | Path, *, judge: str | Any | None = None, progress: bool = True) -> dict[str, Any]:
    """Scores of a RINoBench run folder from its saved predictions (nothing is written).

    The gold file, ``f1_labels`` and seed are the run's own (its ``config.json``); give
    ``judge`` for the justification metrics.

    Returns:
        The scores dict (the layout of ``scores.json``).

    Raises:
        InputError: not a RINoBench run folder, or its gold file is gone.
    """
    from noveval.benchmarks.rinobench.api import score as score_rino
    from noveval.benchmarks.rinobench.data import load_items
    from noveval.errors import InputError
    from noveval.runs import RunDir

    rd = RunDir.open(run)
    cfg = rd.config
    if cfg.get("benchmark") != "rinobench":
        raise InputError(rd.path / "config.json", None, "benchmark", f"not a RINoBench run ({cfg.get('benchmark')!r})")
    gold: Any
    if cfg.get("task") == "score":
        predictions, gold, seed = cfg["predictions"], cfg["gold"], int(cfg.get("seed") or 0)
    else:  # the run judged the first n_items items (its --limit)
        predictions, seed = rd.path / "predictions.jsonl", int(cfg["params"].get("seed") or 0)
        gold = load_items(cfg["items"])[: int(cfg["n_items"])]
    return score_rino(predictions, gold, judge=judge, f1_labels=cfg.get("f1_labels") or "fixed", seed=seed,
                      progress=progress)
