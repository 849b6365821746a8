"""``noveval index build|add|info|embed|ann|search``: mounted by :func:`noveval.cli.main._mount_extras`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Literal

import numpy as np
import typer
from pydantic import BaseModel, ConfigDict

from noveval.cli.common import cli_errors
from noveval.cli.generate import options_command
from noveval.cli.options import EmbedderOpt, option_info
from noveval.index.build import add_papers, build_index, fill_from_cache, fill_vectors
from noveval.index.lexical import LexicalParams
from noveval.index.run import SearchRunOptions
from noveval.index.store import CorpusIndex, open_index
from noveval.models.types import as_embedder
from noveval.options import EmbedderOption, option

__all__ = ["app", "register"]

app = typer.Typer(help="A persistent corpus index (BM25 + dense vectors + metadata) for check and novelty score.",
                  no_args_is_help=True)

class IndexOption(BaseModel):
    """The index folder the ``index`` commands take."""

    index: Path = option(..., argument=True, help="Index folder.")


IndexArg = Annotated[Path, option_info(IndexOption, "index")]


def _say(msg: str) -> None:
    typer.echo(msg, err=True)


class BuildOptions(EmbedderOption):
    """The options of :func:`build`."""

    model_config = ConfigDict(extra="forbid")

    corpus: Path = option(..., argument=True, help="JSONL(.gz) of papers {id?, title, abstract, year?, field?}.")
    out: Path = option(..., "--out", "-o", help="Index folder to create.")
    no_dense: bool = option(False, "--no-dense", help="BM25 and metadata only (no vectors).")
    embed: bool = option(False, "--embed", help="Embed every paper the vector cache lacks now "
                                                "(default: take cached vectors only; fill later with `index embed`).")
    ann: Literal["auto", "hnsw", "none"] = option(
        "auto", "--ann", help="auto (HNSW from 500k papers once vectors are complete) | hnsw | none.")
    stem: bool = option(False, "--stem", help="BM25 with Snowball English stemming (measured slightly worse "
                                              "on citation gold; off by default).")
    plain_bm25: bool = option(False, "--plain-bm25", help="Unigrams, title once, linear query counts (the "
                                                          "bm25s baseline; default: bigrams, title twice, square-root counts).")
    overwrite: bool = option(False, "--overwrite", help="Replace an existing index folder.")


@app.command("build")
@cli_errors
@options_command(BuildOptions)
def build(o: BuildOptions) -> None:
    """Build an index: BM25 (seconds), metadata, and the dense part filled from the vector cache."""
    params = LexicalParams.plain(stem=o.stem) if o.plain_bm25 else LexicalParams(stem=o.stem)
    idx = build_index(o.corpus, o.out, embedder=None if o.no_dense else o.embedder, bm25=params,
                      embed_missing=o.embed, overwrite=o.overwrite, log=_say)
    _maybe_ann(idx, o.ann)
    _print_info(idx.describe())


def _maybe_ann(idx: object, ann: str) -> None:
    from noveval.index.dense import ANN_AUTO_ROWS, build_ann

    assert isinstance(idx, CorpusIndex)
    if ann == "none" or not idx.has_dense():
        return
    filled, total = idx.dense_coverage()
    if ann == "hnsw" or (ann == "auto" and total >= ANN_AUTO_ROWS):
        if filled < total:
            _say(f"ANN not built: {filled} of {total} vectors filled (run `noveval index embed`, then `noveval index ann`)")
            return
        info = build_ann(idx)
        _say(f"HNSW built in {info['build_s']}s, recall@10 vs exact {info['recall_at_10']}")


class AddOptions(BaseModel):
    """The options of :func:`add`."""

    files: list[Path] = option(..., argument=True, help="JSONL(.gz) files: the arXiv metadata snapshot, OpenAlex works, "
                                                        "Semantic Scholar papers + abstracts (both files), or the corpus format.")
    fmt: str = option("auto", "--format", help="auto | noveval | arxiv | openalex | s2.")


@app.command("add")
@cli_errors
def add(
    index: IndexArg,
    files: Annotated[list[Path], option_info(AddOptions, "files")],
    fmt: Annotated[str, option_info(AddOptions, "fmt")] = "auto",
    embedder: EmbedderOpt = "local",
) -> None:
    """Append papers incrementally, deduplicated by DOI, arXiv id and normalised title; new vectors from the cache."""
    idx = open_index(index)
    emb = embedder if idx.has_dense() else None
    out, added, dup = add_papers(idx, files, fmt=fmt, embedder=emb, log=_say)
    skipped = int((out.meta.get("sources") or [{}])[-1].get("skipped_no_abstract", 0))
    typer.echo(f"added {added}, skipped {skipped} without an abstract, duplicates {dup}, papers now {len(out)}")


class EmbedOptions(BaseModel):
    """The options of :func:`embed`."""

    limit: int | None = option(None, "--limit", "-n", ge=1, help="Embed at most N missing rows.")


@app.command("embed")
@cli_errors
def embed(
    index: IndexArg,
    embedder: EmbedderOpt = "local",
    limit: Annotated[int | None, option_info(EmbedOptions, "limit")] = None,
) -> None:
    """Fill missing vectors (cache first, then the embedder); resumable: kill and re-run at will."""
    idx = open_index(index)
    emb = as_embedder(embedder)
    got = fill_from_cache(idx, emb)
    _say(f"{got} vectors taken from the vector cache")
    todo = np.flatnonzero(~idx.filled())
    if limit is not None:
        todo = todo[:limit]
    n = fill_vectors(idx, emb, todo)
    filled, total = idx.dense_coverage()
    typer.echo(f"embedded {n}; {filled} of {total} vectors filled")


class AnnOptions(BaseModel):
    """The options of :func:`ann_cmd`."""

    m: int = option(32, "--m", ge=4, help="HNSW links per node.")
    ef_search: int = option(128, "--ef-search", ge=8, help="HNSW search breadth.")


@app.command("ann")
@cli_errors
def ann_cmd(
    index: IndexArg,
    m: Annotated[int, option_info(AnnOptions, "m")] = 32,
    ef_search: Annotated[int, option_info(AnnOptions, "ef_search")] = 128,
) -> None:
    """Build the faiss HNSW index and record its recall@10 against exact search."""
    from noveval.index.dense import build_ann

    info = build_ann(open_index(index), m=m, ef_search=ef_search)
    typer.echo(json.dumps(info))


def _print_info(d: dict) -> None:
    e = d["embedder"]
    dense = f"{d['dense_filled']}/{d['papers']} vectors ({e['id']}, dim {e['dim']})" if e else "none (BM25 only)"
    ann = d["ann"]
    typer.echo(f"index: {d['path']}\npapers: {d['papers']} ({d['year_min']}-{d['year_max']}, unknown year "
               f"{d['unknown_year']})\nfields: {', '.join(f'{k} {v}' for k, v in d['fields'].items())}\n"
               f"bm25: {d['bm25']}\ndense: {dense}\n"
               f"ann: {'HNSW, recall@10 vs exact ' + str(ann['recall_at_10']) if ann else 'none (exact search)'}")


class InfoOptions(BaseModel):
    """The options of :func:`info`."""

    as_json: bool = option(False, "--json", help="Print JSON.")


@app.command("info")
@cli_errors
def info(
    index: IndexArg,
    as_json: Annotated[bool, option_info(InfoOptions, "as_json")] = False,
) -> None:
    """Describe an index: papers, years, fields, BM25 settings, embedder, filled vectors, ANN."""
    d = open_index(index).describe()
    if as_json:
        typer.echo(json.dumps(d, indent=2))
    else:
        _print_info(d)


class SearchCommand(SearchRunOptions):
    """The options of :func:`search_cmd`: a search's, its reranker, and where to keep the hits."""

    rerank: str | None = option(None, "--rerank", spec="chat",
                                help="Chat model spec: listwise LLM rerank of the top --rerank-depth.")
    out: Path | None = option(None, "--out", "-o", help="Also write the hits, the retrieval note and the rerank "
                                                        "outcome as JSON here.")


