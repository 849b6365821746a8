"""Retrieval over an index: ``bm25``, ``dense`` or ``hybrid`` (reciprocal rank fusion).

Filters (year, field, excluded ids) make a row mask that every mode applies *before*
ranking. Hybrid fuses the BM25 and dense rankings (each cut at ``depth`` rows) with
reciprocal rank fusion (Cormack, Clarke & Büttcher 2009):

``RRF(d) = sum over rankings r containing d of 1 / (k + rank_r(d))``, ranks from 1,
``k = 60`` by default; greater is better; ties broken by the best single rank, then row.

Reproducible by construction: the candidates are a function of the index, the query and
the options, never of what earlier queries did. A search never writes the index.

* When every kept row has a vector, dense search ranks all kept rows (exact, or HNSW).
* Otherwise the dense ranking is the BM25 top ``depth`` candidates re-ranked by cosine
  similarity, whatever other rows happen to have vectors. Candidates the index lacks a
  vector for are embedded for this query through the embedder (its vector cache keeps
  them, so a repeated query embeds nothing) and not stored in the index: the index only
  changes through ``noveval index build|add|embed``. The result says how many rows the
  index lacked (``missing_vectors``, a function of index and query) and how many the
  embedder had to compute this time (``embedded_now``, which depends on its cache).

With ``prf`` the BM25 ranking uses RM3 pseudo-relevance feedback
(:mod:`noveval.index.lexical`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np

from noveval.errors import InputError
from noveval.index.bm25 import rank_scores
from noveval.index.store import CorpusIndex
from noveval.models.types import EmbedderProtocol

__all__ = ["MODES", "Hit", "SearchResult", "rrf", "search", "query_vector", "row_vectors"]

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
        dense_method: ``exact``, ``hnsw``, ``rerank`` (BM25 candidates re-ranked; the
            index lacks vectors) or None (no dense ranking).
        missing_vectors: Rows this query needed whose vector the index lacks.
        embedded_now: Of those, how many the embedder computed now (the rest came from its
            vector cache); depends on the cache, not only on the index.
        embed_s: Seconds spent getting the missing vectors.
        note: How the dense part was covered, in words ("" when fully).
    """

    hits: list[Hit]
    mode: str
    kept: int
    dense_method: str | None = None
    missing_vectors: int = 0
    embedded_now: int = 0
    embed_s: float = 0.0
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def rows(self) -> list[int]:
        """Hit rows, best first."""
        return [h.row for h in self.hits]


def query_vector(idx: CorpusIndex, embedder: EmbedderProtocol, text: str) -> np.ndarray:
    """The query's embedding, refusing an embedder other than the index's."""
    if idx.embedder_id is not None and embedder.model_id != idx.embedder_id:
        raise InputError(idx.path, None, "embedder",
                         f"the index holds {idx.embedder_id} vectors; the query embedder is {embedder.model_id}")
    return np.asarray(embedder.encode([text]), dtype=np.float32)[0]


def row_vectors(idx: CorpusIndex, embedder: EmbedderProtocol | None, rows: Any,
                progress: str | None = "embedding papers the index has no vector for") -> tuple[np.ndarray, int, int]:
    """Vectors of ``rows`` (in order): from the index where filled, else through ``embedder``.

    Nothing is written into the index. Returns ``(vectors, rows the index lacked, rows the
    embedder computed now)`` (the difference came from its vector cache).
    """
    rows = np.asarray(rows, dtype=np.int64)
    dim = int(idx.dim or (embedder.dim if embedder is not None else 0) or 0)
    out = np.zeros((len(rows), dim), dtype=np.float32)
    if len(rows) == 0:
        return out, 0, 0
    filled = idx.filled()[rows] if idx.has_dense() else np.zeros(len(rows), dtype=bool)
    if filled.any():
        out[filled] = np.asarray(idx.vectors()[rows[filled]])
    missing = np.flatnonzero(~filled)
    computed = 0
    if len(missing):
        if embedder is None:
            raise InputError(idx.path, None, "--embedder", "vectors are missing from the index and no embedder was given")
        before = _encoded(embedder)
        out[missing] = np.asarray(embedder.encode(idx.texts(rows[missing]), progress=progress), dtype=np.float32)
        after = _encoded(embedder)
        computed = after - before if before is not None and after is not None else len(missing)
    return out, int(len(missing)), int(computed)


def _encoded(embedder: EmbedderProtocol) -> int | None:
    stats = getattr(embedder, "stats", None)
    return int(stats.get("encoded", 0)) if isinstance(stats, dict) else None


def _dense_ranking(idx: CorpusIndex, res: SearchResult, keep: np.ndarray, qvec: Any, embedder: EmbedderProtocol | None,
                   bm_rows: np.ndarray, deep: int, coverage: tuple[int, int] | None) -> tuple[np.ndarray, np.ndarray, dict[int, float]]:
    """The dense ranking: over every kept row when all have vectors, else the BM25 candidates re-ranked.

    ``coverage`` None: always the BM25 candidates re-ranked (``dense_over="candidates"``).
    Updates ``res`` (method, missing vectors, note); returns ``(rows, similarities, row -> similarity)``.
    """
    from noveval.index.dense import dense_search

    filled, total = coverage or (0, 0)
    if coverage is not None and idx.has_dense() and filled == total:
        rows, sims, res.dense_method = dense_search(idx, qvec, deep, keep)
        return rows, sims, {}
    vecs, res.missing_vectors, res.embedded_now = row_vectors(idx, embedder, bm_rows)
    cs = vecs @ np.asarray(qvec, dtype=np.float32) if len(bm_rows) else np.zeros(0, dtype=np.float32)
    order = np.argsort(bm_rows, kind="stable")  # ties by the lower row: rank_scores over the candidates in row order
    top = rank_scores(cs[order], deep, positive_only=False)
    res.dense_method = "rerank"
    res.note = (f"the dense ranking re-ranks the BM25 top {len(bm_rows)} by similarity, whatever vectors the "
                "index holds" if coverage is None else
                f"dense vectors cover {filled} of {total} kept papers, so the dense ranking re-ranks the "
                f"BM25 top {len(bm_rows)} by similarity ({res.missing_vectors} of them lacked a vector "
                "in the index and were embedded for this query)")
    return bm_rows[order][top], cs[order][top], {int(r): float(v) for r, v in zip(bm_rows, cs)}


