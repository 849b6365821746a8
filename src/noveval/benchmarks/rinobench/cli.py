"""CLI of RINoBench beyond the generated ``noveval run rinobench``: ``noveval score rinobench``
(predictions made anywhere, against a gold file) and ``noveval rinobench construct``.
Nothing heavy is imported at module level."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from noveval.benchmarks.rinobench.options import F1LabelsHelp
from noveval.cli.common import cli_errors
from noveval.cli.options import (
    HF_SOURCE_HELP,
    ConcurrencyOpt,
    JudgeOpt,
    ModelOpt,
    NoCacheOpt,
    OutOpt,
    OverwriteOpt,
    SeedOpt,
)
from noveval.cli.outcome import AllowFailuresOpt, run_command


class Binning(StrEnum):
    """How mean reviewer ratings become 1-5 novelty scores (``rinobench construct --binning``)."""

    fixed = "fixed"
    blended = "blended"


app = typer.Typer(help="RINoBench extras: dataset construction (Section 4.1).", no_args_is_help=True)

F1LabelsOpt = Annotated[str, typer.Option("--f1-labels", help=F1LabelsHelp)]
MaxArgumentsOpt = Annotated[int | None, typer.Option("--max-arguments", min=1, help="Cap the judge's extracted arguments per justification and kind (default: all, as the paper).")]
GroundingOpt = Annotated[str, typer.Option("--grounding-context", help="split: related works for known aspects, idea for novelty aspects (paper text) | both: idea and related works for every argument (released fact-check prompt).")]


def _judge_options(max_arguments: int | None, grounding_context: str) -> Any:
    from noveval.benchmarks.rinobench.judge import JudgeOptions
    from noveval.errors import InputError

    if grounding_context not in ("split", "both"):
        raise InputError(None, None, "--grounding-context", f"must be split or both, got {grounding_context!r}")
    return JudgeOptions(max_arguments=max_arguments, grounding_context=grounding_context)  # type: ignore[arg-type]


@run_command(batch=True, budget=True)
def score(
    gold: Annotated[Path, typer.Option("--gold", "-g", help=f"Gold items (test.json format), {HF_SOURCE_HELP}.")],
    predictions: Annotated[Path | None, typer.Argument(
        help="Predictions: published [{reasoning, novelty_score}] JSON, our predictions.jsonl, or a run folder "
        "holding it.", show_default=False)] = None,
    predictions_opt: Annotated[Path | None, typer.Option(
        "--predictions", "-p", hidden=True, help="Old spelling of PREDICTIONS.")] = None,
    judge: JudgeOpt = None,
    f1_labels: F1LabelsOpt = "fixed",
    max_arguments: MaxArgumentsOpt = None,
    grounding_context: GroundingOpt = "split",
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Run directory for judgments, per-item rows and scores.")] = None,
    seed: SeedOpt = 0,
    concurrency: ConcurrencyOpt = None,
    no_cache: NoCacheOpt = False,
    overwrite: OverwriteOpt = False,
) -> Path | dict:
    """Score saved RINoBench predictions: F1 1..5/macro, MAE, and with --judge the justification metrics."""
    from noveval.benchmarks.rinobench.contract import score_predictions
    from noveval.cli.options import positional_or_alias

    predictions = positional_or_alias([predictions] if predictions else None, [predictions_opt] if predictions_opt else None,
                                      what="predictions", alias_name="--predictions")[0]
    if predictions.is_dir():  # a run folder of `noveval run rinobench`
        predictions = predictions / "predictions.jsonl"
    scores = score_predictions(
        predictions, gold, judge=judge, out=out, seed=seed, overwrite=overwrite, f1_labels=f1_labels,
        client_kwargs={"cache": None if no_cache else "default", "concurrency": concurrency},
        judge_options=_judge_options(max_arguments, grounding_context),
    )
    return Path(out) if out is not None else scores


@app.command("construct")
@cli_errors
def construct_cmd(
    reviews: Annotated[Path, typer.Option("--reviews", "-r", help="OpenReview-like paper records (JSON array or JSONL), see noveval.benchmarks.rinobench.construct.")],
    out: OutOpt,
    model: ModelOpt = "local",
    binning: Annotated[Binning, typer.Option(help="'fixed' (equal-width edges over the 1-4 rating scale) or 'blended' (released code: 0.7 quantile + 0.3 equal-width).")] = Binning.fixed,
    min_related_works: Annotated[int, typer.Option(help="Drop ideas with fewer related works (paper: 5).")] = 5,
    test_size: Annotated[float, typer.Option(help="Test share of the stratified split (paper: 0.2).")] = 0.2,
    skip_grounding: Annotated[bool, typer.Option("--skip-grounding", help="Skip the LLM grounding filter of gold justifications.")] = False,
    seed: SeedOpt = 0,
    no_cache: NoCacheOpt = False,
    allow_failures: AllowFailuresOpt = False,
) -> None:
    """Build a RINoBench dataset (train.json / test.json) from review records (Section 4.1)."""
    from noveval.benchmarks._runner import run_task
    from noveval.benchmarks.rinobench.construct import run_construct
    from noveval.benchmarks.rinobench.options import ConstructOptions
    from noveval.cli.common import user_errors
    from noveval.cli.generate import flag_errors, run_in_cli
    from noveval.io import read_json
    from noveval.options import as_options

    with user_errors(), flag_errors(ConstructOptions):
        opts = as_options(ConstructOptions, {
            "reviews": reviews, "binning": binning.value, "min_related_works": min_related_works,
            "test_size": test_size, "skip_grounding": skip_grounding, "seed": seed, "no_cache": no_cache,
            "allow_failures": allow_failures})
    run_in_cli("rinobench construct", opts, lambda: run_task("rinobench construct", run_construct, model, out, opts),
               summary=False)
    typer.echo(json.dumps(read_json(Path(out) / "manifest.json")["counts"], indent=2))
    typer.echo(f"dataset: {out}", err=True)
