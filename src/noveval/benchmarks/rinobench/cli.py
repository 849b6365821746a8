"""CLI of RINoBench beyond the generated ``noveval run rinobench``: ``noveval score rinobench``
(predictions made anywhere, against a gold file) and ``noveval rinobench construct``.
Nothing heavy is imported at module level."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from noveval.benchmarks._runner import run_task
from noveval.benchmarks.rinobench.options import (
    ConstructCommand,
    ConstructOptions,
    RINoBenchScoreCommand,
)
from noveval.cli.common import cli_errors
from noveval.cli.generate import options_command, run_in_cli
from noveval.cli.outcome import run_command
from noveval.io import read_json
from noveval.options import narrow

app = typer.Typer(help="RINoBench extras: dataset construction (Section 4.1).", no_args_is_help=True)


@run_command(batch=True, budget=True)
@options_command(RINoBenchScoreCommand)
def score(o: RINoBenchScoreCommand) -> Path | dict:
    """Score saved RINoBench predictions: F1 1..5/macro, MAE, and with --judge the justification metrics."""
    from noveval.benchmarks.rinobench.contract import judge_options, score_predictions

    predictions = o.predictions / "predictions.jsonl" if o.predictions.is_dir() else o.predictions  # a run folder
    scores = score_predictions(
        predictions, o.gold, judge=o.judge, out=o.out, seed=o.seed, overwrite=o.overwrite, f1_labels=o.f1_labels,
        client_kwargs={"cache": None if o.no_cache else "default", "concurrency": o.concurrency},
        judge_options=judge_options(o),
    )
    return Path(o.out) if o.out is not None else scores


@app.command("construct")
@cli_errors
@options_command(ConstructCommand)
def construct_cmd(o: ConstructCommand) -> None:
    """Build a RINoBench dataset (train.json / test.json) from review records (Section 4.1)."""
    from noveval.benchmarks.rinobench.construct import run_construct
    opts = narrow(o, ConstructOptions)
    run_in_cli("rinobench construct", opts,
               lambda: run_task("rinobench construct", run_construct, o.model, o.out, opts), summary=False)
    typer.echo(json.dumps(read_json(Path(o.out) / "manifest.json")["counts"], indent=2))
    typer.echo(f"dataset: {o.out}", err=True)
