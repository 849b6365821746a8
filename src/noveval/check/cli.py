"""``noveval check INPUT --corpus CORPUS``: mounted by :func:`noveval.cli.main._mount_extras`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import BaseModel

from noveval.cli.options import EmbedderOpt, ModelOpt, SeedOpt, option_info
from noveval.cli.outcome import model_command
from noveval.options import option

__all__ = ["register", "check"]


class CheckOptions(BaseModel):
    """The options of :func:`check`."""

    input: Path = option(..., argument=True, help="Idea or paper: plain text, Markdown (# Title + paragraphs, "
                                                  "## Problem/Objective/Approach, or a full paper), JSON, or PDF.")
    corpus: Path | None = option(None, "--corpus", help="JSONL(.gz) of prior papers {id?, title, abstract, year} "
                                                        "(with --index: used to build the index when it does not exist).")
    index: Path | None = option(None, "--index", help="Corpus index folder (`noveval index build`); "
                                                      "built from --corpus on first use.")
    retrieval: str = option("hybrid", "--retrieval", help="With --index: bm25 | dense | hybrid (RRF).")
    candidates: int = option(100, "--candidates", ge=10, help="With --index: the BM25 candidates (at least "
                                                              "--metric-pool) that the dense ranking re-ranks and hybrid fuses with BM25, "
                                                              "whatever vectors the index holds.")
    rrf_k: int = option(60, "--rrf-k", ge=1, help="Reciprocal rank fusion constant.")
    rerank: str | None = option(None, "--rerank", help="With --index: chat model spec that reorders the top "
                                                       "--rerank-depth candidates (listwise).")
    rerank_depth: int = option(30, "--rerank-depth", ge=2, le=50, help="Candidates the reranker orders.")
    before_year: int | None = option(None, "--before-year", help="Use only corpus papers published before this year.")
    field: list[str] | None = option(None, "--field", help="Use only corpus papers of this 'field' (repeatable).")
    max_corpus: int | None = option(None, "--max-corpus", ge=1, help="Random sample of N corpus papers (speed).")
    top_k: int = option(10, "--top-k", ge=1, le=50, help="Prior works to retrieve and show the model.")
    pool_size: int = option(300, "--metric-pool", ge=10, help="Metric pool and evidence candidates: the N "
                                                              "nearest kept papers by the retrieval ranking.")
    min_similarity: float = option(0.5, "--min-similarity", help="Below this best similarity, abstain "
                                                                 "(default calibrated on citation gold for the bundled MiniLM).")
    no_judge: bool = option(False, "--no-judge", help="Retrieval, evidence and metrics only; no model calls.")
    out: Path = option(Path("noveval-check"), "--out", "-o", help="Folder for check.md, check.html, check.json.")
    temperature: float = option(0.0, "--temperature", help="Sampling temperature of the rubric judgment "
                                                           "(0: greedy; structuring and the evaluation stay at 0).")
    samples: int = option(1, "--samples", ge=1, help="Ask the rubric judgment N times (seeds seed..seed+N-1, "
                                                     "temperature > 0) and answer the plurality score; records self-consistency.")


@model_command
def check(
    input: Annotated[Path, option_info(CheckOptions, "input")],
    corpus: Annotated[Path | None, option_info(CheckOptions, "corpus")] = None,
    index: Annotated[Path | None, option_info(CheckOptions, "index")] = None,
    retrieval: Annotated[str, option_info(CheckOptions, "retrieval")] = "hybrid",
    candidates: Annotated[int, option_info(CheckOptions, "candidates")] = 100,
    rrf_k: Annotated[int, option_info(CheckOptions, "rrf_k")] = 60,
    rerank: Annotated[str | None, option_info(CheckOptions, "rerank")] = None,
    rerank_depth: Annotated[int, option_info(CheckOptions, "rerank_depth")] = 30,
    model: ModelOpt = "local",
    embedder: EmbedderOpt = "local",
    before_year: Annotated[int | None, option_info(CheckOptions, "before_year")] = None,
    field: Annotated[list[str] | None, option_info(CheckOptions, "field")] = None,
    max_corpus: Annotated[int | None, option_info(CheckOptions, "max_corpus")] = None,
    top_k: Annotated[int, option_info(CheckOptions, "top_k")] = 10,
    pool_size: Annotated[int, option_info(CheckOptions, "pool_size")] = 300,
    min_similarity: Annotated[float, option_info(CheckOptions, "min_similarity")] = 0.5,
    no_judge: Annotated[bool, option_info(CheckOptions, "no_judge")] = False,
    out: Annotated[Path, option_info(CheckOptions, "out")] = Path("noveval-check"),
    seed: SeedOpt = 0,
    temperature: Annotated[float, option_info(CheckOptions, "temperature")] = 0.0,
    samples: Annotated[int, option_info(CheckOptions, "samples")] = 1,
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
