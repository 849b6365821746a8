"""Dense search over the index's vectors: exact inner product, or faiss HNSW when built.

Rows are L2-normalised, so inner product = cosine similarity (range [-1, 1], greater is
closer). Exact search is one matrix-vector product over the memory-mapped matrix,
restricted to the rows a filter keeps, with ties broken by the lower row. An HNSW index
(``faiss.IndexHNSWFlat``, inner product) is built by :func:`build_ann`, which measures its
recall@10 against exact search on sampled queries and records it in ``index.json``; it is
used when it exists and the filter keeps at least ``ANN_MIN_KEPT`` of the rows (a narrow
filter searches its rows exactly: HNSW with a selective filter loses recall).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from noveval.errors import ConfigError, InputError
from noveval.index.bm25 import rank_scores
from noveval.index.store import CorpusIndex

__all__ = ["exact_search", "dense_search", "build_ann", "ann_recall", "ANN_MIN_KEPT", "ANN_AUTO_ROWS"]

ANN_MIN_KEPT = 0.5
"""Smallest share of rows a filter may keep for the HNSW index to be used."""

ANN_AUTO_ROWS = 500_000
"""``index build --ann auto`` builds HNSW from this many rows on (exact below)."""


def _faiss() -> Any:
    try:
        import faiss
    except ImportError as e:
        raise ConfigError("approximate search needs faiss-cpu: pip install 'noveval[index]'") from e
    return faiss


def exact_search(matrix: np.ndarray, query: np.ndarray, k: int, rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Exact top-``k`` rows by inner product, best first (ties: lower row first).

    Args:
        matrix: (n, d) vectors (a memory map is fine).
        query: (d,) query vector.
        k: How many rows.
        rows: Candidate rows (None = all).

    Returns:
        ``(rows, similarities)``.
    """
    q = np.asarray(query, dtype=np.float32)
    if rows is None:
        sims = np.asarray(matrix @ q, dtype=np.float32)
        top = rank_scores(sims, k, positive_only=False)
        return top, sims[top]
    rows = np.asarray(rows, dtype=np.int64)
    if len(rows) == 0:
        return rows, np.zeros(0, dtype=np.float32)
    rows = np.sort(rows)
    sims = np.asarray(np.asarray(matrix[rows]) @ q, dtype=np.float32)
    top = rank_scores(sims, k, positive_only=False)
    return rows[top], sims[top]


def _load_ann(idx: CorpusIndex) -> Any:
    cached = getattr(idx, "_ann", None)
    if cached is None:
        faiss = _faiss()
        cached = faiss.read_index(str(idx.path / "ann.faiss"))
        cached.hnsw.efSearch = int((idx.meta.get("ann") or {}).get("ef_search", 128))
        idx._ann = cached  # type: ignore[attr-defined]
    return cached


def dense_search(idx: CorpusIndex, query: np.ndarray, k: int, mask: np.ndarray | None = None,
                 *, use_ann: bool = True) -> tuple[np.ndarray, np.ndarray, str]:
    """Top ``k`` filled rows of ``mask`` for ``query``; returns ``(rows, sims, method)``.

    ``method`` is ``"exact"`` or ``"hnsw"`` (the latter only when an ANN index exists,
    covers every row, and ``mask`` keeps at least :data:`ANN_MIN_KEPT` of them).
    """
    filled = idx.filled()
    keep = filled if mask is None else (filled & np.asarray(mask, dtype=bool))
    n_keep = int(keep.sum())
    ann = idx.meta.get("ann")
    if use_ann and ann and (idx.path / "ann.faiss").exists() and ann.get("rows") == idx.n \
            and n_keep >= ANN_MIN_KEPT * idx.n:
        faiss = _faiss()
        index = _load_ann(idx)
        q = np.asarray(query, dtype=np.float32)[None, :]
        params = None
        if n_keep < idx.n:
            bits = np.packbits(keep, bitorder="little")
            params = faiss.SearchParametersHNSW(sel=faiss.IDSelectorBitmap(idx.n, faiss.swig_ptr(bits)),
                                                efSearch=index.hnsw.efSearch)
        sims, ids = index.search(q, k, params=params) if params is not None else index.search(q, k)
        ok = ids[0] >= 0
        return ids[0][ok].astype(np.int64), sims[0][ok].astype(np.float32), "hnsw"
    rows = None if n_keep == idx.n else np.flatnonzero(keep)
    r, s = exact_search(idx.vectors(), query, k, rows)
    return r, s, "exact"


def ann_recall(matrix: np.ndarray, index: Any, *, queries: int = 200, k: int = 10, seed: int = 0) -> float:
    """Mean recall@k of an ANN index against exact search, queries = sampled rows (self excluded)."""
    rng = np.random.default_rng(seed)
    qrows = rng.choice(len(matrix), size=min(queries, len(matrix)), replace=False)
    q = np.asarray(matrix[qrows], dtype=np.float32)
    _, ids = index.search(q, k + 1)
    hits = []
    for j, r in enumerate(qrows):
        exact, _ = exact_search(matrix, q[j], k + 1)
        truth = [int(x) for x in exact if x != r][:k]
        got = [int(x) for x in ids[j] if x != r and x >= 0][:k]
        hits.append(len(set(truth) & set(got)) / max(len(truth), 1))
    return float(np.mean(hits))


def build_ann(idx: CorpusIndex, *, m: int = 32, ef_construction: int = 200, ef_search: int = 128,
              recall_queries: int = 200, seed: int = 0) -> dict[str, Any]:
    """Build the HNSW index over all vectors, measure recall@10 against exact, record it.

    Raises:
        ConfigError: faiss missing.
        InputError: dense part incomplete (fill it first).
    """
    faiss = _faiss()
    filled, total = idx.dense_coverage()
    if filled < total:
        raise InputError(idx.path, None, "vectors", f"only {filled} of {total} vectors are filled; "
                         "run `noveval index embed` first")
    mat = np.ascontiguousarray(idx.vectors())
    t0 = time.perf_counter()
    index = faiss.IndexHNSWFlat(mat.shape[1], m, faiss.METRIC_INNER_PRODUCT)
    index.hnsw.efConstruction = ef_construction
    index.add(mat)
    build_s = time.perf_counter() - t0
    index.hnsw.efSearch = ef_search
    recall = ann_recall(mat, index, queries=recall_queries, seed=seed)
    faiss.write_index(index, str(idx.path / "ann.faiss"))
    info = {"kind": "hnsw", "m": m, "ef_construction": ef_construction, "ef_search": ef_search,
            "rows": idx.n, "build_s": round(build_s, 2), "recall_at_10": round(recall, 4),
            "recall_queries": recall_queries}
    meta = dict(idx.meta)
    meta["ann"] = info
    tmp = Path(idx.path) / "index.json.tmp"
    tmp.write_text(json.dumps(meta, indent=2, ensure_ascii=False), encoding="utf-8")
    tmp.replace(Path(idx.path) / "index.json")
    idx.meta = meta
    return info
