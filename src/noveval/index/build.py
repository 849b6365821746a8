"""Build an index folder from a corpus file, append papers to it, fill its vectors.

* :func:`build_index` reads and validates the corpus (JSONL/JSONL.gz of
  ``{id?, title, abstract, year?, field?}``), writes papers, metadata and the BM25 part
  (seconds for 10^5 papers), and, given an embedder, creates the dense part and fills
  every row whose vector is already in the shared vector cache.
* :func:`fill_vectors` embeds the rows still missing, in chunks, and marks each chunk
  done only after its vectors are flushed: a killed fill resumes where it stopped.
* :func:`add_papers` appends new papers (same id and title as an indexed paper = already
  there), rebuilds the BM25 part over all rows and grows the dense part.

Papers without an abstract are skipped and counted (novelty is judged on title +
abstract, as in ``noveval check``).
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import shutil
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from noveval.errors import InputError
from noveval.index.bm25 import BM25Index, BM25Params
from noveval.index.store import FORMAT_VERSION, CorpusIndex

__all__ = ["as_embedder", "read_corpus", "build_index", "add_papers", "fill_vectors", "fill_from_cache"]

_TEXT_RULE = "title + '\\n\\n' + abstract (noveval.corpus.paper_text)"


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def read_corpus(path: str | Path) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Validated papers of a corpus file (:func:`noveval.corpus.load_corpus`) and counts.

    Returns:
        ``(papers, counts)``; papers are ``{id, title, abstract, year, field}`` (year 0 =
        unknown, field "" = unknown); counts has ``read`` and ``skipped_no_abstract``.

    Raises:
        InputError: unreadable file, a row that is not an object, a missing title, a
            non-string abstract or field, a year that is not a year, or no usable paper.
    """
    from noveval.corpus import load_corpus

    c = load_corpus(path)
    papers = [{"id": c.ids[i], "title": c.titles[i], "abstract": c.abstracts[i], "year": int(c.years[i]),
               "field": c.fields[i]} for i in range(len(c))]
    return papers, {"read": c.n_read, "skipped_no_abstract": c.skipped_no_abstract}


def _write_papers(folder: Path, papers: Sequence[dict[str, Any]], field_names: list[str]) -> None:
    offsets = [0]
    with open(folder / "papers.jsonl", "wb") as fh:
        for p in papers:
            b = (json.dumps(p, ensure_ascii=False) + "\n").encode("utf-8")
            fh.write(b)
            offsets.append(offsets[-1] + len(b))
    np.save(folder / "offsets.npy", np.asarray(offsets, dtype=np.int64))
    np.save(folder / "years.npy", np.asarray([p["year"] for p in papers], dtype=np.int32))
    code = {f: i for i, f in enumerate(field_names)}
    np.save(folder / "fields.npy", np.asarray([code[p["field"]] for p in papers], dtype=np.int16))


def _texts(papers: Iterable[dict[str, Any]]) -> list[str]:
    from noveval.corpus import paper_text

    return [paper_text(p["title"], p["abstract"]) for p in papers]


def _write_meta(folder: Path, meta: dict[str, Any]) -> None:
    tmp = folder / "index.json.tmp"
    tmp.write_text(json.dumps(meta, indent=2, ensure_ascii=False), encoding="utf-8")
    os.replace(tmp, folder / "index.json")


