"""Score papers' novelty against a reference pool with chosen metrics (``noveval novelty score``).

The pool is a corpus file (``--pool``, embedded once through the vector cache) or a
corpus index (``--index``, vectors read from the index, never re-embedded). Either way:

* ``before_year`` keeps pool papers published strictly before that year;
* ``prior_only`` gives every paper its own pool: the pool papers published strictly
  before *that paper's* year (so "prior" neighbours are prior), and a paper without a
  year is an input error;
* ``fields`` keeps pool papers of those ``field`` values (index pools).

Papers sharing the same pool are scored together (:func:`noveval.novelty.pool.score_group`).

An index pool whose vectors are missing is filled first (cached vectors copied, the rest
embedded). That can take hours on a CPU, so the time is measured before it starts: a
probe batch of the missing texts is embedded and timed, and when the rest would take
longer than :data:`EMBED_ASK_S` the call stops with the estimate unless
``embed_missing=True`` (``--embed-missing``) says to go on.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from noveval.corpus import iter_papers, paper_text
from noveval.errors import InputError
from noveval.index.build import fill_from_cache, fill_vectors
from noveval.index.store import open_index
from noveval.models.types import EmbedderLike, EmbedderProtocol, as_embedder
from noveval.novelty.pool import ScorePool, pool_limit, score_group

__all__ = ["EMBED_ASK_S", "load_papers", "score_papers", "index_pool", "fill_pool_vectors"]

EMBED_ASK_S = 600.0
"""Estimated embedding wall time (s) above which an index pool is filled only when asked."""

_PROBE = 64
"""Missing texts embedded (and kept) to measure the rate before estimating the rest."""


def load_papers(path: str | Path) -> list[dict[str, Any]]:
    """Papers of a JSONL(.gz) file (:func:`noveval.corpus.iter_papers`: every line, abstract may be empty).

    Raises:
        InputError: a missing title, a non-string abstract, a year that is not a year, no paper.
    """
    rows = list(iter_papers(path))
    if not rows:
        raise InputError(str(path), None, None, "no papers to score")
    return rows


def _groups(papers: list[dict[str, Any]], path: Path, prior_only: bool) -> dict[int | None, list[int]]:
    groups: dict[int | None, list[int]] = {}
    for i, p in enumerate(papers):
        if prior_only and p["year"] is None:
            raise InputError(str(path), p["line"], "year", "--prior-only needs every paper's year")
        groups.setdefault(p["year"] if prior_only else None, []).append(i)
    return groups


def score_papers(papers: Path, pool: Path | None = None, *, metrics: Sequence[str], embedder: EmbedderLike = "local",
                 top_k: int = 5, index: str | Path | None = None, before_year: int | None = None,
                 prior_only: bool = False, fields: Sequence[str] | None = None,
                 embed_missing: bool = False) -> list[dict]:
    """Scores of each paper against its pool, plus its ``top_k`` nearest pool papers.

    Args:
        papers: JSONL of papers to score (``title``, ``abstract``, optional ``id``, ``year``).
        pool: JSONL(.gz) reference pool (title, abstract, optional id, year), or None with ``index``.
        metrics: Metric names.
        embedder: Embedder spec or instance (must be the index's embedder with ``index``).
        top_k: Nearest pool papers listed per paper.
        index: Corpus index folder used as the pool (instead of ``pool``).
        before_year: Pool papers published strictly before this year only.
        prior_only: Each paper's pool: papers published strictly before its own year.
        fields: Pool papers of these fields only (index pools).
        embed_missing: Fill an index pool's missing vectors however long it takes (else a
            fill estimated over :data:`EMBED_ASK_S` stops first, see :func:`fill_pool_vectors`).

    Returns:
        One row per paper: ``id, title, scores, neighbours, pool`` (pool size and filters).
    """
    if (pool is None) == (index is None):
        raise InputError(None, None, "--pool", "give exactly one of --pool FILE and --index FOLDER")
    ppath = Path(papers)
    ps = load_papers(ppath)
    groups = _groups(ps, ppath, prior_only)
    emb = as_embedder(embedder)
    need_vec = any(m != "FastTextLOF" for m in metrics) or top_k > 0
    pvecs = (np.asarray(emb.encode([paper_text(p["title"], p["abstract"]) for p in ps],
                                        progress="embed papers")) if need_vec else None)
    out: list[dict[str, Any] | None] = [None] * len(ps)
    if index is not None:
        idx = open_index(index)
        if need_vec and idx.embedder_id != emb.model_id:
            raise InputError(idx.path, None, "embedder", f"the index holds {idx.embedder_id} vectors; "
                             f"scoring with {emb.model_id} (-e)")
        pools = {year: np.flatnonzero(idx.mask(before_year=pool_limit(before_year, year), fields=fields))
                 for year in groups}
        if need_vec:
            every = np.unique(np.concatenate(list(pools.values()))) if pools else np.zeros(0, dtype=np.int64)
            fill_pool_vectors(idx, emb, every, embed_missing=embed_missing)
        for year, members in groups.items():
            lim = pool_limit(before_year, year)
            rows = pools[year]
            sp = index_pool(idx, rows, need_vec)
            sp.note.update(before_year=lim, prior_only=prior_only, fields=list(fields or []) or None)
            _score_into(out, ps, members, pvecs, sp, metrics, top_k)
    else:
        pl = load_papers(Path(pool))  # type: ignore[arg-type]
        plv = (np.asarray(emb.encode([paper_text(p["title"], p["abstract"]) for p in pl],
                                          progress="embed pool")) if need_vec else None)
        pyears = np.asarray([p["year"] or 0 for p in pl])
        if (before_year is not None or prior_only) and not (pyears > 0).any():
            raise InputError(str(pool), None, "year", "year filters need pool papers with a year")
        for year, members in groups.items():
            lim = pool_limit(before_year, year)
            keep = np.arange(len(pl)) if lim is None else np.flatnonzero((pyears > 0) & (pyears < lim))
            sp = ScorePool(plv[keep] if plv is not None else None, [pl[j]["title"] for j in keep],
                           [pl[j]["id"] for j in keep], {"size": int(len(keep)), "before_year": lim,
                                                          "prior_only": prior_only})
            _score_into(out, ps, members, pvecs, sp, metrics, top_k)
    return [r for r in out if r is not None]


def fill_pool_vectors(idx: Any, embedder: EmbedderProtocol, rows: np.ndarray, *, embed_missing: bool = False,
                      ask_s: float | None = None) -> dict[str, Any]:
    """Fill the missing vectors of ``rows``, first measuring how long that will take.

    Cached vectors are copied first. If more than a probe batch is still missing, one
    batch is embedded (after a warm-up text, so model loading is not counted), its wall
    rate extrapolated to the rest, and the fill stops with that estimate unless
    ``embed_missing`` or the estimate is at most ``ask_s`` seconds (None = :data:`EMBED_ASK_S`).

    Returns:
        ``{"missing", "from_cache", "estimate_s"}`` (estimate None when nothing was probed).

    Raises:
        InputError: the estimate exceeds ``ask_s`` and ``embed_missing`` is False; the
            message gives the count, the measured rate, the estimate and the two ways on.
    """
    ask_s = EMBED_ASK_S if ask_s is None else ask_s
    rows = np.asarray(rows, dtype=np.int64)
    missing = rows[~idx.filled()[rows]] if len(rows) else rows
    info: dict[str, Any] = {"missing": int(len(missing)), "from_cache": 0, "estimate_s": None}
    if len(missing) == 0:
        return info
    info["from_cache"] = fill_from_cache(idx, embedder)
    missing = missing[~idx.filled()[missing]]
    if len(missing) > _PROBE + 1 and not embed_missing:
        fill_vectors(idx, embedder, missing[:1], progress=None)  # loads the model
        t0 = time.perf_counter()
        fill_vectors(idx, embedder, missing[1:_PROBE + 1], progress=None)
        rate = _PROBE / max(time.perf_counter() - t0, 1e-6)
        rest = len(missing) - _PROBE - 1
        info["estimate_s"] = rest / rate
        if info["estimate_s"] > ask_s:
            raise InputError(idx.path, None, "vectors", (
                f"{rest:,} pool papers have no vector; embedding them with {embedder.model_id} would take about "
                f"{_duration(info['estimate_s'])} here (measured now: {rate:.1f} texts/s on {_PROBE} of them). "
                f"Re-run with --embed-missing to do it now, or fill the index first with `noveval index embed "
                f"{idx.path}` (resumable)"))
    fill_vectors(idx, embedder, missing, progress="index: filling pool vectors")
    return info


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def index_pool(idx: Any, rows: np.ndarray, with_vectors: bool = True) -> ScorePool:
    """A :class:`ScorePool` of index rows (vectors read from the index's memory map)."""
    papers = idx.papers(rows)
    vecs = np.asarray(idx.vectors()[rows]) if with_vectors else None
    return ScorePool(vecs, [p["title"] for p in papers], [p["id"] for p in papers], {"size": int(len(rows))})


def _score_into(out: list, ps: list[dict[str, Any]], members: list[int], pvecs: np.ndarray | None,
                sp: ScorePool, metrics: Sequence[str], top_k: int) -> None:
    vecs = pvecs[members] if pvecs is not None else None
    res = score_group(vecs, [ps[i]["title"] for i in members], sp, metrics, top_k)
    for i, r in zip(members, res):
        out[i] = {"id": ps[i]["id"], "title": ps[i]["title"], **r, "pool": dict(sp.note)}
