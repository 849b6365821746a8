"""Score papers' novelty against a reference pool with chosen metrics (``noveval novelty score``).

The pool is a corpus file (``--pool``, embedded once through the vector cache) or a
corpus index (``--index``, vectors read from the index, never re-embedded). Either way:

* ``before_year`` keeps pool papers published strictly before that year;
* ``prior_only`` gives every paper its own pool: the pool papers published strictly
  before *that paper's* year (so "prior" neighbours are prior), and a paper without a
  year is an input error;
* ``fields`` keeps pool papers of those ``field`` values (index pools).

Papers sharing the same pool are scored together. Yin and RND scale to 10^5-paper pools
(RND reads only its ``P`` neighbours' rows and remembers each pool paper's density);
SemNovel (one t-SNE of the pool per paper) and FastTextLOF (pairwise distances over the
pool) refuse pools above :data:`MAX_QUADRATIC_POOL` papers. Greater is more novel for
every metric.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from noveval.errors import InputError

__all__ = ["MAX_QUADRATIC_POOL", "ScorePool", "load_papers", "score_papers", "score_group", "RNDPool"]

MAX_QUADRATIC_POOL = 20_000
"""Largest pool SemNovel and FastTextLOF accept (their cost grows with the pool squared)."""


def _year(path: Path, line: int, v: Any) -> int | None:
    if v is None or (isinstance(v, str) and not v.strip()):
        return None
    try:
        y = int(v) if not isinstance(v, str) else int(v.strip()[:4])
    except (TypeError, ValueError):
        raise InputError(str(path), line, "year", f"must be a year such as 2024, got {v!r}") from None
    if isinstance(v, bool) or not 1000 <= y <= 3000:
        raise InputError(str(path), line, "year", f"must be a year such as 2024, got {v!r}")
    return y


def load_papers(path: Path) -> list[dict[str, Any]]:
    """Papers of a JSONL(.gz) file: ``{id, title, abstract, year}`` (year None when absent).

    Raises:
        InputError: a missing title, a non-string abstract, a year that is not a year.
    """
    from noveval.io import iter_jsonl

    rows: list[dict[str, Any]] = []
    for line, r in iter_jsonl(path):
        if not isinstance(r, dict) or not str(r.get("title") or "").strip():
            raise InputError(str(path), line, "title", "each paper needs a non-empty title")
        if not isinstance(r.get("abstract", ""), str | type(None)):
            raise InputError(str(path), line, "abstract", "must be a string")
        rows.append({"id": str(r.get("id", len(rows) + 1)), "title": str(r["title"]),
                     "abstract": r.get("abstract") or "", "year": _year(Path(path), line, r.get("year")),
                     "_line": line})
    if not rows:
        raise InputError(str(path), None, None, "no papers to score")
    return rows


class RNDPool:
    """RND against one fixed pool, reading only neighbour rows; equal to :meth:`RND.score`.

    The density ``ND(y)`` of a pool paper depends on the pool alone, so it is computed once
    per pool paper and reused across focal papers.

    Args:
        pool: (n, d) L2-normalised pool vectors.
        p, q: RND's neighbours and density neighbours (Wang et al.: 100, 50).
        block: Pool rows whose densities are computed per matrix product.
    """

    def __init__(self, pool: np.ndarray, *, p: int = 100, q: int = 50, block: int = 256) -> None:
        self.pool = np.asarray(pool)
        self.p, self.q, self.block = p, q, block
        self._nd: dict[int, float] = {}

    def _densities(self, rows: np.ndarray) -> np.ndarray:
        from noveval.novelty.knn import pairwise_cosine_distance, smallest_k_mean

        n = len(self.pool)
        need = [int(r) for r in rows if int(r) not in self._nd]
        for s in range(0, len(need), self.block):
            part = np.asarray(need[s:s + self.block], dtype=np.int64)
            d = pairwise_cosine_distance(self.pool[part], self.pool)
            d[np.arange(len(part)), part] = np.inf
            for r, v in zip(part, smallest_k_mean(d, min(self.q, n - 1))):
                self._nd[int(r)] = float(v)
        return np.asarray([self._nd[int(r)] for r in rows])

    def score(self, focal: np.ndarray) -> float:
        """RND in [0, 100] of one focal vector (NaN for pools under 2 papers)."""
        from noveval.novelty.knn import nearest_indices, pairwise_cosine_distance, smallest_k_mean

        n = len(self.pool)
        if n < 2:
            return float("nan")
        d_f = pairwise_cosine_distance(np.asarray(focal)[None, :], self.pool)[0]
        pos = nearest_indices(d_f, self.p)
        if len(pos) == 0:
            return float("nan")
        nd_f = smallest_k_mean(d_f[None, :], min(self.q, n))[0]
        return float(100.0 * np.mean(self._densities(pos) < nd_f))


@dataclass
class ScorePool:
    """A pool: vectors (for embedding metrics), titles, and the caller's ids for its rows."""

    vectors: np.ndarray | None
    titles: list[str]
    ids: list[str]
    note: dict[str, Any]


