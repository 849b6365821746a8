"""The generic prompt runner's Python entry points of the benchmark contract (:mod:`noveval.benchmarks`).

``run(model, out, *, data, options=None)`` generates a reply for every prompt (as
``noveval run chat``); ``score(run)`` computes exact match against the prompts'
``reference`` fields from the saved replies alone and writes ``per_item.jsonl`` and
``scores.json`` (as ``noveval score chat``; the references come from the prompts file).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field

from noveval.benchmarks._contract import RunOptions, as_options, client_of

__all__ = ["ChatOptions", "run", "score"]


class ChatOptions(RunOptions):
    """Options of a chat run. ``overwrite``, ``cache`` and ``concurrency`` come from :class:`~noveval.benchmarks._contract.RunOptions`.

    Attributes:
        limit: Only the first N prompts.
        max_tokens: Max new tokens per reply.
        temperature: Sampling temperature.
        seed: Sampling seed.
        timeout: Seconds per request.
    """

    limit: int | None = Field(None, ge=1)
    max_tokens: int = Field(256, ge=1)
    temperature: float = Field(0.0, ge=0.0)
    seed: int = 0
    timeout: float = Field(120.0, gt=0)


def run(model: str | Any, out: str | Path, *, data: str | Path | None = None,
        options: ChatOptions | dict[str, Any] | None = None) -> Path:
    """Generate a reply for every prompt of ``data`` into ``out`` (resumable, cached).

    Args:
        model: Model spec or a chat client.
        out: Run folder.
        data: JSONL/JSON of ``{id, prompt | messages[, system, reference]}`` or
            ``hf:NAME[:SPLIT]`` (required: chat ships no sample).
        options: :class:`ChatOptions` or a dict of its fields.

    Returns:
        The run folder.
    """
    from noveval.benchmarks.chat.task import load_prompts, run_prompts
    from noveval.errors import InputError
    from noveval.models.chat import GenerationParams

    if data is None:
        raise InputError(None, None, "data", "chat ships no sample: give a prompts file")
    opts = as_options(ChatOptions, options)
    items = load_prompts(data, limit=opts.limit)
    client = client_of(model, cache=opts.cache, concurrency=opts.concurrency, timeout_s=opts.timeout)
    params = GenerationParams(max_tokens=opts.max_tokens, temperature=opts.temperature, seed=opts.seed)
    return run_prompts(items, client, out, params=params, overwrite=opts.overwrite).path


def score(run: str | Path, *, data: str | Path) -> dict[str, Any]:
    """Exact match of a chat run's saved replies against the prompts' references.

    Args:
        run: The run folder.
        data: The prompts file with the ``reference`` fields (the run keeps replies only;
            its config holds the prompts' hash, checked here).

    Returns:
        The scores dict (also written to the run's ``scores.json``).
    """
    from noveval.benchmarks.chat.task import load_prompts, score_predictions
    from noveval.errors import InputError
    from noveval.runs import RunDir, text_sha

    rd = RunDir.open(run)
    items = load_prompts(data, limit=rd.config.get("n_items"))
    if text_sha("\n".join(f"{it.id}\t{it.to_messages()}" for it in items)) != rd.config.get("inputs_sha"):
        raise InputError(data, None, None, f"these are not the prompts the run {rd.path} answered (their hash differs)")
    return score_predictions(items, rd)
