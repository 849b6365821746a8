"""The on-disk corpus index: one folder, memory-mapped, opened in well under a second.

Layout (``FORMAT_VERSION`` 2; version 1 indexes still open, see below)::

    INDEX/index.json      what it is: papers, sources, BM25 settings, lexical state, embedder, ANN
    INDEX/papers.jsonl    one paper per line {id, title, abstract, year, field, doi?, arxiv?} (row = line)
    INDEX/offsets.npy     int64 (n+1,) byte offsets into papers.jsonl (random access)
    INDEX/years.npy       int32 (n,) publication year, 0 = unknown
    INDEX/fields.npy      int16 (n,) code into index.json "fields" ("" = unknown)
    INDEX/lexical/        BM25 over term-frequency segments (:mod:`noveval.index.lexical`)
    INDEX/vectors.f32     float32 (n, dim) L2-normalised title+abstract embeddings
    INDEX/vectors.done    uint8 (n,) 1 when the row's vector is filled (resumable fill)
    INDEX/ann.faiss       optional faiss HNSW index over the vectors (with measured recall)

``index.json`` is written last by every change and its ``papers`` count is the truth:
arrays and files may hold more rows (an ``add`` that was killed before committing), and
readers use the first ``papers`` of them. Rows are positions in ``papers.jsonl``; ids
need not be unique (the shared corpus repeats 551 ids for different papers).

A version 1 index (``bm25/``: a ``bm25s`` index over plain unigrams) is still searched
as it is; ``noveval index add`` converts it to version 2 on the way.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from noveval.corpus import paper_text
from noveval.errors import InputError
from noveval.index.bm25 import BM25Index, BM25Params
from noveval.index.lexical import LexicalIndex

__all__ = ["FORMAT_VERSION", "CorpusIndex", "open_index", "is_index"]

FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)


def is_index(path: str | Path) -> bool:
    """True when ``path`` is a folder holding an ``index.json``."""
    return (Path(path) / "index.json").is_file()


def open_index(path: str | Path) -> CorpusIndex:
    """Open an index folder (raises ``InputError`` when it is not one)."""
    return CorpusIndex(path)


class CorpusIndex:
    """Read access to an index folder (see the module docstring for the layout).

    Args:
        path: The index folder.

    Raises:
        InputError: not an index, or an index of another format version.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        meta_path = self.path / "index.json"
        if not meta_path.is_file():
            raise InputError(self.path, None, None,
                             "not a noveval index (no index.json); create one with `noveval index build`")
        self.meta: dict[str, Any] = json.loads(meta_path.read_text(encoding="utf-8"))
        if self.meta.get("format_version") not in READABLE_VERSIONS:
            raise InputError(meta_path, None, "format_version",
                             f"index format {self.meta.get('format_version')} is not one of {READABLE_VERSIONS}; rebuild it")
        self.n = int(self.meta["papers"])
        self.years = np.load(self.path / "years.npy", mmap_mode="r")[: self.n]
        self.field_codes = np.load(self.path / "fields.npy", mmap_mode="r")[: self.n]
        self.field_names: list[str] = list(self.meta["fields"])
        self._offsets = np.load(self.path / "offsets.npy", mmap_mode="r")[: self.n + 1]

    def __len__(self) -> int:
        return self.n

    # ------------------------------------------------------------------ papers

    def papers(self, rows: Sequence[int] | np.ndarray) -> list[dict[str, Any]]:
        """Paper records of ``rows`` (in that order): ``id, title, abstract, year, field``."""
        out = []
        with open(self.path / "papers.jsonl", "rb") as fh:
            for r in rows:
                a, b = int(self._offsets[int(r)]), int(self._offsets[int(r) + 1])
                fh.seek(a)
                out.append(json.loads(fh.read(b - a)))
        return out

    def paper(self, row: int) -> dict[str, Any]:
        """One paper record."""
        return self.papers([row])[0]

    def iter_papers(self) -> Any:
        """Every paper record in row order (streamed)."""
        with open(self.path / "papers.jsonl", encoding="utf-8") as fh:
            for _, line in zip(range(self.n), fh):
                yield json.loads(line)

    def texts(self, rows: Sequence[int] | np.ndarray) -> list[str]:
        """Embedding/BM25 text (title and abstract, :func:`~noveval.corpus.paper_text`) of rows."""
        return [paper_text(p["title"], p["abstract"]) for p in self.papers(rows)]

    # ----------------------------------------------------------------- filters

    def mask(self, *, before_year: int | None = None, fields: Sequence[str] | None = None,
             exclude_ids: Sequence[str] | None = None) -> np.ndarray:
        """Rows kept by the filters (bool (n,)), applied before any ranking.

        Args:
            before_year: Keep papers published strictly before this year (unknown years are dropped).
            fields: Keep papers whose ``field`` is one of these (case-insensitive).
            exclude_ids: Drop papers with these ids (e.g. the query paper itself).
        """
        m = np.ones(self.n, dtype=bool)
        if before_year is not None:
            y = np.asarray(self.years)
            m &= (y > 0) & (y < before_year)
        if fields:
            want = {f.lower() for f in fields}
            codes = [i for i, name in enumerate(self.field_names) if name.lower() in want]
            m &= np.isin(np.asarray(self.field_codes), codes)
        if exclude_ids:
            drop = set(exclude_ids)
            for i, p in enumerate(self.iter_papers()):
                if p["id"] in drop:
                    m[i] = False
        return m

    # -------------------------------------------------------------------- BM25

    @cached_property
    def bm25(self) -> Any:
        """The lexical part: :class:`~noveval.index.lexical.LexicalIndex` (version 2), or the
        ``bm25s`` index of a version 1 folder (:class:`~noveval.index.bm25.BM25Index`)."""
        if self.meta.get("lexical"):
            return LexicalIndex.open(self.path / "lexical", self.meta["lexical"])

        known = set(BM25Params.__dataclass_fields__)
        return BM25Index.load(self.path / "bm25", BM25Params(**{k: v for k, v in self.meta["bm25"].items() if k in known}))

    def bm25_search(self, query: str, k: int, mask: np.ndarray | None = None, *,
                    prf: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """Top ``k`` rows by BM25 (filters before ranking); ``prf``: RM3 settings
        (:class:`~noveval.index.lexical.PRFParams`), version 2 indexes only."""
        if prf is None:
            return self.bm25.search(query, k, mask)  # type: ignore[no-any-return]
        if not self.meta.get("lexical"):
            raise InputError(self.path, None, "--prf", "pseudo-relevance feedback needs a version 2 index; rebuild it "
                             "(`noveval index build --overwrite`)")

        def texts(rows: Any) -> list[tuple[str, str]]:
            return [(p["title"], p["abstract"]) for p in self.papers(rows)]

        return self.bm25.search(query, k, mask, prf=prf, texts=texts)  # type: ignore[no-any-return]

    # ------------------------------------------------------------------- dense

    @property
    def embedder_id(self) -> str | None:
        """Model id of the embedder whose vectors the index holds (None: no dense part)."""
        e = self.meta.get("embedder")
        return e["id"] if e else None

    @property
    def dim(self) -> int | None:
        """Vector dimension (None: no dense part)."""
        e = self.meta.get("embedder")
        return int(e["dim"]) if e else None

    def has_dense(self) -> bool:
        """True when the index has a dense part (possibly not yet filled)."""
        return self.embedder_id is not None and (self.path / "vectors.f32").is_file()

    def vectors(self, writable: bool = False) -> np.memmap:
        """(n, dim) float32 memory map of the vectors (unfilled rows are zeros)."""
        if not self.has_dense():
            raise InputError(self.path, None, "embedder", "this index has no dense part; build it with -e EMBEDDER")
        return np.memmap(self.path / "vectors.f32", dtype=np.float32, mode="r+" if writable else "r",
                         shape=(self.n, int(self.dim or 0)))

    def done(self, writable: bool = False) -> np.memmap:
        """(n,) uint8 memory map: 1 where the row's vector is filled."""
        if not self.has_dense():
            raise InputError(self.path, None, "embedder", "this index has no dense part")
        return np.memmap(self.path / "vectors.done", dtype=np.uint8, mode="r+" if writable else "r", shape=(self.n,))

    def filled(self) -> np.ndarray:
        """Bool (n,): rows whose vector is present (all False without a dense part)."""
        if not self.has_dense():
            return np.zeros(self.n, dtype=bool)
        return np.asarray(self.done()).astype(bool)

    def dense_coverage(self, mask: np.ndarray | None = None) -> tuple[int, int]:
        """``(filled, total)`` over the rows of ``mask`` (all rows when None)."""
        f = self.filled()
        if mask is None:
            return int(f.sum()), self.n
        return int(f[mask].sum()), int(np.asarray(mask).sum())

    def describe(self) -> dict[str, Any]:
        """JSON-ready summary for ``noveval index info`` and run records."""
        y = np.asarray(self.years)
        known = y[y > 0]
        filled, _ = self.dense_coverage()
        fields: dict[str, int] = {}
        codes, counts = np.unique(np.asarray(self.field_codes), return_counts=True)
        for c, k in zip(codes, counts):
            fields[self.field_names[int(c)] or "(none)"] = int(k)
        return {
            "path": str(self.path), "papers": self.n, "sources": self.meta.get("sources", []),
            "year_min": int(known.min()) if len(known) else None, "year_max": int(known.max()) if len(known) else None,
            "unknown_year": int((y == 0).sum()), "fields": fields, "bm25": self.meta["bm25"],
            "format_version": self.meta.get("format_version"),
            "embedder": self.meta.get("embedder"), "dense_filled": filled,
            "ann": self.meta.get("ann"), "created": self.meta.get("created"), "updated": self.meta.get("updated"),
        }
