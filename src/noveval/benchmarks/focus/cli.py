"""CLI of the focus-level benchmark beyond the generated ``noveval run focus`` and ``noveval score focus``
(both from :mod:`.options`): ``noveval focus split|expert|agreement``.
Heavy imports happen inside the commands."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from noveval.benchmarks.focus.options import AgreementCommand, ExpertCommand, SplitCommand
from noveval.cli.common import cli_errors
from noveval.cli.generate import options_command
from noveval.cli.outcome import model_command

app = typer.Typer(help="Focus-level review evaluation (Mind the Blind Spots): extras.")


@app.command("split")
@cli_errors
@options_command(SplitCommand)
def split_cmd(o: SplitCommand) -> None:
    """Expert points without a model: split each review's strengths/weaknesses into points."""
    from noveval.benchmarks.focus.data import load_papers, points_from_sections
    from noveval.io import write_jsonl

    rows = [pt for p in load_papers(o.papers, limit=o.limit) for pt in points_from_sections(p)]
    write_jsonl(o.out, rows)
    typer.echo(f"{len(rows)} points -> {o.out}")


@app.command("expert")
@cli_errors
@options_command(ExpertCommand)
def expert_cmd(o: ExpertCommand) -> None:
    """Expert points by the three-prompt chain (meta-review -> augment -> paraphrase)."""
    from noveval.benchmarks._runner import run_task
    from noveval.benchmarks.focus.expert import run_expert
    from noveval.benchmarks.focus.options import ExpertOptions
    from noveval.cli.generate import run_in_cli
    from noveval.io import read_jsonl
    from noveval.options import narrow

    opts = narrow(o, ExpertOptions)
    run = run_in_cli("focus expert", opts, lambda: run_task("focus expert", run_expert, o.model, o.out, opts),
                     summary=False)
    rows = read_jsonl(Path(run.path) / "expert.jsonl")
    n = sum(len(r["strengths"]) + len(r["weaknesses"]) for r in rows)
    typer.echo(f"{len(rows)} papers, {n} points -> {o.out}/expert.jsonl")


@app.command("agreement")
@model_command
@options_command(AgreementCommand, flags={"temperature": "--temperature", "samples": "--samples"})
def agreement_cmd(o: AgreementCommand) -> None:
    """Cohen's kappa of the annotator against DISAPERE aspects and MReD polarity."""
    from noveval.benchmarks.focus.agreement import run_agreement
    from noveval.data.folders import data_folder, searched_text

    needs = [f for f, n in (("labels/disapere.jsonl.gz", o.n_disapere),
                            ("labels/mred-meta-review-sentences.jsonl.gz", o.n_mred)) if n]
    d = data_folder(needs, o.data_dir)
    if d is None:
        raise typer.BadParameter(f"no data folder holds {' and '.join(needs)} ({searched_text(o.data_dir)}): "
                                 "noveval data get disapere mred, or pass --data-dir")
    res = run_agreement(d, model=o.model, n_disapere=o.n_disapere, n_mred=o.n_mred, seed=o.seed, out=o.out,
                        temperature=o.temperature, samples=o.samples)
    for key in ("disapere", "mred"):
        if key in res:
            r = res[key]
            line = f"{key}: kappa {r['kappa']:.3f}  accuracy {r['accuracy']:.3f}  n={r['n']}  failures={r['failures']}"
            sc = r.get("self_consistency")
            if sc is not None:
                mean = "–" if sc["mean"] is None else f"{sc['mean']:.3f}"
                unanimous = "–" if sc["unanimous"] is None else f"{sc['unanimous']:.3f}"
                line += f"  self-consistency {mean} ({sc['samples']} samples, unanimous {unanimous}, n={sc['n']})"
            typer.echo(line)
    if o.out is None:
        typer.echo(json.dumps({k: res[k].get("confusion") for k in ("disapere", "mred") if k in res}))
