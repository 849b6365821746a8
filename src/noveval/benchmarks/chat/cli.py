"""``noveval run chat`` / ``noveval score chat``: a model over a prompts file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from noveval.cli.common import make_client
from noveval.cli.options import (
    HF_SOURCE_HELP,
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
from noveval.cli.outcome import run_command

InputOpt = Annotated[Path, typer.Option("--input", "-i", help=f"JSONL/JSON of {{id, prompt | messages[, system, reference]}}, {HF_SOURCE_HELP}.")]


@run_command(batch=True, budget=True)
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
) -> Path:
    """Generate a reply for every prompt in a file (resumable, cached)."""
    from noveval.benchmarks.chat.task import load_prompts, run_prompts
    from noveval.models.chat import GenerationParams

    items = load_prompts(input, limit=limit)
    client = make_client(model, no_cache=no_cache, refresh=refresh, concurrency=concurrency, timeout_s=timeout)
    params = GenerationParams(max_tokens=max_tokens, temperature=temperature, seed=seed)
    return run_prompts(items, client, out, params=params, overwrite=overwrite).path


@run_command
def score(
    input: InputOpt,
    run_dir: Annotated[Path | None, typer.Argument(help="Run directory with predictions.jsonl.", show_default=False)] = None,
    run_opt: Annotated[Path | None, typer.Option("--run", "-r", hidden=True, help="Old spelling of RUN_DIR.")] = None,
) -> Path:
    """Exact-match accuracy of a chat run against the prompts' ``reference`` fields."""
    from noveval.benchmarks.chat.task import load_prompts, score_predictions
    from noveval.cli.options import positional_or_alias
    from noveval.runs import RunDir

    run_dir = positional_or_alias([run_dir] if run_dir else None, [run_opt] if run_opt else None,
                                  what="run dir", alias_name="--run")[0]

    score_predictions(load_prompts(input), RunDir.open(run_dir))
    return run_dir
