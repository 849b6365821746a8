"""``noveval novelty score``: score papers' novelty against a reference pool (a file or a corpus index).

Its own command group (it is a tool on the novelty metrics, not part of a benchmark). The
work is :func:`noveval.index.novelty.score_papers` (in process) or
:func:`noveval.index.distributed.score_papers_ray`; heavy imports happen inside the command.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from noveval.cli.options import EmbedderOpt
from noveval.cli.outcome import model_command

__all__ = ["app"]

app = typer.Typer(help="Score papers' novelty against a reference pool.", no_args_is_help=True)

MetricsOpt = Annotated[list[str] | None, typer.Option(
    "--metric", help="Metric (repeatable): Yin, RND, SemNovel, FastTextLOF. Default: Yin and RND.")]


@app.callback()
def _novelty() -> None:
    """Score papers' novelty against a reference pool (RND, Yin, SemNovel, FastTextLOF)."""


def _metrics(names: list[str]) -> list[str]:
    from noveval.io import canonical_names
    from noveval.novelty import METRICS

    return canonical_names(names, METRICS)


@app.command("score")
@model_command
def novelty_score(
    papers: Annotated[Path, typer.Option("--papers", help="JSONL of papers to score (title, abstract, optional id, year).")],
    pool: Annotated[Path | None, typer.Option("--pool", help="JSONL(.gz) reference pool (title, abstract, optional id, year).")] = None,
    index: Annotated[Path | None, typer.Option("--index", help="Corpus index folder as the pool (`noveval index build`); "
                                               "its vectors are read, never re-embedded.")] = None,
    before_year: Annotated[int | None, typer.Option("--before-year", help="Pool papers published before this year only.")] = None,
    prior_only: Annotated[bool, typer.Option("--prior-only", help="Each paper's pool: papers published before its own year.")] = False,
    field: Annotated[list[str] | None, typer.Option("--field", help="With --index: pool papers of this field only (repeatable).")] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write results as JSONL here.")] = None,
    metric: MetricsOpt = None,
    embedder: EmbedderOpt = "local",
    top_k: Annotated[int, typer.Option("--neighbours", "-k", min=0, help="Nearest pool papers listed per paper.")] = 5,
    engine: Annotated[str, typer.Option("--engine", help="local (in-process) | ray (a Ray Data job over shards of "
                                        "--papers against the shared --index).")] = "local",
    ray_address: Annotated[str | None, typer.Option("--ray-address", help="Ray cluster address (default: start a local one).")] = None,
    batch_size: Annotated[int, typer.Option("--batch-size", min=1, help="Papers per Ray batch.")] = 64,
    embed_missing: Annotated[bool, typer.Option("--embed-missing", help="With --index: embed the pool papers the index "
                                                "lacks vectors for, however long it takes (without it, a fill "
                                                "estimated over 10 min stops and says how long it would take).")] = False,
) -> None:
    """Score papers against a pool (file or index) with chosen metrics; list each paper's nearest neighbours."""
    from noveval.errors import InputError

    metrics = _metrics(metric or ["Yin", "RND"])
    if field and index is None:
        raise InputError(None, None, "--field", "field filters need --index")
    if engine == "ray":
        if index is None:
            raise InputError(None, None, "--engine", "the Ray engine scores against a shared --index")
        from noveval.index.distributed import score_papers_ray

        rows = score_papers_ray(papers, index, metrics=metrics, embedder=embedder, top_k=top_k, before_year=before_year,
                                prior_only=prior_only, fields=field, address=ray_address, batch_size=batch_size)
    elif engine == "local":
        from noveval.index.novelty import score_papers

        rows = score_papers(papers, pool, metrics=metrics, embedder=embedder, top_k=top_k, index=index,
                            before_year=before_year, prior_only=prior_only, fields=field, embed_missing=embed_missing)
    else:
        raise InputError(None, None, "--engine", f"must be local or ray, got {engine!r}")
    if out is not None:
        from noveval.io import write_jsonl

        write_jsonl(out, rows)
    for r in rows:
        sc = ", ".join(f"{m}={v:.3f}" for m, v in r["scores"].items())
        typer.echo(f"{r['id']}: {sc}  (pool {r['pool']['size']})")
        for nb in r["neighbours"]:
            typer.echo(f"    {nb['similarity']:.3f}  {nb['title'][:90]}")