def build_index(
    corpus: str | Path,
    out: str | Path,
    *,
    embedder: Any = None,
    bm25: BM25Params | None = None,
    embed_missing: bool = False,
    overwrite: bool = False,
    log: Callable[[str], None] | None = None,
) -> CorpusIndex:
    """Build an index folder from a corpus file.

    Args:
        corpus: JSONL(.gz) of ``{id?, title, abstract, year?, field?}``.
        out: Index folder to create (written beside it first, then renamed into place).
        embedder: An :class:`~noveval.models.embed.Embedder` (or spec string) for the dense
            part, or None for a BM25-only index.
        bm25: BM25 settings (default :class:`BM25Params`).
        embed_missing: Also embed every row the vector cache lacks (else fill later with
            :func:`fill_vectors` / ``noveval index embed``).
        overwrite: Replace an existing folder.
        log: Called with one-line progress messages.

    Returns:
        The opened index.

    Raises:
        InputError: bad corpus (see :func:`read_corpus`) or ``out`` exists without ``overwrite``.
    """
    say = log or (lambda s: None)
    out = Path(out)
    if out.exists() and not overwrite:
        raise InputError(out, None, None, "already exists; use `noveval index add` to append or --overwrite to rebuild")
    t0 = time.perf_counter()
    emb = as_embedder(embedder) if embedder is not None else None
    papers, counts = read_corpus(corpus)
    say(f"read {len(papers)} papers ({counts['skipped_no_abstract']} without abstract skipped) "
        f"in {time.perf_counter() - t0:.1f}s")
    tmp = out.with_name(f".{out.name}.building-{os.getpid()}")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    try:
        field_names = sorted({p["field"] for p in papers})
        _write_papers(tmp, papers, field_names)
        t1 = time.perf_counter()
        params = bm25 or BM25Params()
        BM25Index.build(_texts(papers), params).save(tmp / "bm25")
        bm25_s = time.perf_counter() - t1
        say(f"BM25 over {len(papers)} papers in {bm25_s:.1f}s")
        meta: dict[str, Any] = {
            "format_version": FORMAT_VERSION, "papers": len(papers), "fields": field_names,
            "sources": [{"path": str(Path(corpus)), **counts, "added": len(papers), "at": _now()}],
            "bm25": vars(params), "text": _TEXT_RULE, "embedder": None, "ann": None,
            "created": _now(), "updated": _now(), "build_s": {"read": round(t1 - t0, 2), "bm25": round(bm25_s, 2)},
        }
        if emb is not None:
            meta["embedder"] = {"id": emb.model_id, "dim": int(emb.dim)}
            _grow_vectors(tmp, 0, len(papers), int(emb.dim))
        _write_meta(tmp, meta)
        if out.exists():
            shutil.rmtree(out)
        os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    idx = CorpusIndex(out)
    if emb is not None:
        t2 = time.perf_counter()
        got = fill_from_cache(idx, emb)
        say(f"dense: {got} of {len(idx)} vectors taken from the vector cache in {time.perf_counter() - t2:.1f}s")
        if embed_missing:
            fill_vectors(idx, emb)
    return CorpusIndex(out)


def as_embedder(embedder: Any) -> Any:
    """An :class:`~noveval.models.embed.Embedder` from a spec string (or the embedder itself)."""
    if isinstance(embedder, str):
        from noveval.models.embed import get_embedder

        return get_embedder(embedder)
    return embedder


def _grow_vectors(folder: Path, old_n: int, new_n: int, dim: int) -> None:
    """Create or extend ``vectors.f32`` / ``vectors.done`` to ``new_n`` rows (new rows unfilled)."""
    for name, row_bytes in (("vectors.f32", 4 * dim), ("vectors.done", 1)):
        f = folder / name
        with open(f, "ab" if f.exists() else "wb") as fh:
            fh.truncate(new_n * row_bytes)


def _check_embedder(idx: CorpusIndex, emb: Any) -> None:
    if idx.embedder_id is None:
        raise InputError(idx.path, None, "embedder", "this index has no dense part (it was built without -e)")
    if emb.model_id != idx.embedder_id:
        raise InputError(idx.path, None, "embedder",
                         f"the index holds {idx.embedder_id} vectors; got embedder {emb.model_id}")


def fill_from_cache(idx: CorpusIndex, embedder: Any, *, chunk: int = 5000) -> int:
    """Copy vectors of unfilled rows from the embedder's vector cache; returns rows filled."""
    _check_embedder(idx, embedder)
    if embedder.cache is None:
        return 0
    from noveval.models.embed import text_hash

    todo = np.flatnonzero(~idx.filled())
    got = 0
    vec, done = idx.vectors(writable=True), idx.done(writable=True)
    for s in range(0, len(todo), chunk):
        rows = todo[s:s + chunk]
        hashes = [text_hash(t) for t in idx.texts(rows)]
        found = embedder.cache.get_many(embedder.model_id, hashes)
        hit = [(r, found[h]) for r, h in zip(rows, hashes) if h in found]
        if not hit:
            continue
        for r, v in hit:
            vec[r] = v
        vec.flush()
        for r, _ in hit:
            done[r] = 1
        done.flush()
        got += len(hit)
    return got


