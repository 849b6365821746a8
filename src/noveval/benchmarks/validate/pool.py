"""Prior-only reference pools and retrieval for ``noveval validate``.

Every predictor of a paper's novelty may use only what existed before it: the candidates
for a paper published in year Y are the corpus papers with a known year strictly before
Y (the NeurIPS 2025 papers, which the shared corpus also lists under 2025, are never
candidates for each other), and a corpus paper whose normalised title equals the focal
paper's is dropped too (an earlier listing of the same paper must not be its own
neighbour). Retrieval is exact cosine kNN over the candidates' title+abstract
embeddings (the embedder's vector cache makes re-runs free).

Two pool modes (the ``pool`` option):

* ``neighbours`` (default): the paper's ``pool_size`` most similar candidates, from all
  fields unless ``field`` restricts them. Every metric sees the paper's local
  neighbourhood; Yin (q = 0) then equals 1 - max similarity exactly.
* ``field``: candidates of the paper's field (``field``, or the field of the paper's own
  corpus record, matched by title), a seeded random sample of ``pool_size`` of them
  shared by every paper with the same year and field.

The retrieval signals (max and top-k mean similarity, year of the nearest neighbour) and
the related works shown to LLM judges always come from retrieval over all candidates.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from noveval.benchmarks.validate.options import MAX_POOL
from noveval.corpus import normalize_title, paper_text
from noveval.errors import InputError
from noveval.models.embed import text_hash
from noveval.models.types import EmbedderProtocol

__all__ = ["POOL_MODES", "MAX_POOL", "Candidates", "Retrieval", "build_candidates", "retrieve", "field_pools",
           "excluded_titles"]

POOL_MODES = ("neighbours", "field")


@dataclass
class Candidates:
    """Corpus papers that can be prior work, with their embeddings.

    Attributes:
        rows: Row of each candidate in the corpus.
        ids, titles, abstracts, fields: Per candidate.
        years: (n,) publication years.
        emb: (n, d) float32 L2-normalised title+abstract embeddings.
        text_hashes: SHA-256 of each candidate's embedding text (pool content keys).
        summary: What was kept and dropped, for the run config.
    """

    rows: np.ndarray
    ids: list[str]
    titles: list[str]
    abstracts: list[str]
    years: np.ndarray
    fields: list[str]
    emb: np.ndarray
    text_hashes: list[str]
    summary: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.ids)

    def pool_key(self, idx: Sequence[int] | np.ndarray) -> str:
        """Content key of a pool (the texts of its papers, in order)."""
        h = hashlib.sha1()
        for i in idx:
            h.update(self.text_hashes[int(i)].encode())
        return h.hexdigest()


def build_candidates(
    corpus: Any,
    embedder: EmbedderProtocol,
    *,
    before_year: int,
    field: str | None = None,
    max_corpus: int | None = None,
    seed: int = 0,
) -> Candidates:
    """Corpus papers published before ``before_year`` (with an abstract), embedded.

    Args:
        corpus: A :class:`noveval.corpus.Corpus`.
        embedder: An :class:`noveval.models.embed.Embedder`.
        before_year: Keep papers with a known year strictly before it (the newest focal year).
        field: Keep only this corpus ``field`` (None: all).
        max_corpus: Seeded random sample of at most this many candidates (quick runs).
        seed: Sample seed.

    Raises:
        InputError: no candidate left.
    """
    years = np.asarray(corpus.years)
    keep = (years > 0) & (years < before_year)
    keep &= np.array([bool(a.strip()) for a in corpus.abstracts], dtype=bool)
    if field is not None:
        keep &= np.array([f.lower() == field.lower() for f in corpus.fields], dtype=bool)
    rows = np.flatnonzero(keep)
    sampled_from = None
    if max_corpus is not None and len(rows) > max_corpus:
        sampled_from = len(rows)
        rows = np.sort(np.random.default_rng(seed).choice(rows, size=max_corpus, replace=False))
    if len(rows) == 0:
        raise InputError(None, None, "options.field" if field else "year",
                         f"no corpus paper published before {before_year}" + (f" in field {field!r}" if field else ""))
    texts = [paper_text(corpus.titles[i], corpus.abstracts[i]) for i in rows]
    emb = np.asarray(embedder.encode(texts, batch_size=64, progress="validate: embedding prior corpus"), dtype=np.float32)
    summary = {"corpus_papers": len(corpus), "candidates": int(len(rows)), "before_year": before_year,
               "field": field, "sampled_from": sampled_from,
               "year_min": int(years[rows].min()), "year_max": int(years[rows].max())}
    return Candidates(rows=rows, ids=[corpus.ids[i] for i in rows], titles=[corpus.titles[i] for i in rows],
                      abstracts=[corpus.abstracts[i] for i in rows], years=years[rows],
                      fields=[corpus.fields[i] for i in rows], emb=emb, text_hashes=[text_hash(t) for t in texts],
                      summary=summary)


@dataclass
class Retrieval:
    """Each focal paper's nearest prior candidates (most similar first).

    Attributes:
        idx: (m, k) candidate positions; -1 pads a row with fewer eligible candidates.
        sim: (m, k) cosine similarities (NaN where padded).
        self_matches: Focal papers that had a same-title candidate removed.
    """

    idx: np.ndarray
    sim: np.ndarray
    self_matches: int = 0

    def neighbours(self, i: int, k: int | None = None) -> np.ndarray:
        """Candidate positions of focal ``i``'s ``k`` nearest (all retrieved when None)."""
        row = self.idx[i]
        row = row[row >= 0]
        return row if k is None else row[:k]


