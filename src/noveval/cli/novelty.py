"""``noveval novelty score``: score papers' novelty against a reference pool (a file or a corpus index).

Its own command group (it is a tool on the novelty metrics, not part of a benchmark). The
work is :func:`noveval.index.run.run_novelty_score` (:func:`noveval.index.novelty.score_papers` in
process, or :func:`noveval.index.distributed.score_papers_ray`), run through the runner
(:func:`~noveval.benchmarks._runner.run_task`, one output file); heavy imports happen inside the command.
"""

from __future__ import annotations

from pathlib import Path

import typer

from noveval.cli.common import cli_errors
from noveval.cli.generate import options_command
from noveval.index.run import NoveltyScoreOptions, run_novelty_score
from noveval.options import option

__all__ = ["app"]

app = typer.Typer(help="Score papers' novelty against a reference pool.", no_args_is_help=True)

@app.callback()
def _novelty() -> None:
    """Score papers' novelty against a reference pool (RND, Yin, SemNovel, FastTextLOF)."""


class NoveltyScoreCommand(NoveltyScoreOptions):
    """``noveval novelty score``: its options, and where to keep the rows."""

    out: Path | None = option(None, "--out", "-o", help="Write results as JSONL here.")


@app.command("score")
@cli_errors
@options_command(NoveltyScoreCommand)
def novelty_score(o: NoveltyScoreCommand) -> None:
    """Score papers against a pool (file or index) with chosen metrics; list each paper's nearest neighbours.
    Through the runner: a remote embedder's endpoint is checked first and its calls are counted."""
    import tempfile

    from noveval.benchmarks._runner import run_task
    from noveval.cli.generate import run_in_cli
    from noveval.io import read_jsonl
    from noveval.options import narrow

    opts = narrow(o, NoveltyScoreOptions)
    with tempfile.TemporaryDirectory() as tmp:
        out = o.out or Path(tmp) / "novelty.jsonl"
        run_in_cli("novelty score", opts,
                   lambda: run_task("novelty score", run_novelty_score, "none", out, opts, one_file=True),
                   summary=False)
        rows = read_jsonl(out, allow_empty=True)
    for r in rows:
        sc = ", ".join(f"{m}={'nan' if v is None else f'{v:.3f}'}" for m, v in r["scores"].items())
        typer.echo(f"{r['id']}: {sc}  (pool {r['pool']['size']})")
        for nb in r["neighbours"]:
            typer.echo(f"    {nb['similarity']:.3f}  {nb['title'][:90]}")
