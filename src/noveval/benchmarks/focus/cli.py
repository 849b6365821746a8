"""CLI of the focus-level benchmark beyond the generated ``noveval run focus`` and ``noveval score focus``
(both from :mod:`.options`): ``noveval focus split|expert|agreement`` and the demo hook.
Heavy imports happen inside the commands."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from noveval.benchmarks.focus.options import AgreementCommand, ExpertCommand, SplitCommand
from noveval.cli.common import cli_errors
from noveval.cli.generate import options_command
from noveval.cli.outcome import model_command
from noveval.models.client import run_async

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
@model_command
@options_command(ExpertCommand)
def expert_cmd(o: ExpertCommand) -> None:
    """Expert points by the three-prompt chain (meta-review -> augment -> paraphrase)."""

    from noveval.benchmarks.focus.data import load_papers
    from noveval.benchmarks.focus.expert import expert_rows
    from noveval.models.client import get_client
    from noveval.runs import RunDir

    ps = load_papers(o.papers, limit=o.limit)
    client = get_client(o.model)
    from noveval.prompts import prompt_hashes

    prompts = prompt_hashes("focus", ["expert_extract", "expert_augment", "expert_paraphrase"])
    run = RunDir.create(o.out, {"benchmark": "focus-expert", "papers": str(o.papers),
                                "paper_ids": [p.id for p in ps], "model": client.model_id, "prompts": prompts},
                        overwrite=o.overwrite)
    rows = run_async(expert_rows(run, client, ps), client)
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


def demo(out_dir: Path, model: str = "local", embedder: str = "local", real: bool = False,
         data_dir: Path | None = None) -> list[Path]:
    """Tiny end-to-end: 1 shipped sample paper (or 1 real NeurIPS 2024 paper with ``real``), 1 human review."""
    from noveval.benchmarks.focus.contract import run
    from noveval.benchmarks.focus.options import FocusOptions

    del embedder
    papers = None
    if real:
        from noveval.data.folders import data_folder

        d = data_folder(["reviews/neurips-2024.jsonl.gz"], data_dir)
        if d is None:
            raise FileNotFoundError("no data folder holds reviews/neurips-2024.jsonl.gz")
        papers = Path(d) / "reviews" / "neurips-2024.jsonl.gz"
    out = run(model, Path(out_dir) / "focus", FocusOptions(papers=papers, limit=1, max_reviews=1, max_tokens=200))
    return [out / "scores.json", out / "per_item.jsonl", out / "focus.png"]
