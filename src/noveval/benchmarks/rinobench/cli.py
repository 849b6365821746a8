"""CLI of RINoBench beyond the generated ``noveval run rinobench``: ``noveval score rinobench``
(predictions made anywhere, against a gold file) and ``noveval rinobench construct``.
Nothing heavy is imported at module level."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from noveval.benchmarks.rinobench.options import ConstructCommand, RINoBenchScoreCommand
from noveval.cli.common import cli_errors
from noveval.cli.generate import options_command
from noveval.cli.outcome import run_command

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
    from noveval.benchmarks.rinobench.construct import construct

    manifest = construct(
        o.reviews, o.out, model=o.model, binning=o.binning, min_related_works=o.min_related_works,
        test_size=o.test_size, check_grounding=not o.skip_grounding, seed=o.seed,
        cache=None if o.no_cache else "default",
    )
    typer.echo(json.dumps(manifest["counts"], indent=2))
    typer.echo(f"dataset: {o.out}", err=True)


def demo(out_dir: Path, model: str = "local", embedder: str = "local", real: bool = False, data_dir: Path | None = None) -> list[Path]:
    """Tiny end-to-end run on the shipped samples: generate, score and judge one item.

    With ``real`` the rubric is read from ``<data_dir>/rinobench/label_descriptions.json``
    (no gold test set is available there, so the items stay the shipped samples).
    """
    from noveval.benchmarks.rinobench.contract import judge_run
    from noveval.benchmarks.rinobench.judge import JudgeOptions
    from noveval.benchmarks.rinobench.options import RINoBenchOptions

    rubric = None
    if real and data_dir is not None and (Path(data_dir) / "rinobench" / "label_descriptions.json").exists():
        rubric = Path(data_dir) / "rinobench" / "label_descriptions.json"
    # the demo's budget (issue 31: every system cold in <= 180 CPU-s): one idea (its metrics still
    # computed, n=1); the paper's judge reads every argument, here at most 2 of each kind
    opts = RINoBenchOptions(judge=model, rubric=rubric, limit=1, max_tokens=256, overwrite=True)
    jopts = JudgeOptions(max_arguments=2, max_tokens=160, max_related_works=2, max_abstract_chars=300)
    return [judge_run(model, Path(out_dir) / "run", opts, jopts=jopts)]
