"""CLI of the focus-level benchmark beyond the generated ``noveval run focus`` and ``noveval score focus``
(both from :mod:`.options`): ``noveval focus split|expert|agreement``.
Heavy imports happen inside the commands."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer

from noveval.cli.common import cli_errors
from noveval.cli.options import DataDirOpt, LimitOpt, ModelOpt, OutOpt, OverwriteOpt, SeedOpt
from noveval.cli.outcome import AllowFailuresOpt, model_command

app = typer.Typer(help="Focus-level review evaluation (Mind the Blind Spots): extras.")

PapersArg = Annotated[Path, typer.Option("--papers", "-p", help="Papers with reviews (.jsonl[.gz] or .json), e.g. shared/data/reviews/neurips-2024.jsonl.gz.")]
AnnotatorTemperatureOpt = Annotated[float, typer.Option("--temperature", help="The annotator's sampling temperature (0: greedy; reviews stay at 0).")]
AnnotatorSamplesOpt = Annotated[int, typer.Option("--samples", min=1, help="Ask the annotator each prompt N times (seeds seed..seed+N-1, temperature > 0) and take the plurality label; records self-consistency.")]


@app.command("split")
@cli_errors
def split_cmd(
    papers: PapersArg,
    out: Annotated[Path, typer.Option("--out", "-o", help="Output .jsonl of points.")],
    limit: LimitOpt = None,
) -> None:
    """Expert points without a model: split each review's strengths/weaknesses into points."""
    from noveval.benchmarks.focus.data import load_papers, points_from_sections
    from noveval.io import write_jsonl

    rows = [pt for p in load_papers(papers, limit=limit) for pt in points_from_sections(p)]
    write_jsonl(out, rows)
    typer.echo(f"{len(rows)} points -> {out}")


@app.command("expert")
@cli_errors
def expert_cmd(
    papers: PapersArg,
    out: OutOpt,
    model: ModelOpt = "local",
    limit: LimitOpt = None,
    overwrite: OverwriteOpt = False,
    allow_failures: AllowFailuresOpt = False,
) -> None:
    """Expert points by the three-prompt chain (meta-review -> augment -> paraphrase)."""
    from noveval.benchmarks._runner import run_task
    from noveval.benchmarks.focus.expert import run_expert
    from noveval.benchmarks.focus.options import ExpertOptions
    from noveval.cli.common import user_errors
    from noveval.cli.generate import flag_errors, run_in_cli
    from noveval.io import read_jsonl
    from noveval.options import as_options

    with user_errors(), flag_errors(ExpertOptions):
        opts = as_options(ExpertOptions, {"papers": papers, "limit": limit, "overwrite": overwrite,
                                          "allow_failures": allow_failures})
    run = run_in_cli("focus expert", opts, lambda: run_task("focus expert", run_expert, model, out, opts),
                     summary=False)
    rows = read_jsonl(Path(run.path) / "expert.jsonl")
    n = sum(len(r["strengths"]) + len(r["weaknesses"]) for r in rows)
    typer.echo(f"{len(rows)} papers, {n} points -> {out}/expert.jsonl")


@contextlib.contextmanager
def _agreement_flags() -> Iterator[None]:
    """Show :func:`~noveval.benchmarks.focus.agreement.run_agreement`'s parameter errors as its flags."""
    from noveval.errors import InputError

    try:
        yield
    except InputError as e:
        if e.path is None and e.field in ("temperature", "samples"):
            raise InputError(None, None, f"--{e.field}", e.message) from None
        raise


@app.command("agreement")
@model_command
def agreement_cmd(
    model: ModelOpt = "local",
    data_dir: DataDirOpt = None,
    n_disapere: Annotated[int, typer.Option(help="DISAPERE sentences to annotate (random subsample).")] = 400,
    n_mred: Annotated[int, typer.Option(help="MReD strength/weakness sentences (random subsample).")] = 200,
    seed: SeedOpt = 0,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write the report as JSON.")] = None,
    temperature: AnnotatorTemperatureOpt = 0.0,
    samples: AnnotatorSamplesOpt = 1,
) -> None:
    """Cohen's kappa of the annotator against DISAPERE aspects and MReD polarity."""
    from noveval.benchmarks.focus.agreement import run_agreement
    from noveval.data.folders import data_folder, searched_text

    needs = [f for f, n in (("labels/disapere.jsonl.gz", n_disapere),
                            ("labels/mred-meta-review-sentences.jsonl.gz", n_mred)) if n]
    d = data_folder(needs, data_dir)
    if d is None:
        raise typer.BadParameter(f"no data folder holds {' and '.join(needs)} ({searched_text(data_dir)}): "
                                 "noveval data get disapere mred, or pass --data-dir")
    with _agreement_flags():
        res = run_agreement(d, model=model, n_disapere=n_disapere, n_mred=n_mred, seed=seed, out=out,
                            temperature=temperature, samples=samples)
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
    if out is None:
        typer.echo(json.dumps({k: res[k].get("confusion") for k in ("disapere", "mred") if k in res}))