def _check_args(idx: CorpusIndex, mode: str, dense_over: str, no_vectors: bool) -> None:
    """Refuse a search that cannot run (``no_vectors``: vectors are needed, but neither an embedder nor a query vector was given)."""
    if mode not in MODES:
        raise InputError(None, None, "--retrieval", f"must be one of {', '.join(MODES)}, got {mode!r}")
    if dense_over not in ("all", "candidates"):
        raise ValueError(f"dense_over must be 'all' or 'candidates', got {dense_over!r}")
    if no_vectors:
        raise InputError(None, None, "--embedder", f"{mode} retrieval needs an embedder")
    if mode != "bm25" and not idx.has_dense() and dense_over != "candidates":
        raise InputError(idx.path, None, "embedder",
                         f"{mode} retrieval needs a dense part; rebuild with -e EMBEDDER or use --retrieval bm25")


def search(
    idx: CorpusIndex,
    query: str,
    *,
    mode: str = "hybrid",
    k: int = 10,
    mask: np.ndarray | None = None,
    embedder: EmbedderProtocol | None = None,
    qvec: np.ndarray | None = None,
    depth: int = 100,
    rrf_k: int = 60,
    with_similarity: bool = True,
    prf: Any = None,
    dense_over: str = "all",
) -> SearchResult:
    """Rank the index's papers for a query text (see the module docstring).

    Args:
        idx: The index.
        query: Query text (title + abstract of a paper, or an idea's text).
        mode: ``bm25``, ``dense`` or ``hybrid``.
        k: Hits returned.
        mask: Rows kept by the filters (None: all); applied before ranking.
        embedder: Embedder for the query and for vectors the index lacks (dense/hybrid,
            and for similarities).
        qvec: The query vector, when already computed.
        depth: Rows taken from each ranking before fusion; with incomplete vectors, the
            BM25 candidates the dense ranking re-ranks.
        rrf_k: RRF constant.
        with_similarity: Give every hit its cosine similarity.
        prf: RM3 settings for the BM25 ranking (:class:`~noveval.index.lexical.PRFParams`), or None.
        dense_over: ``"all"``: the dense ranking covers every kept row when all have vectors
            (else the BM25 candidates); ``"candidates"``: always the BM25 top ``depth``
            re-ranked, so the hits do not depend on how many vectors the index holds
            (``noveval check``'s setting).

    Returns:
        A :class:`SearchResult`.
    """
    _check_args(idx, mode, dense_over, (mode != "bm25" or with_similarity) and embedder is None and qvec is None)
    keep = np.ones(idx.n, dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    kept = int(keep.sum())
    need_dense = mode != "bm25"
    res = SearchResult([], mode, kept)
    deep = max(depth, k)
    filled, total = idx.dense_coverage(keep) if idx.has_dense() else (0, kept)
    dense_complete = idx.has_dense() and filled == total and dense_over == "all"
    bm_rows = np.zeros(0, dtype=np.int64)
    bm_scores = np.zeros(0, dtype=np.float32)
    if mode != "dense" or not dense_complete:
        bm_rows, bm_scores = idx.bm25_search(query, deep, keep, prf=prf)
    if qvec is None and (need_dense or with_similarity) and embedder is not None:
        qvec = query_vector(idx, embedder, query)
    t0 = time.perf_counter()
    cover = (filled, total) if dense_over == "all" else None
    dense_rows, dense_sims, sims = _dense_ranking(idx, res, keep, qvec, embedder, bm_rows, deep, cover) \
        if need_dense else (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32), {})
    bm_rank = {int(r): i for i, r in enumerate(bm_rows, 1)}
    de_rank = {int(r): i for i, r in enumerate(dense_rows, 1)}
    if mode == "bm25":
        ranked = [(int(r), float(s)) for r, s in zip(bm_rows[:k], bm_scores[:k])]
    elif mode == "dense":
        ranked = [(int(r), float(s)) for r, s in zip(dense_rows[:k], dense_sims[:k])]
    else:
        ranked = rrf([list(bm_rows), list(dense_rows)], k=rrf_k)[:k]
    sims.update({int(r): float(s) for r, s in zip(dense_rows, dense_sims)})
    if with_similarity and qvec is not None:
        rows = np.asarray([r for r, _ in ranked if r not in sims], dtype=np.int64)
        if len(rows):
            vecs, miss, now = row_vectors(idx, embedder, rows)
            res.missing_vectors += miss
            res.embedded_now += now
            sims.update({int(r): float(v) for r, v in zip(rows, vecs @ np.asarray(qvec, dtype=np.float32))})
    res.embed_s = time.perf_counter() - t0
    res.hits = [Hit(r, i, s, bm_rank.get(r), de_rank.get(r), sims.get(r)) for i, (r, s) in enumerate(ranked, 1)]
    return res
