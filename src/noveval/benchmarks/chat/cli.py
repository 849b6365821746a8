"""``noveval run chat`` / ``noveval score chat``: a model over a prompts file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from noveval.cli.common import cli_errors, make_client, print_cache_summary
from noveval.cli.options import (
    ConcurrencyOpt,
    LimitOpt,
    ModelOpt,
    NoCacheOpt,
    OutOpt,
    OverwriteOpt,
    RefreshOpt,
    SeedOpt,
    TimeoutOpt,
)

InputOpt = Annotated[Path, typer.Option("--input", "-i", help="JSONL/JSON of {id, prompt | messages[, system, reference]}.")]


@cli_errors
def run(
    input: InputOpt,
    out: OutOpt,
    model: ModelOpt = "local",
    limit: LimitOpt = None,
    concurrency: ConcurrencyOpt = None,
    no_cache: NoCacheOpt = False,
    refresh: RefreshOpt = False,
    seed: SeedOpt = 0,
    max_tokens: Annotated[int, typer.Option("--max-tokens", min=1, help="Max new tokens per reply.")] = 256,
    temperature: Annotated[float, typer.Option("--temperature", min=0.0, help="Sampling temperature.")] = 0.0,
    timeout: TimeoutOpt = 120.0,
    overwrite: OverwriteOpt = False,
) -> None:
    """Generate a reply for every prompt in a file (resumable, cached)."""
    from noveval.benchmarks.chat.task import load_prompts, run_prompts
    from noveval.models.chat import GenerationParams

    items = load_prompts(input, limit=limit)
    client = make_client(model, no_cache=no_cache, refresh=refresh, concurrency=concurrency, timeout_s=timeout)
    params = GenerationParams(max_tokens=max_tokens, temperature=temperature, seed=seed)
    r = run_prompts(items, client, out, params=params, overwrite=overwrite)
    rows = r.rows("predictions")
    failed = sum(1 for x in rows if x.get("output") is None)
    print_cache_summary(client)
    typer.echo(f"{len(rows)} predictions in {r.file('predictions')} ({failed} failed)")


@cli_errors
def score(
    input: InputOpt,
    run_dir: Annotated[Path, typer.Option("--run", "-r", help="Run directory with predictions.jsonl.")],
) -> None:
    """Exact-match accuracy of a chat run against the prompts' ``reference`` fields."""
    from noveval.benchmarks.chat.task import load_prompts, score_predictions
    from noveval.runs import RunDir

    s = score_predictions(load_prompts(input), RunDir.open(run_dir))
    m = s["metrics"]["exact_match"]
    typer.echo(f"exact_match {m['mean']} (n={m['n']}), failures {s['failures']}")
