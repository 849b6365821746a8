"""``noveval check --index``: the grounded opinion against a persistent corpus index.

Differences from the corpus-file path (:func:`noveval.check.opinion.check_idea`), which
embeds every kept paper before answering:

* Retrieval is ``bm25``, ``dense`` or ``hybrid`` (RRF) over the index, filters applied
  before ranking (:func:`noveval.index.search.search`), optionally reranked by an LLM.
* The candidates are the BM25 top ``depth`` (at least the pool size, 300) kept papers;
  the dense ranking re-ranks them by exact cosine similarity (``dense_over="candidates"``)
  and hybrid fuses the two rankings. This holds whether the index's vectors are complete,
  half filled or absent: the pool, the evidence and the metrics are a function of the
  index's papers, the input and the options, never of how many vectors ``index embed``
  (or earlier queries, or the vector cache) happened to fill. Vectors the index holds are
  read from it, the others are embedded for this check (through the vector cache, never
  written into the index); both come from the same embedder and the same cache, so the
  similarities are the same numbers either way. How many the index lacked, and how many
  were computed now, is recorded under ``timings`` (it describes the index's state, not
  the answer).
* Metric results are cached by content (input vector, pool vectors, titles, settings), so
  repeating a check is fast (t-SNE and fastText are not refitted).
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from pathlib import Path
from typing import Any

import numpy as np

from noveval.check.inputs import CheckInput, load_input
from noveval.check.metrics import MetricResult, corpus_metrics
from noveval.check.opinion import CheckOptions, assemble, filter_phrase
from noveval.check.retrieve import Neighbour
from noveval.errors import InputError
from noveval.index.build import build_index
from noveval.index.rerank import rerank_hits
from noveval.index.search import row_vectors, search
from noveval.index.store import is_index, open_index
from noveval.models.chat import ChatClientProtocol
from noveval.models.types import EmbedderLike, as_embedder
from noveval.prompts import prompt_hashes
from noveval.settings import cache_dir
from noveval.store import open_db

__all__ = ["IndexView", "RetrievalOptions", "check_with_index", "open_or_build"]

log = logging.getLogger(__name__)


class IndexView:
    """The kept part of an index, with the interface abstention needs (``len``, ``known_years``).

    Args:
        idx: The index.
        mask: Rows kept by the filters.
        filters: The filters, for the record.
    """

    def __init__(self, idx: Any, mask: np.ndarray, filters: dict[str, Any]) -> None:
        self.idx, self.mask, self.filters = idx, mask, filters

    def __len__(self) -> int:
        return int(self.mask.sum())

    def known_years(self) -> list[int]:
        """Known years of the kept papers."""
        y = np.asarray(self.idx.years)[self.mask]
        return [int(v) for v in y[y > 0]]

    def summary(self) -> dict[str, Any]:
        """JSON-ready description in the corpus-file path's shape."""
        y = np.asarray(self.idx.years)[self.mask]
        y = y[y > 0]
        return {"path": str(self.idx.path), "index": True, "papers": len(self), "read": self.idx.n,
                "sampled_from": None, "year_min": int(y.min()) if len(y) else None,
                "year_max": int(y.max()) if len(y) else None, "filters": self.filters}


