"""CLI of NovBench beyond the generated ``noveval run novbench``: ``noveval score novbench``
(predictions made anywhere, several at once as a table) and ``noveval novbench ...`` (the
dataset-construction stages and the human agreement). Nothing heavy is imported at module
level; each command imports what it needs.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

from noveval.benchmarks._runner import run_task
from noveval.benchmarks.novbench.options import (
    AgreementCommand,
    DescriptionsOptions,
    EvaluationsOptions,
    ExtractDescriptionsCommand,
    ExtractEvaluationsCommand,
    NovBenchScoreCommand,
    NovBenchScoreOptions,
    StructureCommand,
    StructureOptions,
)
from noveval.cli.common import cli_errors
from noveval.cli.generate import options_command, run_in_cli
from noveval.cli.outcome import run_command
from noveval.errors import InputError
from noveval.io import read_json, read_jsonl, write_json
from noveval.options import RunOptions, narrow

app = typer.Typer(help="NovBench (Wu et al.): dataset-construction stages and human agreement.")


def _echo_scores(label: str, metrics: dict) -> None:
    """One line of means and CIs, on stderr (stdout is the summary, or scores.json with --json)."""
    parts = []
    for k, m in metrics.items():
        if m.get("mean") is None:
            continue
        parts.append(f"{k} {m['mean']:.4f} [{m['ci_low']:.4f}, {m['ci_high']:.4f}]")
    typer.echo(f"{label}: " + "; ".join(parts), err=True)


def _stage(label: str, fn: Callable[[Any, Path, Any], Path], o: Any, cls: type[RunOptions]) -> Path:
    """Run a dataset-construction stage through the runner (one output file), exit 2/3/4 as a run would."""
    opts = narrow(o, cls)
    run_in_cli(label, opts, lambda: run_task(label, fn, o.model, o.out, opts, one_file=True), summary=False)
    return Path(o.out)


def _echo_classified(out: Path) -> None:
    """The summary of a Yes/No stage's output file and its metrics."""
    rows = read_jsonl(out)
    m = read_json(out.with_suffix(".metrics.json"))["metrics"]
    typer.echo(f"{len(rows)} sentences -> {out}; {sum(r['pred'] for r in rows)} predicted novelty")
    if m:
        typer.echo(f"accuracy {m['accuracy']:.4f}  macro-F1 {m['macro_f1']:.4f}  (n={m['n']}, unparsed {m['n_unparsed']})")


@run_command
@options_command(NovBenchScoreCommand)
def score(o: NovBenchScoreCommand) -> list[Path]:
    """Score NovBench predictions: Relevance, Coverage, Clarity, DistAcc (+ Human row)."""
    from noveval.benchmarks.novbench.analyses import render_table
    from noveval.benchmarks.novbench.contract import score_predictions

    if o.out is not None and len(o.predictions) > 1:
        raise InputError(None, None, "--out", "--out works with a single predictions input")
    scoring = narrow(o, NovBenchScoreOptions)
    results = [score_predictions(p, scoring, out=o.out) for p in o.predictions]
    _echo_scores("Human (the gold evaluations scored as predictions)", results[0]["extra"]["human"])
    if len(results) > 1:
        typer.echo(render_table(results, clarity="reference" if o.clarity == "reference" else "paper"))
    return [Path(o.out) if o.out else (p if p.is_dir() else p.parent) for p in o.predictions]


@app.command("extract-descriptions")
@cli_errors
@options_command(ExtractDescriptionsCommand)
def extract_descriptions(o: ExtractDescriptionsCommand) -> None:
    """Stage 1: classify introduction sentences as novelty descriptions (Yes/No)."""
    from noveval.benchmarks.novbench.pipeline import run_descriptions

    _echo_classified(_stage("novbench extract-descriptions", run_descriptions, o, DescriptionsOptions))


@app.command("extract-evaluations")
@cli_errors
@options_command(ExtractEvaluationsCommand)
def extract_evaluations(o: ExtractEvaluationsCommand) -> None:
    """Stage 2: classify review sentences as novelty evaluations (Yes/No)."""
    from noveval.benchmarks.novbench.pipeline import run_evaluations

    _echo_classified(_stage("novbench extract-evaluations", run_evaluations, o, EvaluationsOptions))


@app.command("structure")
@cli_errors
@options_command(StructureCommand)
def structure(o: StructureCommand) -> None:
    """Stage 3: deduplicate novelty comments and sort them by sentiment (Appendix C)."""
    from noveval.benchmarks.novbench.pipeline import run_structure

    out = _stage("novbench structure", run_structure, o, StructureOptions)
    typer.echo(f"{len(read_jsonl(out))} structured evaluations -> {out}")


@app.command("agreement")
@cli_errors
@options_command(AgreementCommand)
def agreement(o: AgreementCommand) -> None:
    """Human agreement (Appendix D): Fleiss' κ, majority-vote agreement, Spearman ρ."""
    from noveval.benchmarks.novbench.agreement import agreement_report, load_preferences

    rep = agreement_report(load_preferences(o.input, metric_field=o.metric_field))
    if o.out:
        write_json(o.out, rep)
    typer.echo(json.dumps(rep, indent=2))