def fill_vectors(idx: CorpusIndex, embedder: Any, rows: Sequence[int] | np.ndarray | None = None, *,
                 chunk: int = 512, progress: str | None = "index: embedding") -> int:
    """Embed unfilled rows (all, or those of ``rows``) and store them; resumable.

    Each chunk's vectors are flushed before its rows are marked done, so a killed fill
    loses at most one chunk and the next call continues from the done flags. Vectors also
    go to the embedder's vector cache.

    Returns:
        Rows filled by this call.
    """
    from noveval.progress import track

    _check_embedder(idx, embedder)
    filled = idx.filled()
    want = np.arange(idx.n) if rows is None else np.unique(np.asarray(rows, dtype=np.int64))
    todo = want[~filled[want]]
    if len(todo) == 0:
        return 0
    vec, done = idx.vectors(writable=True), idx.done(writable=True)
    with track(len(todo), progress or "") as tr:
        for s in range(0, len(todo), chunk):
            r = todo[s:s + chunk]
            vec[r] = embedder.encode(idx.texts(r))
            vec.flush()
            done[r] = 1
            done.flush()
            tr.advance(len(r))
    return int(len(todo))


def add_papers(index: str | Path | CorpusIndex, corpus: str | Path, *, embedder: Any = None,
               log: Callable[[str], None] | None = None) -> tuple[CorpusIndex, int, int]:
    """Append a corpus file's papers to an index.

    A paper whose id and title equal an indexed paper's is already there and skipped.
    The BM25 part is rebuilt over all rows (seconds); vectors of new rows are taken from
    the vector cache when an embedder is given (else left to ``noveval index embed``).

    Returns:
        ``(index, added, already_present)``.
    """
    say = log or (lambda s: None)
    idx = index if isinstance(index, CorpusIndex) else CorpusIndex(index)
    new, counts = read_corpus(corpus)
    have = {(p["id"], p["title"]) for p in idx.iter_papers()}
    fresh, seen = [], set()
    for p in new:
        key = (p["id"], p["title"])
        if key not in have and key not in seen:
            fresh.append(p)
            seen.add(key)
    dup = len(new) - len(fresh)
    meta = dict(idx.meta)
    meta["sources"] = [*meta.get("sources", []), {"path": str(Path(corpus)), **counts, "added": len(fresh), "at": _now()}]
    if not fresh:
        _write_meta(idx.path, {**meta, "updated": _now()})
        return CorpusIndex(idx.path), 0, dup
    allp = list(idx.iter_papers()) + fresh
    names = sorted({*meta["fields"], *(p["field"] for p in fresh)})
    folder = idx.path
    # Stage new files beside the old ones, then swap them in; index.json (row count) goes last.
    stage = folder / ".adding"
    if stage.exists():
        shutil.rmtree(stage)
    stage.mkdir()
    _write_papers(stage, allp, names)
    BM25Index.build(_texts(allp), BM25Params(**meta["bm25"])).save(stage / "bm25")
    if idx.has_dense():
        _grow_vectors(folder, idx.n, len(allp), int(idx.dim or 0))
    for name in ("papers.jsonl", "offsets.npy", "years.npy", "fields.npy"):
        os.replace(stage / name, folder / name)
    old_bm25 = folder / "bm25.old"
    if old_bm25.exists():
        shutil.rmtree(old_bm25)
    os.replace(folder / "bm25", old_bm25)
    os.replace(stage / "bm25", folder / "bm25")
    shutil.rmtree(old_bm25)
    shutil.rmtree(stage)
    meta.update(papers=len(allp), fields=names, updated=_now(), ann=None)
    if (folder / "ann.faiss").exists():
        (folder / "ann.faiss").unlink()  # stale: rebuild with `noveval index ann`
    _write_meta(folder, meta)
    out = CorpusIndex(folder)
    say(f"added {len(fresh)} papers ({dup} already present); index has {len(out)}")
    if embedder is not None and out.has_dense():
        got = fill_from_cache(out, as_embedder(embedder))
        say(f"dense: {got} new vectors taken from the vector cache")
    return out, len(fresh), dup
