"""``novelty-pairs``' Python entry points of the benchmark contract (:mod:`noveval.benchmarks`).

``run(model, out, *, data=None, options=None)`` builds the pairs, asks each in both orders
and scores the run (as ``noveval run novelty-pairs``); ``score(run)`` recomputes the
scores from the run folder alone: its ``pairs.jsonl`` (the sampled pairs with their gold)
and ``predictions.jsonl`` (no model call, no input file).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from noveval.benchmarks._contract import RunOptions, as_options, client_of, sample_file

__all__ = ["PairsOptions", "SAMPLE", "run", "score"]

SAMPLE = ("rinobench", "test.json")
"""The shipped sample: RINoBench's 4 invented ideas (gold 2, 3, 4, 5), so 2 pairs without reuse."""


class PairsOptions(RunOptions):
    """Options of a ``novelty-pairs`` run. ``overwrite``, ``cache`` and ``concurrency`` come from :class:`~noveval.benchmarks._contract.RunOptions`.

    Attributes:
        source: ``rinobench`` (a file in the published test.json format) or ``neurips``
            (``reviews/neurips-2025.jsonl.gz``).
        limit: At most N pairs (each asked twice).
        seed: Pair sampling, generation and bootstrap seed.
        min_diff: NeurIPS: least difference of mean originality between the two papers.
        min_reviews: NeurIPS: least number of originality scores per paper.
        allow_tie: Let the model answer "tie".
        structured: Schema-constrained JSON answers.
        max_tokens: Answer token budget.
        temperature: Sampling temperature.
        progress: Show progress.
    """

    source: Literal["rinobench", "neurips"] = "rinobench"
    limit: int | None = Field(None, ge=1)
    seed: int = 0
    min_diff: float = Field(1.0, gt=0)
    min_reviews: int = Field(2, ge=1)
    allow_tie: bool = True
    structured: bool = True
    max_tokens: int = Field(32, ge=1)
    temperature: float = Field(0.0, ge=0.0)
    progress: bool = True


def run(model: str | Any, out: str | Path, *, data: str | Path | None = None,
        options: PairsOptions | dict[str, Any] | None = None) -> Path:
    """Ask ``model`` which side of each pair is more novel, in both orders, into ``out`` (resumable).

    Args:
        model: Model spec (``local``, ``openai/gpt-4o``, ...) or a chat client.
        out: Run folder (``pairs.jsonl``, ``predictions.jsonl``, ``per_item.jsonl``, ``scores.json``).
        data: The items file (None: the shipped RINoBench sample).
        options: :class:`PairsOptions` or a dict of its fields.

    Returns:
        The run folder.

    Raises:
        InputError: a bad input file or option, no pair to form, or a run with other settings in ``out``.
    """
    from noveval.benchmarks.pairs.data import build_pairs
    from noveval.benchmarks.pairs.prompts import prompt_hashes
    from noveval.benchmarks.pairs.task import agenerate
    from noveval.models.client import run_async
    from noveval.runs import RunDir, text_sha

    opts = as_options(PairsOptions, options)
    path = data if data is not None else sample_file(*SAMPLE)
    pairs = build_pairs(opts.source, path, limit=opts.limit, seed=opts.seed, min_diff=opts.min_diff,
                        min_reviews=opts.min_reviews)
    client = client_of(model, cache=opts.cache, concurrency=opts.concurrency)
    config = {
        "benchmark": "novelty-pairs",
        "source": opts.source,
        "data": str(path),
        "n_pairs": len(pairs),
        "pairs_sha": text_sha("\n".join(p.model_dump_json() for p in pairs)),
        "model": client.model_id,
        "prompts": prompt_hashes(),
        "params": {"seed": opts.seed, "min_diff": opts.min_diff, "min_reviews": opts.min_reviews,
                   "allow_tie": opts.allow_tie, "structured": opts.structured, "max_tokens": opts.max_tokens,
                   "temperature": opts.temperature},
    }
    rd = RunDir.create(out, config, overwrite=opts.overwrite)
    rd.write("pairs", [p.model_dump(mode="json") for p in pairs])
    run_async(agenerate(pairs, client, rd, allow_tie=opts.allow_tie, structured=opts.structured,
                        max_tokens=opts.max_tokens, temperature=opts.temperature, seed=opts.seed,
                        progress="novelty-pairs: asking" if opts.progress else None), client)
    score(rd.path)
    return rd.path


def score(run: str | Path) -> dict[str, Any]:
    """Scores of a ``novelty-pairs`` run from its saved pairs and answers; writes ``per_item.jsonl`` and ``scores.json``.

    Returns:
        The scores dict (primary metric ``accuracy``: the share of answers naming the more
        original side, ties and unparseable answers counted as wrong; chance 0.5).

    Raises:
        InputError: not a ``novelty-pairs`` run folder.
    """
    from noveval.benchmarks.pairs.data import Pair
    from noveval.benchmarks.pairs.task import score_pairs
    from noveval.errors import InputError
    from noveval.runs import RunDir

    rd = RunDir.open(run)
    cfg = rd.config
    if cfg.get("benchmark") != "novelty-pairs":
        raise InputError(rd.path / "config.json", None, "benchmark", f"not a novelty-pairs run ({cfg.get('benchmark')!r})")
    pairs = [Pair.model_validate(r) for r in rd.rows("pairs")]
    preds = rd.done("predictions")
    rows, metrics = score_pairs(pairs, preds, seed=int(cfg["params"].get("seed") or 0))
    rd.write("per_item", rows)
    statuses = [p.get("parse_status") for p in preds.values()]
    scores = {
        "benchmark": "novelty-pairs",
        "model": cfg.get("model"),
        "primary_metric": "accuracy",
        "greater_is_better": True,
        "metrics": metrics,
        "n_items": len(pairs),
        "extra": {
            "source": cfg.get("source"), "data": cfg.get("data"), "n_pairs": len(pairs),
            "n_answers": len(preds), "asked_orders": ["ab", "ba"],
            "unparseable_answers": statuses.count("unparseable"),
            "failures": statuses.count("call_failed") + 2 * len(pairs) - len(preds),
            "chance_accuracy": 0.5,
            "accuracy_definition": "share of a pair's two answers (both orders) naming the more original side; "
                                   "tie and unparseable count as wrong; averaged over pairs, 95% bootstrap CI over pairs",
            "params": cfg.get("params"),
        },
    }
    rd.write_scores(scores)
    return scores
