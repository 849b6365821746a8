"""``noveval index build|add|info|embed|ann|search``: mounted by :func:`noveval.cli.main._mount_extras`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import numpy as np
import typer
from pydantic import BaseModel

from noveval.cli.common import cli_errors, make_client
from noveval.cli.options import EmbedderOpt, option_info
from noveval.errors import InputError
from noveval.index.build import add_papers, build_index, fill_from_cache, fill_vectors
from noveval.index.lexical import LexicalParams, PRFParams
from noveval.index.search import search
from noveval.index.store import CorpusIndex, open_index
from noveval.models.types import as_embedder
from noveval.options import option

__all__ = ["app", "register"]

app = typer.Typer(help="A persistent corpus index (BM25 + dense vectors + metadata) for check and novelty score.",
                  no_args_is_help=True)

class IndexOption(BaseModel):
    """The options the ``index`` commands share."""

    index: Path = option(..., argument=True, help="Index folder.")
    retrieval: str = option("hybrid", help="bm25 | dense | hybrid (reciprocal rank fusion).")
    before_year: int | None = option(None, help="Only papers published before this year.")
    field: list[str] | None = option(None, help="Only papers of this 'field' (repeatable).")


IndexArg = Annotated[Path, option_info(IndexOption, "index")]
RetrievalOpt = Annotated[str, option_info(IndexOption, "retrieval")]
BeforeYearOpt = Annotated[int | None, option_info(IndexOption, "before_year")]
FieldOpt = Annotated[list[str] | None, option_info(IndexOption, "field")]


def _say(msg: str) -> None:
    typer.echo(msg, err=True)


class BuildOptions(BaseModel):
    """The options of :func:`build`."""

    corpus: Path = option(..., argument=True, help="JSONL(.gz) of papers {id?, title, abstract, year?, field?}.")
    out: Path = option(..., "--out", "-o", help="Index folder to create.")
    no_dense: bool = option(False, "--no-dense", help="BM25 and metadata only (no vectors).")
    embed: bool = option(False, "--embed", help="Embed every paper the vector cache lacks now "
                                                "(default: take cached vectors only; fill later with `index embed`).")
    ann: str = option("auto", "--ann", help="auto (HNSW from 500k papers once vectors are complete) | hnsw | none.")
    stem: bool = option(False, "--stem", help="BM25 with Snowball English stemming (measured slightly worse "
                                              "on citation gold; off by default).")
    plain_bm25: bool = option(False, "--plain-bm25", help="Unigrams, title once, linear query counts (the "
                                                          "bm25s baseline; default: bigrams, title twice, square-root counts).")
    overwrite: bool = option(False, "--overwrite", help="Replace an existing index folder.")


@app.command("build")
@cli_errors
def build(
    corpus: Annotated[Path, option_info(BuildOptions, "corpus")],
    out: Annotated[Path, option_info(BuildOptions, "out")],
    embedder: EmbedderOpt = "local",
    no_dense: Annotated[bool, option_info(BuildOptions, "no_dense")] = False,
    embed: Annotated[bool, option_info(BuildOptions, "embed")] = False,
    ann: Annotated[str, option_info(BuildOptions, "ann")] = "auto",
    stem: Annotated[bool, option_info(BuildOptions, "stem")] = False,
    plain_bm25: Annotated[bool, option_info(BuildOptions, "plain_bm25")] = False,
    overwrite: Annotated[bool, option_info(BuildOptions, "overwrite")] = False,
) -> None:
    """Build an index: BM25 (seconds), metadata, and the dense part filled from the vector cache."""
    if ann not in ("auto", "hnsw", "none"):
        raise InputError(None, None, "--ann", f"must be auto, hnsw or none, got {ann!r}")
    params = LexicalParams.plain(stem=stem) if plain_bm25 else LexicalParams(stem=stem)
    idx = build_index(corpus, out, embedder=None if no_dense else embedder, bm25=params,
                      embed_missing=embed, overwrite=overwrite, log=_say)
    _maybe_ann(idx, ann)
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


class SearchOptions(BaseModel):
    """The options of :func:`search_cmd`."""

    query: str = option(..., argument=True, help="Query text (e.g. a title and abstract).")
    k: int = option(10, "--top-k", "-k", ge=1, help="Hits shown.")
    rrf_k: int = option(60, "--rrf-k", ge=1, help="Reciprocal rank fusion constant.")
    rerank: str | None = option(None, "--rerank", help="Chat model spec: listwise LLM rerank of the top --rerank-depth.")
    rerank_depth: int = option(30, "--rerank-depth", ge=2, le=50, help="Candidates the reranker orders.")
    prf: bool = option(False, "--prf", help="RM3 pseudo-relevance feedback on the BM25 ranking "
                                            "(measured worse on citation gold; off by default).")


@app.command("search")
@cli_errors
def search_cmd(
    index: IndexArg,
    query: Annotated[str, option_info(SearchOptions, "query")],
    retrieval: RetrievalOpt = "hybrid",
    k: Annotated[int, option_info(SearchOptions, "k")] = 10,
    before_year: BeforeYearOpt = None,
    field: FieldOpt = None,
    embedder: EmbedderOpt = "local",
    rrf_k: Annotated[int, option_info(SearchOptions, "rrf_k")] = 60,
    rerank: Annotated[str | None, option_info(SearchOptions, "rerank")] = None,
    rerank_depth: Annotated[int, option_info(SearchOptions, "rerank_depth")] = 30,
    prf: Annotated[bool, option_info(SearchOptions, "prf")] = False,
) -> None:
    """Search an index (filters applied before ranking; never writes the index)."""
    idx = open_index(index)
    emb = as_embedder(embedder) if idx.has_dense() or retrieval != "bm25" else None
    depth = max(k, rerank_depth if rerank else k)

    res = search(idx, query, mode=retrieval, k=depth, mask=idx.mask(before_year=before_year, fields=field),
                 embedder=emb, rrf_k=rrf_k, with_similarity=emb is not None, prf=PRFParams() if prf else None)
    if rerank:
        from noveval.index.rerank import rerank_hits

        rr = rerank_hits(make_client(rerank), query, res.hits, idx.papers(res.rows()))
        res.hits = rr.hits
        if rr.error:
            _say(f"rerank: {rr.error}; kept the {retrieval} order")
    if res.note:
        _say(res.note)
    for h, p in zip(res.hits[:k], idx.papers([h.row for h in res.hits[:k]])):
        sim = f"{h.similarity:.3f}" if h.similarity is not None else "  -  "
        typer.echo(f"{h.rank:>3} {sim} {p['year'] or '----'} {p['title'][:100]}")


def register(root: typer.Typer) -> None:
    """Add ``index`` to the top-level ``noveval`` app."""
    root.add_typer(app, name="index")
