"""``novelty-pairs``' run and score (the functions its declaration names).

``run(model, out, options)`` builds the pairs, asks each in both orders and scores the
run; ``score(run)`` recomputes the scores from the run folder alone: its ``pairs.jsonl``
(the sampled pairs with their gold) and ``predictions.jsonl`` (no model call, no input file).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from noveval.benchmarks._contract import client_of, sample_file
from noveval.benchmarks.pairs import BENCHMARK
from noveval.benchmarks.pairs.data import Pair, build_pairs
from noveval.benchmarks.pairs.options import PairsOptions
from noveval.benchmarks.pairs.prompts import prompt_hashes
from noveval.benchmarks.pairs.task import agenerate, score_pairs
from noveval.errors import InputError
from noveval.metrics.consistency import check_samples
from noveval.models.chat import ChatClientProtocol
from noveval.models.client import run_async
from noveval.runs import RunDir, text_sha

__all__ = ["SAMPLE", "run", "score"]

SAMPLE = ("rinobench", "test.json")
"""The shipped sample: RINoBench's 4 invented ideas (gold 2, 3, 4, 5), so 2 pairs without reuse."""


def run(model: str | ChatClientProtocol, out: Path, options: PairsOptions) -> Path:
    """Ask ``model`` which side of each pair is more novel, in both orders, into ``out`` (resumable).

    Args:
        model: Model spec (``local``, ``openai/gpt-4o``, ...) or a chat client.
        out: Run folder (``pairs.jsonl``, ``predictions.jsonl``, ``per_item.jsonl``, ``scores.json``).
        options: The run's options.

    Returns:
        The run folder.

    Raises:
        InputError: a bad input file or option, no pair to form, or a run with other settings in ``out``.
    """
    opts = options
    check_samples(opts.samples, opts.temperature)
    path = opts.data if opts.data is not None else sample_file(*SAMPLE)
    pairs = build_pairs(opts.source, path, limit=opts.limit, seed=opts.seed, min_diff=opts.min_diff,
                        min_reviews=opts.min_reviews)
    client = client_of(model, **opts.client_kwargs())
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
                   "temperature": opts.temperature, **({"samples": opts.samples} if opts.samples > 1 else {})},
    }
    rd = RunDir.create(out, config, overwrite=opts.overwrite)
    rd.write("pairs", [p.model_dump(mode="json") for p in pairs])
    run_async(agenerate(pairs, client, rd, allow_tie=opts.allow_tie, structured=opts.structured,
                        max_tokens=opts.max_tokens, temperature=opts.temperature, seed=opts.seed, samples=opts.samples,
                        progress="novelty-pairs: asking"), client)
    score(rd.path)
    return rd.path


def score(run: str | Path, options: None = None) -> dict[str, Any]:
    """Scores of a ``novelty-pairs`` run from its saved pairs and answers; writes ``per_item.jsonl`` and ``scores.json``.

    Returns:
        The scores dict (primary metric ``accuracy``: the share of answers naming the more
        original side, ties and unparseable answers counted as wrong; chance 0.5).

    Raises:
        InputError: not a ``novelty-pairs`` run folder.
    """
    rd = RunDir.open(run)
    cfg = rd.config
    if cfg.get("benchmark") != "novelty-pairs":
        raise InputError(rd.path / "config.json", None, "benchmark", f"not a novelty-pairs run ({cfg.get('benchmark')!r})")
    pairs = [Pair.model_validate(r) for r in rd.rows("pairs")]
    preds = rd.done("predictions")
    rows, metrics = score_pairs(pairs, preds, seed=int(cfg["params"].get("seed") or 0))
    rd.write("per_item", rows)
    statuses = [p.get("parse_status") for p in preds.values()]
    scores = BENCHMARK.make_scores(
        cfg.get("model"), metrics, n_items=len(pairs),
        extra={
            "source": cfg.get("source"), "data": cfg.get("data"), "n_pairs": len(pairs),
            "n_answers": len(preds), "asked_orders": ["ab", "ba"],
            "unparseable_answers": statuses.count("unparseable"),
            "failures": statuses.count("call_failed") + 2 * len(pairs) - len(preds),
            "chance_accuracy": 0.5,
            "accuracy_definition": "share of a pair's two answers (both orders) naming the more original side; "
                                   "tie and unparseable count as wrong; averaged over pairs, 95% bootstrap CI over pairs",
            "params": cfg.get("params"),
        },
    )
    rd.write_scores(scores)
    return scores
