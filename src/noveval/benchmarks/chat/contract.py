"""The chat task's run and score (the functions its declaration names).

``run(model, out, options)`` generates a reply for every prompt; ``score(run, options)``
computes exact match against the prompts' ``reference`` fields from the saved replies
alone and writes ``per_item.jsonl`` and ``scores.json`` (the references come from the
prompts file the run recorded, or one given).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from noveval.benchmarks._contract import client_of
from noveval.benchmarks.chat.options import ChatOptions, ChatScoreOptions
from noveval.errors import InputError
from noveval.hfdata import source_label
from noveval.models.chat import ChatClientProtocol, GenerationParams
from noveval.runs import RunDir, text_sha

__all__ = ["run", "score"]


def run(model: str | ChatClientProtocol, out: Path, options: ChatOptions) -> Path:
    """Generate a reply for every prompt of ``options.input`` into ``out`` (resumable, cached)."""
    from noveval.benchmarks.chat.task import load_prompts, run_prompts
    o = options
    items = load_prompts(o.input, limit=o.limit)
    client = client_of(model, **o.client_kwargs())
    params = GenerationParams(max_tokens=o.max_tokens, temperature=o.temperature, seed=o.seed)
    return run_prompts(items, client, out, params=params, overwrite=o.overwrite,
                       extra_config={"input": source_label(o.input)}).path


def score(run: Path, options: ChatScoreOptions | None = None) -> dict[str, Any]:
    """Exact match of a chat run's saved replies against the prompts' references.

    The prompts file is ``options.input`` or the one the run recorded; its hash must be
    the one the run answered.

    Returns:
        The scores dict (also written to the run's ``scores.json``).

    Raises:
        InputError: no prompts file known, or not the prompts the run answered.
    """
    from noveval.benchmarks.chat.task import load_prompts, score_predictions
    rd = RunDir.open(run)
    data = (options.input if options is not None else None) or rd.config.get("input")
    if data is None:
        raise InputError(rd.path / "config.json", None, "input",
                         "the run does not record its prompts file: give the prompts file (options.input)")
    items = load_prompts(data, limit=rd.config.get("n_items"))
    if text_sha("\n".join(f"{it.id}\t{it.to_messages()}" for it in items)) != rd.config.get("inputs_sha"):
        raise InputError(data, None, None, f"these are not the prompts the run {rd.path} answered (their hash differs)")
    return score_predictions(items, rd)