def score_group(vecs: np.ndarray | None, titles: Sequence[str], pool: ScorePool, metrics: Sequence[str],
                top_k: int) -> list[dict[str, Any]]:
    """Scores and nearest pool papers of papers that share ``pool``.

    Args:
        vecs: (m, d) paper vectors (None when no embedding metric or neighbour list is needed).
        titles: The papers' titles.
        pool: Their pool.
        metrics: Metric names (``Yin``, ``RND``, ``SemNovel``, ``FastTextLOF``).
        top_k: Nearest pool papers listed per paper.

    Returns:
        Per paper ``{"scores": {metric: value}, "neighbours": [...]}``.
    """
    from noveval.novelty import get_metric
    from noveval.novelty.knn import nearest_indices, pairwise_cosine_distance

    m = len(titles)
    n = len(pool.titles)
    scores: dict[str, np.ndarray] = {}
    for name in metrics:
        metric = get_metric(name)
        if name in ("SemNovel", "FastTextLOF") and n > MAX_QUADRATIC_POOL:
            raise InputError(None, None, "--metric", f"{name} needs work quadratic in the pool; this pool has {n} papers "
                             f"(at most {MAX_QUADRATIC_POOL}); narrow it with --field/--before-year or drop {name}")
        if n == 0:
            scores[name] = np.full(m, np.nan)
        elif metric.inputs == "title":
            scores[name] = np.asarray(metric.score_many(list(titles), pool.titles), dtype=np.float64)
        elif name == "RND":
            rp = RNDPool(pool.vectors, p=getattr(metric, "p", 100), q=getattr(metric, "q", 50))  # type: ignore[arg-type]
            scores[name] = np.asarray([rp.score(v) for v in vecs])  # type: ignore[union-attr]
        else:
            scores[name] = np.asarray(metric.score_many(vecs, pool.vectors), dtype=np.float64)  # type: ignore[arg-type]
    out = []
    for i in range(m):
        nbrs: list[dict[str, Any]] = []
        if top_k and n and vecs is not None and pool.vectors is not None:
            d = pairwise_cosine_distance(vecs[i][None, :], pool.vectors)[0]
            nbrs = [{"id": pool.ids[j], "title": pool.titles[j], "similarity": float(1.0 - d[j])}
                    for j in nearest_indices(d, top_k)]
        out.append({"scores": {k: float(v[i]) for k, v in scores.items()}, "neighbours": nbrs})
    return out


def _groups(papers: list[dict[str, Any]], path: Path, prior_only: bool) -> dict[int | None, list[int]]:
    groups: dict[int | None, list[int]] = {}
    for i, p in enumerate(papers):
        if prior_only and p["year"] is None:
            raise InputError(str(path), p["_line"], "year", "--prior-only needs every paper's year")
        groups.setdefault(p["year"] if prior_only else None, []).append(i)
    return groups


def _pool_limit(before_year: int | None, year: int | None) -> int | None:
    lims = [y for y in (before_year, year) if y is not None]
    return min(lims) if lims else None


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
    from noveval.benchmarks.axioms.pools import paper_text

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
            lim = _pool_limit(before_year, year)
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
            lim = _pool_limit(before_year, year)
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
