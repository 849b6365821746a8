"""``noveval run novelty-pairs`` / ``noveval score novelty-pairs``: which of two is more novel, both orders."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from noveval.cli.options import ConcurrencyOpt, ModelOpt, NoCacheOpt, OutOpt, OverwriteOpt, SeedOpt
from noveval.cli.outcome import run_command

DataOpt = Annotated[Path | None, typer.Option("--data", "-d", help="Items: a RINoBench test.json-format file (--source rinobench; default the shipped sample) or reviews/neurips-2025.jsonl.gz (--source neurips).")]
SourceOpt = Annotated[str, typer.Option("--source", help="rinobench: pairs of ideas with different gold scores | neurips: papers sharing an author keyword whose mean originality differs by >= --min-diff.")]


@run_command(batch=True, budget=True)
def run(
    out: OutOpt,
    data: DataOpt = None,
    source: SourceOpt = "rinobench",
    model: ModelOpt = "local",
    limit: Annotated[int | None, typer.Option("--limit", "-n", min=1, help="At most N pairs (each asked in both orders).")] = None,
    min_diff: Annotated[float, typer.Option("--min-diff", help="NeurIPS: least difference of mean originality (1-4).")] = 1.0,
    min_reviews: Annotated[int, typer.Option("--min-reviews", min=1, help="NeurIPS: least originality scores per paper.")] = 2,
    no_tie: Annotated[bool, typer.Option("--no-tie", help="Do not offer 'tie' as an answer.")] = False,
    free_text: Annotated[bool, typer.Option("--free-text", help="Do not ask for schema-constrained JSON; parse free text.")] = False,
    max_tokens: Annotated[int, typer.Option("--max-tokens", min=1, help="Answer token budget.")] = 32,
    temperature: Annotated[float, typer.Option("--temperature", min=0.0, help="Sampling temperature.")] = 0.0,
    seed: SeedOpt = 0,
    concurrency: ConcurrencyOpt = None,
    no_cache: NoCacheOpt = False,
    overwrite: OverwriteOpt = False,
) -> Path:
    """Ask which of two ideas/papers is more novel, in both orders; accuracy, position bias and consistency."""
    from noveval.benchmarks.pairs.contract import run as api_run
    from noveval.errors import InputError

    if source not in ("rinobench", "neurips"):
        raise InputError(None, None, "--source", f"must be 'rinobench' or 'neurips', got {source!r}")
    if source == "neurips" and data is None:
        raise InputError(None, None, "--data", "--source neurips needs --data (reviews/neurips-2025.jsonl.gz)")
    return api_run(model, out, data=data, options={
        "source": source, "limit": limit, "seed": seed, "min_diff": min_diff, "min_reviews": min_reviews,
        "allow_tie": not no_tie, "structured": not free_text, "max_tokens": max_tokens, "temperature": temperature,
        "overwrite": overwrite, "cache": None if no_cache else "default", "concurrency": concurrency})


@run_command
def score(
    run_dir: Annotated[Path, typer.Argument(help="A novelty-pairs run folder (pairs.jsonl + predictions.jsonl).")],
) -> Path:
    """Recompute a novelty-pairs run's scores from its saved pairs and answers (no model call)."""
    from noveval.benchmarks.pairs.contract import score as api_score

    api_score(run_dir)
    return run_dir
