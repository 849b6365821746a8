"""Retrieval over an index: ``bm25``, ``dense`` or ``hybrid`` (reciprocal rank fusion).

Filters (year, field, excluded ids) make a row mask that every mode applies *before*
ranking. Hybrid fuses the BM25 and dense rankings (each cut at ``depth`` rows) with
reciprocal rank fusion (Cormack, Clarke & Büttcher 2009):

``RRF(d) = sum over rankings r containing d of 1 / (k + rank_r(d))``, ranks from 1,
``k = 60`` by default; greater is better; ties broken by the best single rank, then row.

When the index's dense part is not filled for every kept row, dense search covers the
rows that have vectors plus the BM25 top ``depth`` candidates, whose vectors are embedded
now (and stored in the index when it is writable): the answer needs embeddings of only
those candidates, never of the whole corpus. The result says so in ``note``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np

from noveval.errors import InputError
from noveval.index.store import CorpusIndex

__all__ = ["MODES", "Hit", "SearchResult", "rrf", "search", "query_vector"]

Mode = Literal["bm25", "dense", "hybrid"]
MODES: tuple[str, ...] = ("bm25", "dense", "hybrid")


def rrf(rankings: Sequence[Sequence[int]], k: int = 60) -> list[tuple[int, float]]:
    """Reciprocal rank fusion of ranked row lists.

    Args:
        rankings: Each a list of rows, best first (a row appears at most once per list).
        k: RRF constant (Cormack et al.: 60).

    Returns:
        ``(row, fused score)`` best first; score range (0, len(rankings)/(k+1)].
    """
    score: dict[int, float] = {}
    best: dict[int, int] = {}
    for ranking in rankings:
        for r, row in enumerate(ranking, 1):
            row = int(row)
            score[row] = score.get(row, 0.0) + 1.0 / (k + r)
            best[row] = min(best.get(row, r), r)
    return sorted(score.items(), key=lambda x: (-x[1], best[x[0]], x[0]))


@dataclass
class Hit:
    """One retrieved paper.

    Attributes:
        row: Row in the index.
        rank: 1-based rank in the final list.
        score: The ranking's score (BM25 score, cosine similarity or RRF score).
        bm25_rank: Rank in the BM25 list (None: not in it).
        dense_rank: Rank in the dense list (None: not in it).
        similarity: Cosine similarity to the query (None: no vector for the row).
    """

    row: int
    rank: int
    score: float
    bm25_rank: int | None = None
    dense_rank: int | None = None
    similarity: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)


@dataclass
class SearchResult:
    """Ranked hits and how they were found.

    Attributes:
        hits: Best first.
        mode: ``bm25``, ``dense`` or ``hybrid``.
        kept: Rows the filters kept.
        dense_method: ``exact``, ``hnsw`` or None (no dense ranking).
        embedded_now: Candidate rows embedded for this query (missing vectors).
        note: How the dense part was covered, in words ("" when fully).
    """

    hits: list[Hit]
    mode: str
    kept: int
    dense_method: str | None = None
    embedded_now: int = 0
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def rows(self) -> list[int]:
        """Hit rows, best first."""
        return [h.row for h in self.hits]


def query_vector(idx: CorpusIndex, embedder: Any, text: str) -> np.ndarray:
    """The query's embedding, refusing an embedder other than the index's."""
    if idx.embedder_id is not None and embedder.model_id != idx.embedder_id:
        raise InputError(idx.path, None, "embedder",
                         f"the index holds {idx.embedder_id} vectors; the query embedder is {embedder.model_id}")
    return np.asarray(embedder.encode([text]), dtype=np.float32)[0]


def _ensure_vectors(idx: CorpusIndex, embedder: Any, rows: np.ndarray) -> tuple[dict[int, np.ndarray], int]:
    """Vectors of ``rows``: from the index where filled, embedded now otherwise (stored when writable)."""
    filled = idx.filled()
    out: dict[int, np.ndarray] = {}
    have = [int(r) for r in rows if filled[r]]
    if have:
        vec = idx.vectors()
        for r in have:
            out[r] = np.asarray(vec[r])
    missing = np.asarray([int(r) for r in rows if not filled[r]], dtype=np.int64)
    if len(missing):
        from noveval.index.build import fill_vectors

        try:
            fill_vectors(idx, embedder, missing, progress="search: embedding candidates")
            vec = idx.vectors()
            for r in missing:
                out[int(r)] = np.asarray(vec[r])
        except OSError:  # read-only index: embed without storing
            embs = embedder.encode(idx.texts(missing))
            for r, v in zip(missing, embs):
                out[int(r)] = np.asarray(v)
    return out, int(len(missing))


def search(
    idx: CorpusIndex,
    query: str,
    *,
    mode: str = "hybrid",
    k: int = 10,
    mask: np.ndarray | None = None,
    embedder: Any = None,
    qvec: np.ndarray | None = None,
    depth: int = 100,
    rrf_k: int = 60,
    with_similarity: bool = True,
) -> SearchResult:
    """Rank the index's papers for a query text.

    Args:
        idx: The index.
        query: Query text (title + abstract of a paper, or an idea's text).
        mode: ``bm25``, ``dense`` or ``hybrid``.
        k: Hits returned.
        mask: Rows kept by the filters (None: all); applied before ranking.
        embedder: Embedder for the query and for missing candidate vectors (dense/hybrid,
            and for similarities).
        qvec: The query vector, when already computed.
        depth: Rows taken from each ranking before fusion, and BM25 candidates embedded
            when the dense part is incomplete.
        rrf_k: RRF constant.
        with_similarity: Give every hit its cosine similarity (embeds hit rows lacking a vector).

    Returns:
        A :class:`SearchResult`.
    """
    if mode not in MODES:
        raise InputError(None, None, "--retrieval", f"must be one of {', '.join(MODES)}, got {mode!r}")
    keep = np.ones(idx.n, dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    kept = int(keep.sum())
    need_dense = mode != "bm25"
    if (need_dense or with_similarity) and embedder is None and qvec is None:
        raise InputError(None, None, "--embedder", f"{mode} retrieval needs an embedder")
    if need_dense and not idx.has_dense():
        raise InputError(idx.path, None, "embedder",
                         f"{mode} retrieval needs a dense part; rebuild with -e EMBEDDER or use --retrieval bm25")
    res = SearchResult([], mode, kept)
    deep = max(depth, k)
    bm_rows = np.zeros(0, dtype=np.int64)
    bm_scores = np.zeros(0, dtype=np.float32)
    dense_complete = idx.has_dense() and idx.dense_coverage(keep)[0] == kept
    if mode != "dense" or not dense_complete:
        bm_rows, bm_scores = idx.bm25.search(query, deep, keep)
    if qvec is None and (need_dense or with_similarity) and embedder is not None:
        qvec = query_vector(idx, embedder, query)
    dense_rows = np.zeros(0, dtype=np.int64)
    dense_sims = np.zeros(0, dtype=np.float32)
    vecs: dict[int, np.ndarray] = {}
    if need_dense:
        from noveval.index.dense import dense_search, exact_search

        filled, total = idx.dense_coverage(keep)
        if dense_complete:
            dense_rows, dense_sims, res.dense_method = dense_search(idx, qvec, deep, keep)  # type: ignore[arg-type]
        else:
            vecs, res.embedded_now = _ensure_vectors(idx, embedder, bm_rows)
            cand = np.union1d(np.flatnonzero(keep & idx.filled()), bm_rows)
            dense_rows, dense_sims = exact_search(idx.vectors(), qvec, deep, cand)  # type: ignore[arg-type]
            res.dense_method = "exact"
            res.note = (f"dense vectors cover {filled} of {total} kept papers; dense ranking searched those plus "
                        f"the BM25 top {len(bm_rows)} candidates ({res.embedded_now} embedded now)")
    bm_rank = {int(r): i for i, r in enumerate(bm_rows, 1)}
    de_rank = {int(r): i for i, r in enumerate(dense_rows, 1)}
    if mode == "bm25":
        ranked = [(int(r), float(s)) for r, s in zip(bm_rows[:k], bm_scores[:k])]
    elif mode == "dense":
        ranked = [(int(r), float(s)) for r, s in zip(dense_rows[:k], dense_sims[:k])]
    else:
        ranked = rrf([list(bm_rows), list(dense_rows)], k=rrf_k)[:k]
    sims: dict[int, float] = {int(r): float(s) for r, s in zip(dense_rows, dense_sims)}
    if with_similarity and qvec is not None and idx.has_dense():
        rows = np.asarray([r for r, _ in ranked if r not in sims], dtype=np.int64)
        if len(rows):
            more, n_new = _ensure_vectors(idx, embedder, rows) if embedder is not None else ({}, 0)
            res.embedded_now += n_new
            for r, v in more.items():
                sims[r] = float(np.dot(v, qvec))
    elif with_similarity and qvec is not None and embedder is not None:  # BM25-only index
        rows = np.asarray([r for r, _ in ranked], dtype=np.int64)
        if len(rows):
            for r, v in zip(rows, embedder.encode(idx.texts(rows))):
                sims[int(r)] = float(np.dot(v, qvec))
    res.hits = [Hit(r, i, s, bm_rank.get(r), de_rank.get(r), sims.get(r)) for i, (r, s) in enumerate(ranked, 1)]
    return res
