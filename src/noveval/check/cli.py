"""``noveval check INPUT --corpus CORPUS``: mounted by :func:`noveval.cli.main._mount_extras`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from noveval.cli.options import EmbedderOpt, ModelOpt, SeedOpt
from noveval.cli.outcome import model_command

__all__ = ["register", "check"]


@model_command
def check(
    input: Annotated[Path, typer.Argument(help="Idea or paper: plain text, Markdown (# Title + paragraphs, "
                                          "## Problem/Objective/Approach, or a full paper), JSON, or PDF.")],
    corpus: Annotated[Path | None, typer.Option("--corpus", help="JSONL(.gz) of prior papers {id?, title, abstract, year} "
                                                "(with --index: used to build the index when it does not exist).")] = None,
    index: Annotated[Path | None, typer.Option("--index", help="Corpus index folder (`noveval index build`); "
                                               "built from --corpus on first use.")] = None,
    retrieval: Annotated[str, typer.Option("--retrieval", help="With --index: bm25 | dense | hybrid (RRF).")] = "hybrid",
    candidates: Annotated[int, typer.Option("--candidates", min=10, help="With --index: the BM25 candidates (at least "
                                            "--metric-pool) that the dense ranking re-ranks and hybrid fuses with BM25, "
                                            "whatever vectors the index holds.")] = 100,
    rrf_k: Annotated[int, typer.Option("--rrf-k", min=1, help="Reciprocal rank fusion constant.")] = 60,
    rerank: Annotated[str | None, typer.Option("--rerank", help="With --index: chat model spec that reorders the top "
                                               "--rerank-depth candidates (listwise).")] = None,
    rerank_depth: Annotated[int, typer.Option("--rerank-depth", min=2, max=50, help="Candidates the reranker orders.")] = 30,
    model: ModelOpt = "local",
    embedder: EmbedderOpt = "local",
    before_year: Annotated[int | None, typer.Option("--before-year", help="Use only corpus papers published before this year.")] = None,
    field: Annotated[list[str] | None, typer.Option("--field", help="Use only corpus papers of this 'field' (repeatable).")] = None,
    max_corpus: Annotated[int | None, typer.Option("--max-corpus", min=1, help="Random sample of N corpus papers (speed).")] = None,
    top_k: Annotated[int, typer.Option("--top-k", min=1, max=50, help="Prior works to retrieve and show the model.")] = 10,
    pool_size: Annotated[int, typer.Option("--metric-pool", min=10, help="Metric pool and evidence candidates: the N "
                                           "nearest kept papers by the retrieval ranking.")] = 300,
    min_similarity: Annotated[float, typer.Option("--min-similarity", help="Below this best similarity, abstain "
                                                  "(default calibrated on citation gold for the bundled MiniLM).")] = 0.5,
    no_judge: Annotated[bool, typer.Option("--no-judge", help="Retrieval, evidence and metrics only; no model calls.")] = False,
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for check.md, check.html, check.json.")] = Path("noveval-check"),
    seed: SeedOpt = 0,
    temperature: Annotated[float, typer.Option("--temperature", help="Sampling temperature of the rubric judgment "
                                               "(0: greedy; structuring and the evaluation stay at 0).")] = 0.0,
    samples: Annotated[int, typer.Option("--samples", min=1, help="Ask the rubric judgment N times (seeds seed..seed+N-1, "
                                         "temperature > 0) and answer the plurality score; records self-consistency.")] = 1,
) -> None:
    """A grounded novelty opinion on your idea or paper against a corpus of prior work."""
    from noveval.check.indexed import RetrievalOptions, check_with_index
    from noveval.check.inputs import load_input
    from noveval.check.opinion import CheckOptions, check_idea, prepare
    from noveval.check.render import write_outputs
    from noveval.errors import InputError
    from noveval.index.search import MODES

    opts = CheckOptions(model=model, embedder=embedder, top_k=top_k, pool_size=pool_size,
                        min_similarity=min_similarity, judge=not no_judge, seed=seed, temperature=temperature,
                        samples=samples)
    if index is None and corpus is None:
        raise InputError(None, None, "--corpus", "give --corpus FILE or --index FOLDER")
    if index is not None and max_corpus is not None:
        raise InputError(None, None, "--max-corpus", "not used with --index (filter with --before-year/--field)")
    if index is not None and retrieval not in MODES:
        raise InputError(None, None, "--retrieval", f"must be one of {', '.join(MODES)}, got {retrieval!r}")
    inp = load_input(input)  # the input is read and the judge checked before any corpus or index work
    client = None if no_judge else _checked_judge(model)
    if index is not None:
        ropts = RetrievalOptions(retrieval, candidates, rrf_k, rerank, rerank_depth)
        result = check_with_index(inp, index, corpus=corpus, options=opts, retrieval=ropts,
                                  client=client, before_year=before_year, fields=field)
    else:
        assert corpus is not None
        inp, c = prepare(inp, corpus, before_year=before_year, fields=field, max_papers=max_corpus, seed=seed)
        result = check_idea(inp, c, options=opts, client=client, before_year=before_year)
    paths = write_outputs(result, out)
    typer.echo(result["verdict"]["summary"])
    for kind, p in paths.items():
        typer.echo(f"{kind}: {p}")


def _checked_judge(model: str) -> Any:
    """The judge's chat client, its endpoint checked now: before any corpus, index or embedding work.

    A dead or misconfigured endpoint stops the command at once (exit 2, one line), instead
    of after minutes of embedding (issue 36). In-process models have nothing to check.
    """
    from noveval.models.calls import active_ledger
    from noveval.models.client import get_client

    client = get_client(model)
    ledger = active_ledger()
    if ledger is not None and ledger.needs_check():
        ledger.ensure_checked()
    return client


def register(app: typer.Typer) -> None:
    """Add ``check`` to the top-level ``noveval`` app."""
    app.command("check", help="A grounded novelty opinion on your idea or paper against a corpus.")(check)