def excluded_titles(cands: Candidates, focal_titles: Sequence[str]) -> list[np.ndarray]:
    """Per focal paper, the candidate positions it may not use (same normalised title)."""
    by_title: dict[str, list[int]] = {}
    for j, t in enumerate(cands.titles):
        by_title.setdefault(normalize_title(t), []).append(j)
    return [np.array(by_title.get(normalize_title(t), []), dtype=np.int64) for t in focal_titles]


def retrieve(
    cands: Candidates,
    focal_emb: np.ndarray,
    focal_titles: Sequence[str],
    focal_years: Sequence[int | None],
    *,
    k: int,
    chunk: int = 256,
) -> Retrieval:
    """Exact top-``k`` prior candidates of each focal paper (cosine; ties by position).

    A candidate is eligible for focal paper f when its year is before f's year (f without
    a year: before the newest candidate year + 1, i.e. all) and its title differs from f's.
    """
    m = len(focal_emb)
    k = max(1, min(k, len(cands)))
    excl = excluded_titles(cands, focal_titles)
    idx = np.full((m, k), -1, dtype=np.int64)
    sim = np.full((m, k), np.nan, dtype=np.float64)
    years = cands.years
    e = np.asarray(cands.emb, dtype=np.float32)
    self_matches = 0
    for s in range(0, m, chunk):
        block = np.asarray(focal_emb[s : s + chunk], dtype=np.float32) @ e.T
        for r in range(block.shape[0]):
            i = s + r
            row = block[r].astype(np.float64)
            fy = focal_years[i]
            if fy is not None:
                row[years >= fy] = -np.inf
            if len(excl[i]):
                self_matches += int(np.isfinite(row[excl[i]]).any())
                row[excl[i]] = -np.inf
            n_ok = int(np.isfinite(row).sum())
            kk = min(k, n_ok)
            if kk == 0:
                continue
            cand = np.argpartition(-row, kk - 1)[:kk] if kk < len(row) else np.arange(len(row))
            kth = row[cand].min()
            cand = np.flatnonzero(row >= kth)  # every candidate tied with the k-th, for a stable order
            order = cand[np.lexsort((cand, -row[cand]))][:kk]
            idx[i, :kk] = order
            sim[i, :kk] = row[order]
    return Retrieval(idx=idx, sim=sim, self_matches=self_matches)


def field_pools(
    cands: Candidates,
    focal_fields: Sequence[str],
    focal_years: Sequence[int | None],
    *,
    pool_size: int,
    seed: int = 0,
) -> tuple[list[np.ndarray], dict[tuple[str, int | None], int]]:
    """Shared same-field pools: one seeded sample per (field, year) of focal papers.

    Returns:
        ``(pools, sizes)``: per focal paper, the candidate positions of its pool (before the
        per-paper same-title exclusion), and the size of the field's prior set per key.

    Raises:
        InputError: a focal field has no prior candidate.
    """
    shared: dict[tuple[str, int | None], np.ndarray] = {}
    sizes: dict[tuple[str, int | None], int] = {}
    out = []
    for f, y in zip(focal_fields, focal_years):
        key = (f, y)
        if key not in shared:
            ok = np.array([cf.lower() == f.lower() for cf in cands.fields], dtype=bool)
            if y is not None:
                ok &= cands.years < y
            pos = np.flatnonzero(ok)
            if len(pos) == 0:
                raise InputError(None, None, "options.field", f"no prior corpus paper in field {f!r} before {y}")
            sizes[key] = len(pos)
            if len(pos) > pool_size:
                pos = np.sort(np.random.default_rng(seed).choice(pos, size=pool_size, replace=False))
            shared[key] = pos
        out.append(shared[key])
    return out, sizes
