"""Build an index folder from a corpus file, append papers to it, fill its vectors.

* :func:`build_index` reads and validates the corpus (JSONL/JSONL.gz of
  ``{id?, title, abstract, year?, field?}``), writes papers, metadata and the BM25 part
  (seconds for 10^5 papers), and, given an embedder, creates the dense part and fills
  every row whose vector is already in the shared vector cache.
* :func:`fill_vectors` embeds the rows still missing, in chunks, and marks each chunk
  done only after its vectors are flushed: a killed fill resumes where it stopped.
* :func:`add_papers` appends papers from public metadata dumps (arXiv snapshot, OpenAlex
  works, Semantic Scholar papers + abstracts, or the corpus format;
  :mod:`noveval.index.formats`), deduplicated by DOI, arXiv id and normalised title
  against the index and each other. Incremental: the new papers are appended to
  ``papers.jsonl``, tokenised into one new lexical segment (document frequencies and
  lengths updated), and the dense part grows by unfilled rows; nothing is rebuilt.
  ``index.json`` is written last, so a killed add leaves the index as it was.

Papers without an abstract are skipped and counted (novelty is judged on title +
abstract, as in ``noveval check``).
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from noveval.corpus import load_corpus
from noveval.errors import InputError
from noveval.index.bm25 import BM25Params
from noveval.index.lexical import LexicalIndex, LexicalParams
from noveval.index.store import FORMAT_VERSION, CorpusIndex
from noveval.models.types import EmbedderLike, EmbedderProtocol, as_embedder
from noveval.progress import track

__all__ = ["read_corpus", "build_index", "add_papers", "fill_vectors", "fill_from_cache"]

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


def _write_meta(folder: Path, meta: dict[str, Any]) -> None:
    tmp = folder / "index.json.tmp"
    tmp.write_text(json.dumps(meta, indent=2, ensure_ascii=False), encoding="utf-8")
    os.replace(tmp, folder / "index.json")


def build_index(
    corpus: str | Path,
    out: str | Path,
    *,
    embedder: EmbedderLike | None = None,
    bm25: LexicalParams | BM25Params | None = None,
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
        bm25: Lexical settings (default :class:`~noveval.index.lexical.LexicalParams`: bigrams,
            title counted twice, square-root query counts); a legacy :class:`BM25Params`
            means plain ``bm25s``-style BM25 with its k1, b and stemming.
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
        params = lexical_params(bm25)
        state = LexicalIndex.build(tmp / "lexical", papers, params)
        bm25_s = time.perf_counter() - t1
        say(f"BM25 over {len(papers)} papers in {bm25_s:.1f}s")
        meta: dict[str, Any] = {
            "format_version": FORMAT_VERSION, "papers": len(papers), "fields": field_names,
            "sources": [{"path": str(Path(corpus)), **counts, "added": len(papers), "at": _now()}],
            "bm25": asdict(params), "lexical": state, "text": _TEXT_RULE, "embedder": None, "ann": None,
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


def _grow_vectors(folder: Path, old_n: int, new_n: int, dim: int) -> None:
    """Create or extend ``vectors.f32`` / ``vectors.done`` to ``new_n`` rows (new rows unfilled)."""
    for name, row_bytes in (("vectors.f32", 4 * dim), ("vectors.done", 1)):
        f = folder / name
        with open(f, "ab" if f.exists() else "wb") as fh:
            fh.truncate(new_n * row_bytes)


def _check_embedder(idx: CorpusIndex, emb: EmbedderProtocol) -> None:
    if idx.embedder_id is None:
        raise InputError(idx.path, None, "embedder", "this index has no dense part (it was built without -e)")
    if emb.model_id != idx.embedder_id:
        raise InputError(idx.path, None, "embedder",
                         f"the index holds {idx.embedder_id} vectors; got embedder {emb.model_id}")


def fill_from_cache(idx: CorpusIndex, embedder: EmbedderProtocol, *, chunk: int = 5000) -> int:
    """Copy vectors of unfilled rows from the embedder's vector cache; returns rows filled."""
    _check_embedder(idx, embedder)
    cache = getattr(embedder, "cache", None)
    if cache is None:
        return 0
    from noveval.models.embed import text_hash

    todo = np.flatnonzero(~idx.filled())
    got = 0
    vec, done = idx.vectors(writable=True), idx.done(writable=True)
    for s in range(0, len(todo), chunk):
        rows = todo[s:s + chunk]
        hashes = [text_hash(t) for t in idx.texts(rows)]
        found = cache.get_many(embedder.model_id, hashes)
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


