"""Score papers' novelty against a reference pool with chosen metrics (``noveval novelty score``).

The pool is a corpus file (``--pool``, embedded once through the vector cache) or a
corpus index (``--index``, vectors read from the index, never re-embedded). Either way:

* ``before_year`` keeps pool papers published strictly before that year;
* ``prior_only`` gives every paper its own pool: the pool papers published strictly
  before *that paper's* year (so "prior" neighbours are prior), and a paper without a
  year is an input error;
* ``fields`` keeps pool papers of those ``field`` values (index pools).

Papers sharing the same pool are scored together (:func:`noveval.novelty.pool.score_group`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from noveval.errors import InputError
from noveval.novelty.pool import ScorePool, pool_limit, score_group

__all__ = ["load_papers", "score_papers", "index_pool"]


def load_papers(path: str | Path) -> list[dict[str, Any]]:
    """Papers of a JSONL(.gz) file (:func:`noveval.corpus.iter_papers`: every line, abstract may be empty).

    Raises:
        InputError: a missing title, a non-string abstract, a year that is not a year, no paper.
    """
    from noveval.corpus import iter_papers

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


def score_papers(papers: Path, pool: Path | None = None, *, metrics: Sequence[str], embedder: str | object = "local",
                 top_k: int = 5, index: str | Path | None = None, before_year: int | None = None,
                 prior_only: bool = False, fields: Sequence[str] | None = None) -> list[dict]:
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

    Returns:
        One row per paper: ``id, title, scores, neighbours, pool`` (pool size and filters).
    """
    from noveval.corpus import paper_text

    if (pool is None) == (index is None):
        raise InputError(None, None, "--pool", "give exactly one of --pool FILE and --index FOLDER")
    ppath = Path(papers)
    ps = load_papers(ppath)
    groups = _groups(ps, ppath, prior_only)
    if isinstance(embedder, str):
        from noveval.models.embed import get_embedder

        embedder = get_embedder(embedder)
    need_vec = any(m != "FastTextLOF" for m in metrics) or top_k > 0
    pvecs = (np.asarray(embedder.encode([paper_text(p["title"], p["abstract"]) for p in ps],  # type: ignore[attr-defined]
                                        progress="embed papers")) if need_vec else None)
    out: list[dict[str, Any] | None] = [None] * len(ps)
    if index is not None:
        from noveval.index.build import fill_vectors
        from noveval.index.store import open_index

        idx = open_index(index)
        if need_vec and idx.embedder_id != embedder.model_id:  # type: ignore[attr-defined]
            raise InputError(idx.path, None, "embedder", f"the index holds {idx.embedder_id} vectors; "
                             f"scoring with {embedder.model_id} (-e)")  # type: ignore[attr-defined]
        for year, members in groups.items():
            lim = pool_limit(before_year, year)
            rows = np.flatnonzero(idx.mask(before_year=lim, fields=fields))
            if need_vec:
                fill_vectors(idx, embedder, rows, progress="index: filling pool vectors")
            sp = index_pool(idx, rows, need_vec)
            sp.note.update(before_year=lim, prior_only=prior_only, fields=list(fields or []) or None)
            _score_into(out, ps, members, pvecs, sp, metrics, top_k)
    else:
        pl = load_papers(Path(pool))  # type: ignore[arg-type]
        plv = (np.asarray(embedder.encode([paper_text(p["title"], p["abstract"]) for p in pl],  # type: ignore[attr-defined]
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