@app.command("search")
@cli_errors
@options_command(SearchCommand)
def search_cmd(o: SearchCommand) -> None:
    """Search an index (filters applied before ranking; never writes the index); with --rerank through
    the runner (the reranker's endpoint checked first, its calls counted, unusable answers exit 3)."""
    import tempfile

    from noveval.benchmarks._runner import run_task
    from noveval.cli.generate import run_in_cli
    from noveval.index.run import run_search
    from noveval.io import read_json
    from noveval.options import narrow

    opts = narrow(o, SearchRunOptions)
    with tempfile.TemporaryDirectory() as tmp:
        out = o.out or Path(tmp) / "search.json"
        run_in_cli("index search", opts,
                   lambda: run_task("index search", run_search, o.rerank or "none", out, opts, one_file=True),
                   summary=False)
        got = read_json(out)
    rerank = got["rerank"]
    if rerank and rerank["error"]:
        _say(f"rerank: {rerank['error']}; kept the {o.retrieval} order")
    if got["note"]:
        _say(got["note"])
    for h in got["hits"]:
        sim = f"{h['similarity']:.3f}" if h["similarity"] is not None else "  -  "
        typer.echo(f"{h['rank']:>3} {sim} {h['year'] or '----'} {(h['title'] or '')[:100]}")


def register(root: typer.Typer) -> None:
    """Add ``index`` to the top-level ``noveval`` app."""
    root.add_typer(app, name="index")
