"""CLI of the focus-level benchmark beyond the generated ``noveval run focus`` and ``noveval score focus``
(both from :mod:`.options`): ``noveval focus split|expert|agreement``.
Heavy imports happen inside the commands."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import typer

from noveval.benchmarks._runner import run_task
from noveval.benchmarks.focus.options import (
    AgreementCommand,
    AgreementOptions,
    ExpertCommand,
    ExpertOptions,
    SplitCommand,
)
from noveval.cli.common import cli_errors, user_errors
from noveval.cli.generate import flag_errors, options_command, run_in_cli
from noveval.io import read_json, read_jsonl, write_jsonl
from noveval.options import narrow

app = typer.Typer(help="Focus-level review evaluation (Mind the Blind Spots): extras.")


@app.command("split")
@cli_errors
@options_command(SplitCommand)
def split_cmd(o: SplitCommand) -> None:
    """Expert points without a model: split each review's strengths/weaknesses into points."""
    from noveval.benchmarks.focus.data import load_papers, points_from_sections

    rows = [pt for p in load_papers(o.papers, limit=o.limit) for pt in points_from_sections(p)]
    write_jsonl(o.out, rows)
    typer.echo(f"{len(rows)} points -> {o.out}")


@app.command("expert")
@cli_errors
@options_command(ExpertCommand)
def expert_cmd(o: ExpertCommand) -> None:
    """Expert points by the three-prompt chain (meta-review -> augment -> paraphrase)."""
    from noveval.benchmarks.focus.expert import run_expert
    opts = narrow(o, ExpertOptions)
    run = run_in_cli("focus expert", opts, lambda: run_task("focus expert", run_expert, o.model, o.out, opts),
                     summary=False)
    rows = read_jsonl(Path(run.path) / "expert.jsonl")
    n = sum(len(r["strengths"]) + len(r["weaknesses"]) for r in rows)
    typer.echo(f"{len(rows)} papers, {n} points -> {o.out}/expert.jsonl")


@app.command("agreement")
@cli_errors
@options_command(AgreementCommand)
def agreement_cmd(o: AgreementCommand) -> None:
    """Cohen's kappa of the annotator against DISAPERE aspects and MReD polarity (through the runner: the
    annotator's endpoint checked first, its calls counted, mostly unparseable labels exit 3)."""
    from noveval.benchmarks.focus.agreement import agreement_data, run_agreement
    opts = narrow(o, AgreementOptions)
    with user_errors(), flag_errors(AgreementOptions):
        agreement_data(opts)  # a missing data folder: one line, before the endpoint check
    with tempfile.TemporaryDirectory() as tmp:
        out = o.out or Path(tmp) / "agreement.json"
        run_in_cli("focus agreement", opts,
                   lambda: run_task("focus agreement", run_agreement, o.model, out, opts, one_file=True),
                   summary=False)
        res = read_json(out)
    for key in ("disapere", "mred"):
        if key in res:
            r = res[key]
            kappa = "nan" if r["kappa"] is None else f"{r['kappa']:.3f}"  # no sentence: NaN, saved as null
            line = f"{key}: kappa {kappa}  accuracy {r['accuracy']:.3f}  n={r['n']}  failures={r['failures']}"
            sc = r.get("self_consistency")
            if sc is not None:
                mean = "–" if sc["mean"] is None else f"{sc['mean']:.3f}"
                unanimous = "–" if sc["unanimous"] is None else f"{sc['unanimous']:.3f}"
                line += f"  self-consistency {mean} ({sc['samples']} samples, unanimous {unanimous}, n={sc['n']})"
            typer.echo(line)
    if o.out is None:
        typer.echo(json.dumps({k: res[k].get("confusion") for k in ("disapere", "mred") if k in res}))