def fill_vectors(idx: CorpusIndex, embedder: EmbedderProtocol, rows: Sequence[int] | np.ndarray | None = None, *,
                 chunk: int = 512, progress: str | None = "index: embedding") -> int:
    """Embed unfilled rows (all, or those of ``rows``) and store them; resumable.

    Each chunk's vectors are flushed before its rows are marked done, so a killed fill
    loses at most one chunk and the next call continues from the done flags. Vectors also
    go to the embedder's vector cache.

    Returns:
        Rows filled by this call.
    """
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


def lexical_params(bm25: LexicalParams | BM25Params | None) -> LexicalParams:
    """The lexical settings to build with (a legacy :class:`BM25Params` = plain BM25 with its k1, b, stems)."""
    if bm25 is None:
        return LexicalParams()
    if isinstance(bm25, BM25Params):
        return LexicalParams(k1=bm25.k1, b=bm25.b, stopwords=bm25.stopwords, stem=bm25.stem, bigrams=False,
                             title_weight=1, query_tf=1.0)
    return bm25


def _new_papers(idx: CorpusIndex, new: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """The papers of ``new`` not in the index and not repeated within ``new`` (see :func:`~noveval.index.formats.dedup_keys`)."""
    from noveval.index.formats import dedup_keys

    seen: set[str] = set()
    for p in idx.iter_papers():
        seen.update(dedup_keys(p))
    fresh = []
    for p in new:
        keys = dedup_keys(p)
        if keys and any(k in seen for k in keys):
            continue
        seen.update(keys)
        fresh.append(p)
    return fresh, len(new) - len(fresh)


def _append_papers(folder: Path, n_old: int, offsets: np.ndarray, fresh: Sequence[dict[str, Any]],
                   names: list[str]) -> None:
    """Append rows to ``papers.jsonl`` (dropping bytes a killed add left) and rewrite the row arrays."""
    end = int(offsets[n_old])
    with open(folder / "papers.jsonl", "r+b") as fh:
        fh.truncate(end)
        fh.seek(end)
        new_off = [end]
        for p in fresh:
            b = (json.dumps(p, ensure_ascii=False) + "\n").encode("utf-8")
            fh.write(b)
            new_off.append(new_off[-1] + len(b))
        fh.flush()
        os.fsync(fh.fileno())
    code = {f: i for i, f in enumerate(names)}
    arrays = {
        "offsets.npy": np.concatenate([np.asarray(offsets[: n_old + 1]), np.asarray(new_off[1:], dtype=np.int64)]),
        "years.npy": np.concatenate([np.load(folder / "years.npy")[:n_old],
                                     np.asarray([p["year"] or 0 for p in fresh], dtype=np.int32)]),
        "fields.npy": np.concatenate([np.load(folder / "fields.npy")[:n_old],
                                      np.asarray([code[p["field"]] for p in fresh], dtype=np.int16)]),
    }
    for name, arr in arrays.items():
        tmp = folder / (name + ".tmp.npy")
        np.save(tmp, arr)
        os.replace(tmp, folder / name)


def _drop_old_generations(folder: Path, keep: set[str]) -> None:
    """Delete lexical files of generations older than the previous one (readers may hold the previous one)."""
    lex = folder / "lexical"
    states = sorted(lex.glob("state-*.json"), key=lambda p: int(p.stem.split("-")[1]))
    keep_states = {p.name for p in states[-2:]} | keep
    used: set[str] = set()
    for st in states:
        if st.name in keep_states:
            d = json.loads(st.read_text(encoding="utf-8"))
            used.update(d["files"].values())
            used.update(s["name"] for s in d["segments"])
    for f in lex.iterdir():
        if f.name not in used and f.name not in keep_states:
            shutil.rmtree(f) if f.is_dir() else f.unlink()


def add_papers(index: str | Path | CorpusIndex, sources: str | Path | Sequence[str | Path], *, fmt: str = "auto",
               embedder: EmbedderLike | None = None, log: Callable[[str], None] | None = None) -> tuple[CorpusIndex, int, int]:
    """Append papers from metadata dumps to an index, incrementally.

    Args:
        index: The index (folder or opened).
        sources: One or more JSONL(.gz) files (:func:`noveval.index.formats.read_papers`).
        fmt: ``auto``, ``noveval``, ``arxiv``, ``openalex`` or ``s2``.
        embedder: With a dense part, new rows' vectors are taken from this embedder's vector
            cache (the rest stay unfilled for ``noveval index embed``).
        log: Called with one-line progress messages.

    Returns:
        ``(index, added, duplicates)``: duplicates are papers already in the index or
        repeated in the input (same DOI, arXiv id or normalised title).
    """
    from noveval.index.formats import read_papers

    say = log or (lambda s: None)
    idx = index if isinstance(index, CorpusIndex) else CorpusIndex(index)
    paths = [sources] if isinstance(sources, str | Path) else list(sources)
    t0 = time.perf_counter()
    new, counts = read_papers(paths, fmt)
    fresh, dup = _new_papers(idx, new)
    meta = dict(idx.meta)
    meta["sources"] = [*meta.get("sources", []), {"path": [str(p) for p in paths] if len(paths) > 1 else str(paths[0]),
                                                  "formats": counts["formats"], "read": counts["read"],
                                                  "skipped_no_abstract": counts["skipped_no_abstract"],
                                                  "duplicates": dup, "added": len(fresh), "at": _now()}]
    folder = idx.path
    if not fresh:
        _write_meta(folder, {**meta, "updated": _now()})
        return CorpusIndex(folder), 0, dup
    names = list(meta["fields"]) + sorted({p["field"] for p in fresh} - set(meta["fields"]))
    t1 = time.perf_counter()
    if meta.get("lexical"):
        state = idx.bm25.add(fresh)
    else:  # a version 1 index: its bm25s part cannot grow, so the lexical part is made once over every row
        params = LexicalParams.plain(stem=bool(meta["bm25"].get("stem")))
        state = LexicalIndex.build(folder / "lexical", [*idx.iter_papers(), *fresh], params)
        meta["bm25"] = asdict(params)
        say("converted the version 1 index: lexical part built over every row (plain BM25, as before)")
    lex_s = time.perf_counter() - t1
    _append_papers(folder, idx.n, np.asarray(idx._offsets), fresh, names)
    if idx.has_dense():
        _grow_vectors(folder, idx.n, idx.n + len(fresh), int(idx.dim or 0))
    meta.update(papers=idx.n + len(fresh), fields=names, lexical=state, format_version=FORMAT_VERSION,
                updated=_now(), ann=None)
    meta.setdefault("add_s", []).append({"papers": len(fresh), "total": round(time.perf_counter() - t0, 2),
                                         "lexical": round(lex_s, 2)})
    _write_meta(folder, meta)
    if (folder / "ann.faiss").exists():
        (folder / "ann.faiss").unlink()  # stale: rebuild with `noveval index ann`
    if (folder / "bm25").is_dir() and meta.get("lexical"):
        shutil.rmtree(folder / "bm25", ignore_errors=True)
    _drop_old_generations(folder, {state})
    out = CorpusIndex(folder)
    say(f"added {len(fresh)} papers ({dup} already present, {counts['skipped_no_abstract']} without an abstract "
        f"skipped) in {time.perf_counter() - t0:.1f}s; index has {len(out)}")
    emb = as_embedder(embedder) if embedder is not None and out.has_dense() else None
    if emb is not None and emb.model_id != out.embedder_id:
        say(f"dense: no vectors taken from the cache (embedder {emb.model_id}; the index holds {out.embedder_id})")
    elif emb is not None:
        say(f"dense: {fill_from_cache(out, emb)} new vectors taken from the vector cache")
    return out, len(fresh), dup
