"""``noveval novelty score``: score papers' novelty against a reference pool (a file or a corpus index).

Its own command group (it is a tool on the novelty metrics, not part of a benchmark). The
work is :func:`noveval.index.novelty.score_papers` (in process) or
:func:`noveval.index.distributed.score_papers_ray`; heavy imports happen inside the command.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer
from pydantic import BaseModel, ConfigDict

from noveval.cli.generate import options_command
from noveval.cli.options import option_info
from noveval.cli.outcome import model_command
from noveval.options import EmbedderOption, option

__all__ = ["app"]

app = typer.Typer(help="Score papers' novelty against a reference pool.", no_args_is_help=True)

class NoveltyMetricsOption(BaseModel):
    """The metrics a ``novelty`` command computes."""

    metric: list[str] | None = option(
        None, "--metric", help="Metric (repeatable): Yin, RND, SemNovel, FastTextLOF. Default: Yin and RND.")


MetricsOpt = Annotated[list[str] | None, option_info(NoveltyMetricsOption, "metric")]


@app.callback()
def _novelty() -> None:
    """Score papers' novelty against a reference pool (RND, Yin, SemNovel, FastTextLOF)."""


def _metrics(names: list[str]) -> list[str]:
    from noveval.io import canonical_names
    from noveval.novelty import METRICS

    return canonical_names(names, METRICS)


class NoveltyScoreOptions(BaseModel):
    """The options of :func:`novelty_score`."""

    papers: Path = option(..., "--papers", help="JSONL of papers to score (title, abstract, optional id, year).")
    pool: Path | None = option(None, "--pool", help="JSONL(.gz) reference pool (title, abstract, optional id, year).")
    index: Path | None = option(None, "--index", help="Corpus index folder as the pool (`noveval index build`); "
                                                      "its vectors are read, never re-embedded.")
    before_year: int | None = option(None, "--before-year", help="Pool papers published before this year only.")
    prior_only: bool = option(False, "--prior-only", help="Each paper's pool: papers published before its own year.")
    field: list[str] | None = option(None, "--field", help="With --index: pool papers of this field only (repeatable).")
    out: Path | None = option(None, "--out", "-o", help="Write results as JSONL here.")
    top_k: int = option(5, "--neighbours", "-k", ge=0, help="Nearest pool papers listed per paper.")
    engine: Literal["local", "ray"] = option("local", "--engine", help="local (in-process) | ray (a Ray Data job over shards of "
                                                   "--papers against the shared --index).")
    ray_address: str | None = option(None, "--ray-address", help="Ray cluster address (default: start a local one).")
    batch_size: int = option(64, "--batch-size", ge=1, help="Papers per Ray batch.")
    embed_missing: bool = option(False, "--embed-missing", help="With --index: embed the pool papers the index "
                                                                "lacks vectors for, however long it takes (without it, a fill "
                                                                "estimated over 10 min stops and says how long it would take).")


class NoveltyScoreCommand(NoveltyScoreOptions, NoveltyMetricsOption, EmbedderOption):
    """``noveval novelty score``: its options, the metrics and the embedder."""

    model_config = ConfigDict(extra="forbid")


@app.command("score")
@model_command
@options_command(NoveltyScoreCommand)
def novelty_score(o: NoveltyScoreCommand) -> None:
    """Score papers against a pool (file or index) with chosen metrics; list each paper's nearest neighbours."""
    from noveval.errors import InputError

    metrics = _metrics(o.metric or ["Yin", "RND"])
    if o.field and o.index is None:
        raise InputError(None, None, "--field", "field filters need --index")
    if o.engine == "ray":
        if o.index is None:
            raise InputError(None, None, "--engine", "the Ray engine scores against a shared --index")
        from noveval.index.distributed import score_papers_ray

        rows = score_papers_ray(o.papers, o.index, metrics=metrics, embedder=o.embedder, top_k=o.top_k,
                                before_year=o.before_year, prior_only=o.prior_only, fields=o.field,
                                address=o.ray_address, batch_size=o.batch_size)
    else:
        from noveval.index.novelty import score_papers

        rows = score_papers(o.papers, o.pool, metrics=metrics, embedder=o.embedder, top_k=o.top_k, index=o.index,
                            before_year=o.before_year, prior_only=o.prior_only, fields=o.field,
                            embed_missing=o.embed_missing)
    if o.out is not None:
        from noveval.io import write_jsonl

        write_jsonl(o.out, rows)
    for r in rows:
        sc = ", ".join(f"{m}={v:.3f}" for m, v in r["scores"].items())
        typer.echo(f"{r['id']}: {sc}  (pool {r['pool']['size']})")
        for nb in r["neighbours"]:
            typer.echo(f"    {nb['similarity']:.3f}  {nb['title'][:90]}")