class RetrievalOptions:
    """How ``check --index`` retrieves.

    Args:
        mode: ``bm25``, ``dense`` or ``hybrid``.
        depth: BM25 candidates (at least the pool size) that the dense ranking re-ranks and
            hybrid fuses; their vectors come from the index or are embedded for the check.
        rrf_k: Reciprocal rank fusion constant.
        rerank: Chat model spec for listwise reranking, or None.
        rerank_depth: Candidates the reranker orders.
    """

    def __init__(self, mode: str = "hybrid", depth: int = 100, rrf_k: int = 60, rerank: str | None = None,
                 rerank_depth: int = 30) -> None:
        self.mode, self.depth, self.rrf_k, self.rerank, self.rerank_depth = mode, depth, rrf_k, rerank, rerank_depth

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready settings."""
        return dict(vars(self))


def open_or_build(index: str | Path, corpus: str | Path | None, embedder: EmbedderLike | None) -> tuple[Any, float | None]:
    """Open ``index``, or build it from ``corpus`` when the folder does not exist yet.

    Returns:
        ``(index, build seconds or None)``.
    """
    if is_index(index):
        return open_index(index), None
    if corpus is None:
        raise InputError(index, None, None, "no index here; pass --corpus to build it, or run `noveval index build`")
    t0 = time.perf_counter()
    idx = build_index(corpus, index, embedder=embedder, log=lambda s: log.info("index: %s", s))
    return idx, time.perf_counter() - t0


def _metric_cache() -> Any:
    return open_db(cache_dir() / "check_metrics.sqlite",
                   "CREATE TABLE IF NOT EXISTS metrics (key TEXT PRIMARY KEY, value TEXT NOT NULL);")


def _metrics_cached(focal: np.ndarray, title: str | None, pool: np.ndarray, titles: list[str],
                    opts: CheckOptions) -> list[MetricResult]:
    h = hashlib.sha256()
    h.update(np.ascontiguousarray(focal, dtype=np.float32).tobytes())
    h.update(np.ascontiguousarray(pool, dtype=np.float32).tobytes())
    h.update(json.dumps([title, titles, list(opts.metrics), opts.seed]).encode("utf-8"))
    key = h.hexdigest()
    db = _metric_cache()
    try:
        row = db.execute("SELECT value FROM metrics WHERE key=?", (key,)).fetchone()
        if row is not None:
            return [MetricResult(**m) for m in json.loads(row[0])]
        res = corpus_metrics(focal, title, pool, titles, metrics=opts.metrics, seed=opts.seed)
        db.execute("INSERT OR REPLACE INTO metrics (key, value) VALUES (?, ?)",
                   (key, json.dumps([m.to_dict() for m in res])))
        return res
    finally:
        db.close()


def _order(ropts: RetrievalOptions, embedder_id: str) -> str:
    how = {"bm25": "BM25 score", "dense": f"cosine similarity ({embedder_id})",
           "hybrid": f"reciprocal rank fusion (k = {ropts.rrf_k}) of the BM25 and dense ({embedder_id}) rankings"}
    return f"retrieval rank: {how[ropts.mode]}; [n] is the rank, similarity is the cosine ({embedder_id})"


def check_with_index(
    input: str | Path | CheckInput,
    index: str | Path,
    *,
    corpus: str | Path | None = None,
    options: CheckOptions | None = None,
    retrieval: RetrievalOptions | None = None,
    embedder: EmbedderLike | None = None,
    client: ChatClientProtocol | None = None,
    before_year: int | None = None,
    fields: list[str] | None = None,
) -> dict[str, Any]:
    """A grounded novelty opinion on one idea or paper against an index.

    Args:
        input: Path to the idea/paper or a loaded input.
        index: Index folder (built from ``corpus`` first when it does not exist).
        corpus: Corpus file to build the index from when needed.
        options: Check settings (:class:`CheckOptions`).
        retrieval: Retrieval settings (:class:`RetrievalOptions`).
        embedder: A ready embedder (default ``get_embedder(options.embedder)``).
        client: A ready chat client for the judgments.
        before_year, fields: Filters applied before ranking.

    Returns:
        The JSON-ready result (as :func:`noveval.check.opinion.check_idea`'s, plus ``retrieval``).
    """
    opts = options or CheckOptions()
    ropts = retrieval or RetrievalOptions()
    t0, c0 = time.perf_counter(), time.process_time()
    inp = input if isinstance(input, CheckInput) else load_input(input)
    emb = as_embedder(opts.embedder if embedder is None else embedder)
    timings: dict[str, Any] = {}
    idx, build_s = open_or_build(index, corpus, emb)
    if build_s is not None:
        timings["index_build_s"] = build_s
    mask = idx.mask(before_year=before_year, fields=fields)
    filters = {"before_year": before_year, "fields": list(fields or []) or None}
    if not mask.any():
        raise InputError(idx.path, None, "year" if before_year else "field", f"no paper left after the filters ({filters})")
    if idx.embedder_id is not None and idx.embedder_id != emb.model_id:
        raise InputError(idx.path, None, "embedder",
                         f"the index holds {idx.embedder_id} vectors; this check uses {emb.model_id} (-e)")
    t1, c1 = time.perf_counter(), time.process_time()
    text = inp.embedding_text()
    focal = np.asarray(emb.encode([text]), dtype=np.float32)[0]
    want = max(opts.pool_size, opts.top_k, ropts.rerank_depth if ropts.rerank else 0)
    res = search(idx, text, mode=ropts.mode, k=want, mask=mask, embedder=emb, qvec=focal,
                 depth=max(ropts.depth, opts.pool_size), rrf_k=ropts.rrf_k, dense_over="candidates")
    pool_hits = res.hits[:opts.pool_size]
    pool_rows = np.asarray([h.row for h in pool_hits], dtype=np.int64)
    vecs, missing, now = row_vectors(idx, emb, pool_rows)
    papers = idx.papers(pool_rows)
    ranked = [Neighbour(h.rank, h.row, float(h.similarity if h.similarity is not None else float(v @ focal)), p["id"],
                        p["title"], p["abstract"], p["year"] or None) for h, p, v in zip(pool_hits, papers, vecs)]
    shown, rerank_info = _rerank(ranked, res.hits, idx, text, opts, ropts)
    timings.update(retrieve_s=time.perf_counter() - t1, retrieve_cpu_s=time.process_time() - c1,
                   vectors_missing_from_index=max(res.missing_vectors, missing),
                   vectors_embedded_now=res.embedded_now + now, embed_missing_s=res.embed_s)
    t2 = time.perf_counter()
    metrics = _metrics_cached(focal, inp.title or None, vecs, [p["title"] for p in papers], opts)
    timings["metrics_s"] = time.perf_counter() - t2
    view = IndexView(idx, mask, filters)
    pool = f"the {len(pool_rows)} nearest {filter_phrase(before_year, fields)}papers by {ropts.mode} retrieval"
    summary = {**view.summary(), "metric_pool": int(len(pool_rows)), "metric_pool_source": pool,
               "embedder": emb.model_id}
    extra = {"retrieval": {**ropts.to_dict(), "depth": max(ropts.depth, opts.pool_size), "dense_method": res.dense_method,
                           "note": res.note, "rerank": rerank_info,
                           "ranks": [{"bm25": h.bm25_rank, "dense": h.dense_rank} for h in res.hits[:opts.top_k]]}}
    return assemble(inp, view, ranked, vecs, metrics, opts, corpus_summary=summary, client=client, embedder=emb,
                    before_year=before_year, timings=timings, t0=t0, c0=c0, order=_order(ropts, emb.model_id),
                    extra=extra, shown=shown)


def _rerank(ranked: list[Neighbour], hits: list[Any], idx: Any, text: str, opts: CheckOptions,
            ropts: RetrievalOptions) -> tuple[list[Neighbour], dict[str, Any] | None]:
    """The closest-prior-work list: the first ``top_k`` of the ranking, or of its LLM rerank."""
    if not ropts.rerank:
        return ranked[:opts.top_k], None
    from noveval.models.client import get_client

    rerank_prompt = prompt_hashes("index", ["rerank"])["rerank"]  # checks an override before the call
    rclient = get_client(ropts.rerank)
    top = hits[:ropts.rerank_depth]
    rr = rerank_hits(rclient, text, top, idx.papers([h.row for h in top]), depth=ropts.rerank_depth, seed=opts.seed)
    by_row = {n.index: n for n in ranked}
    shown = [by_row[h.row] for h in rr.hits if h.row in by_row][:opts.top_k]
    return shown, {"model": rclient.model_id, "depth": ropts.rerank_depth, "mentioned": rr.mentioned, "error": rr.error,
                   "prompt": rerank_prompt}
