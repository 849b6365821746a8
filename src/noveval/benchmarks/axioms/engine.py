"""Scoring engine: every metric on every pool variant of every focal paper of a task.

Work is shared exactly wherever the result does not change (Liu & Zhai 2026 §5.2
protocol, issue "Performance"): texts are embedded once per task row space; a pool
variant is an index array; RND and Yin gather only the needed blocks of one
precomputed similarity matrix; fastText models and t-SNE maps are keyed by pool
content so focal-independent pools (same-year base pools, distant pools, temporal
slices) are built once. ``naive_scores`` is the straightforward per-variant refit used
by ``benchmarks/axioms_speed.py`` to check that decisions are identical.
"""

from __future__ import annotations

import hashlib
import math
import multiprocessing
import os
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from noveval.benchmarks.axioms.pools import FocalItem, TaskData
from noveval.novelty import RND, FastTextLOF, SemNovel, SemNovelMap, Yin
from noveval.novelty.fasttext_lof import euclidean, lof_scores
from noveval.novelty.knn import pairwise_cosine_distance, smallest_k_mean
from noveval.novelty.semnovel import tsne_2d
from noveval.progress import track

Variants = dict[str, np.ndarray]
"""Variant name -> pool rows (local to the task row space); absent = not applicable."""
Scores = dict[str, dict[str, float]]
"""item id -> variant -> score."""

MAP_POOL = {"base": "base", "copy": "base", "paraphrase": "base", "cov1": "base", "cov2": "base",
            "cov4": "base", "minus_cited": "base", "cited_only": "base", "distant": "distant",
            "oldest": "oldest", "newest": "newest"}
"""The focal-independent pool each variant is derived from (for the approximations)."""


def _exit_with_parent(parent: int) -> None:
    """Worker initializer: end this worker within a second of its parent's death.

    A parent killed by SIGTERM or SIGKILL runs no clean-up, and a spawned worker would
    otherwise finish its current fit (minutes for large t-SNE/fastText fits) as an orphan.
    """
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="noveval-parent-watch", daemon=True).start()


def _pool(n_jobs: int) -> ProcessPoolExecutor:
    """Worker processes started by ``spawn``: a forked child of a process that has loaded
    torch (the embedder) can hang on a lock held by one of the parent's threads. Each
    worker ends when its parent dies (:func:`_exit_with_parent`)."""
    return ProcessPoolExecutor(n_jobs, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_exit_with_parent, initargs=(os.getpid(),))


def _map_jobs(fn: Callable, args: Sequence, n_jobs: int, label: str | None) -> Iterator:
    """``fn(a)`` for each of ``args`` in order, in ``n_jobs`` spawned processes when more
    than one job and process, with a progress display labelled ``label``.

    On an exception (Ctrl-C included) the queued jobs are cancelled and the workers are
    terminated at once instead of finishing their current fits."""
    with track(len(args), label or "") as bar:
        if n_jobs > 1 and len(args) > 1:
            ex = _pool(n_jobs)
            try:
                for res in ex.map(fn, args, chunksize=1):
                    yield res
                    bar.advance()
            except BaseException:
                procs = list((getattr(ex, "_processes", None) or {}).values())
                ex.shutdown(wait=False, cancel_futures=True)
                for p in procs:
                    p.terminate()
                raise
            ex.shutdown()
        else:
            for a in args:
                yield fn(a)
                bar.advance()


def pool_key(rows: np.ndarray) -> str:
    """Content key of a pool variant (rows are task-local, so the key is task-scoped)."""
    return hashlib.sha1(np.ascontiguousarray(np.sort(rows), dtype=np.int64).tobytes()).hexdigest()


def _f(x: float) -> float:
    return float(x) if not (isinstance(x, float) and math.isnan(x)) else float("nan")


# ------------------------------------------------------------------ RND / Yin


class LazySim:
    """Float64 cosine-similarity matrix ``E @ E.T`` of a task's row space, built on first use.

    One large matrix product (BLAS-3) is much faster than many per-variant or per-row
    products; the matrix is shared by RND and Yin and by every focal paper and variant,
    which then only gather the blocks they need (``sim[r, c]``, ``sim[np.ix_(r, c)]``).
    """

    def __init__(self, emb: np.ndarray) -> None:
        self.e = np.asarray(emb, dtype=np.float64)
        self.s: np.ndarray | None = None

    def __getitem__(self, key):  # noqa: ANN001
        if self.s is None:
            self.s = self.e @ self.e.T
        return self.s[key]


def score_embedding_fast(metric: RND | Yin, emb: np.ndarray, items: Sequence[FocalItem],
                         variants: dict[str, Variants], *, sim: LazySim | None = None) -> Scores:
    """Exact RND/Yin over index sets of one lazily filled similarity matrix (no pool copies)."""
    if isinstance(metric, Yin) and (sim is None or sim.s is None):
        # Yin reads focal rows only: one (focal x rows) product instead of the full matrix
        locs = np.array([it.local for it in items], dtype=np.int64)
        e64 = np.asarray(emb, dtype=np.float64)
        block = e64[locs] @ e64.T
        pos = {it.item_id: k for k, it in enumerate(items)}
        return {it.item_id: {v: _f(metric.score_indexed(block, pos[it.item_id], rows))
                             for v, rows in variants[it.item_id].items()} for it in items}
    sim = sim if sim is not None else LazySim(emb)
    out: Scores = {}
    for it in items:
        out[it.item_id] = {v: _f(metric.score_indexed(sim, it.local, rows))
                           for v, rows in variants[it.item_id].items()}
    return out


def naive_embedding_score(metric: RND | Yin, emb: np.ndarray, focal: int, rows: np.ndarray) -> float:
    """Straightforward refit: copy the pool matrix, compute every pool density, score the focal."""
    pool = np.asarray(emb[rows], dtype=np.float64)
    f = np.asarray(emb[focal], dtype=np.float64)
    d_f = pairwise_cosine_distance(f[None, :], pool)[0]
    if isinstance(metric, Yin):
        return metric._reduce(d_f[None, :])[0].item()
    n = len(rows)
    if n < 2:
        return float("nan")
    d_pool = pairwise_cosine_distance(pool, pool)
    np.fill_diagonal(d_pool, np.inf)
    nd_pool = smallest_k_mean(d_pool, min(metric.q, n - 1))  # densities of the whole pool
    nd_f = smallest_k_mean(d_f[None, :], min(metric.q, n))[0]
    order = np.lexsort((np.arange(n), d_f))[: min(metric.p, n)]
    return float(100.0 * np.mean(nd_pool[order] < nd_f))


# ------------------------------------------------------------------ SemNovel


def _semnovel_job(args: tuple[SemNovel, np.ndarray]) -> float:
    metric, x = args

    return metric.from_map(tsne_2d(x, perplexity=metric.perplexity, seed=metric.seed, n_jobs=1,
                                   metric=metric.metric))


def score_semnovel_exact(metric: SemNovel, emb: np.ndarray, items: Sequence[FocalItem],
                         variants: dict[str, Variants], *, n_jobs: int = 1,
                         cache=None, on_done: Callable[[str, float], None] | None = None,
                         progress: str | None = None) -> Scores:
    """Exact SemNovel: one t-SNE of pool ∪ {focal} per variant, parallel over processes.

    ``cache`` (a dict or :class:`noveval.novelty.fitcache.FitCache`) maps a content key
    (pool rows' vectors + focal vector + settings incl. seed and t-SNE metric) to a score; hits skip the fit. Each
    new fit is stored the moment it finishes (an interrupted run keeps its fits) and
    ``on_done(key, score)`` is called for it. ``progress`` labels a progress display.
    """
    cache = cache if cache is not None else {}
    jobs: dict[str, np.ndarray] = {}
    found: dict[str, float] = {}
    wanted: list[tuple[str, str, str]] = []
    out: Scores = {it.item_id: {} for it in items}
    for it in items:
        for v, rows in variants[it.item_id].items():
            x = np.vstack([emb[rows], emb[it.local][None, :]]).astype(np.float32)
            key = metric.fit_key(x)
            wanted.append((it.item_id, v, key))
            if key not in jobs and key not in found:
                hit = cache.get(key)
                if hit is None:
                    jobs[key] = x
                else:
                    found[key] = float(hit)
    if jobs:
        keys = list(jobs)
        args = [(metric, jobs[k]) for k in keys]
        for key, s in zip(keys, _map_jobs(_semnovel_job, args, n_jobs, progress), strict=True):
            found[key] = float(s)
            cache[key] = float(s)
            if on_done:
                on_done(key, float(s))
    for iid, v, key in wanted:
        out[iid][v] = found[key]
    return out


def score_semnovel_approx(metric: SemNovel, emb: np.ndarray, items: Sequence[FocalItem],
                          variants: dict[str, Variants], extra_rows: dict[str, dict[str, int]]) -> Scores:
    """Fast approximation: one map per focal-independent pool; new points via ``transform``.

    Focal papers, paraphrases and Ax3-extended neighbours are placed into the fixed map
    of their source pool; removal variants (Ax5/6) take a subset of the map's points.
    ``extra_rows[item_id]`` gives the new-text row of ``paraphrase``/``cov*`` and the
    replaced neighbour row under ``"nn"``.
    """
    groups: dict[str, tuple[np.ndarray, list[tuple[FocalItem, str]]]] = {}
    for it in items:
        vs = variants[it.item_id]
        for v in vs:
            src = vs.get(MAP_POOL[v])
            if src is None:
                continue
            k = pool_key(src)
            groups.setdefault(k, (np.sort(src), []))[1].append((it, v))
    out: Scores = {it.item_id: {} for it in items}
    for _k, (src, members) in groups.items():
        smap = SemNovelMap(emb[src], metric)
        new_rows = sorted({it.local for it, _ in members} | {
            extra_rows[it.item_id][v] for it, v in members if v in ("paraphrase", "cov1", "cov2", "cov4")})
        placed = dict(zip(new_rows, smap.place(emb[new_rows]), strict=True))
        pos_of = {int(r): i for i, r in enumerate(src)}
        for it, v in members:
            coords = smap.coords
            fxy = placed[it.local]
            if v == "copy":
                coords = np.vstack([coords, fxy[None, :]])
            elif v == "paraphrase":
                coords = np.vstack([coords, placed[extra_rows[it.item_id][v]][None, :]])
            elif v.startswith("cov"):
                coords = coords.copy()
                coords[pos_of[extra_rows[it.item_id]["nn"]]] = placed[extra_rows[it.item_id][v]]
            elif v in ("minus_cited", "cited_only"):
                coords = coords[[pos_of[int(r)] for r in variants[it.item_id][v]]]
            out[it.item_id][v] = smap.score_coords(fxy, coords)
    return out


# ------------------------------------------------------------------ FastTextLOF


def _ft_group(args: tuple[FastTextLOF, list[str], str | None, list[tuple[str, str, list[str]]]]) -> list[float]:
    """Train one model on a pool's titles (plus the scored title for the reference
    variant); score focal titles (with optional added titles) among the pool's vectors."""
    metric, titles, train_focal, queries = args
    wv = metric.train(titles if train_focal is None else [*titles, train_focal])
    pv = metric.vectors(wv, titles)
    dist_pool = euclidean(pv, pv)
    out = []
    for _iid, focal, added in queries:
        fv = metric.vectors(wv, [focal])
        extra = metric.vectors(wv, added) if added else np.zeros((0, pv.shape[1]))
        x = np.vstack([pv, extra, fv])
        if len(extra):
            d = euclidean(x, x)
        else:  # reuse the pool block, add the focal row/column only
            n = len(pv)
            d = np.empty((n + 1, n + 1))
            d[:n, :n] = dist_pool
            row = euclidean(fv, pv)[0]
            d[n, :n] = d[:n, n] = row
            d[n, n] = 0.0
        out.append(float(lof_scores(d, metric.n_neighbors)[-1]))
    return out


def score_fasttext(metric: FastTextLOF, task: TaskData, items: Sequence[FocalItem],
                   variants: dict[str, Variants], *, approx: bool = False, n_jobs: int = 1,
                   extra_rows: dict[str, dict[str, int]] | None = None, cache=None,
                   progress: str | None = None) -> Scores:
    """FastTextLOF over all variants, one fastText model per distinct training set.

    A training set is the pool's titles (in row order), followed by the scored title for
    the ``reference`` variant (so there one model per pool and focal paper; ``normalized``
    shares a pool's model across focal papers). Exact: ``copy``/``paraphrase`` pools
    contain one more title, so each gets its own model. ``approx``: they reuse the base
    pool's model (the added title is embedded with it), and Ax5/6 pools reuse the base
    model too (LOF over the subset of its title vectors). Ax3 variants are not scored
    (title-only metric, §5.2). ``extra_rows`` is unused (kept for a uniform signature).
    ``cache`` (dict or :class:`~noveval.novelty.fitcache.FitCache`) keeps each score under
    the content of its training titles, focal and added titles; a training set whose
    scores are all cached is not trained again. ``progress`` labels a progress display
    over the models trained.
    """
    with_focal = metric.trains_with_focal
    groups: dict[tuple[str, int | None], tuple[np.ndarray, int | None, list[tuple[str, str, str, list[str]]]]] = {}
    for it in items:
        vs = variants[it.item_id]
        for v, rows in vs.items():
            if v.startswith("cov"):
                continue
            train_rows, added = rows, []
            if approx and v in ("copy", "paraphrase", "minus_cited", "cited_only"):
                train_rows = vs["base"]
                if v in ("copy", "paraphrase"):
                    added = [task.titles[int(rows[-1])]]
            focal = it.local if with_focal else None
            k = (pool_key(train_rows), focal)
            groups.setdefault(k, (np.sort(train_rows), focal, []))[2].append(
                (it.item_id, v, task.titles[it.local], added))
    out: Scores = {it.item_id: {} for it in items}
    cache = cache if cache is not None else {}
    jobs: list[Any] = []
    keys: list[Any] = []
    for _k, (rows, focal, qs) in groups.items():
        titles = [task.titles[int(r)] for r in rows]
        todo = []
        for q in qs:
            # approx Ax5/6 are scored on a subset of the base model's vectors: not cached
            subset = approx and q[1] in ("minus_cited", "cited_only")
            ckey = None if subset else _ft_key(metric, titles, q[2], q[3])
            hit = None if ckey is None else cache.get(ckey)
            if hit is not None:
                out[q[0]][q[1]] = float(hit)
            else:
                todo.append((*q, ckey))
        if todo:
            jobs.append((metric, titles, None if focal is None else task.titles[focal],
                         [(q[0], q[2], q[3]) for q in todo]))
            keys.append(todo)
    if approx:  # Ax5/6 under approx: LOF over the subset's vectors from the base model
        jobs, keys = _ft_subset_jobs(metric, variants, jobs, keys, out)
    for qs, scores in zip(keys, _map_jobs(_ft_group, jobs, n_jobs, progress), strict=True):
        _ft_store(out, cache, qs, scores)
    return out


def _ft_key(metric: FastTextLOF, titles: Sequence[str], focal: str, added: Sequence[str]) -> str:
    """Content key of one FastTextLOF score: pool titles and settings (variant included), focal,
    added titles (the reference variant's training set is the pool plus the focal title)."""
    h = hashlib.sha1(("fasttext-lof\x1d" + metric.key(titles)).encode())
    h.update("\x1e".join([focal, *added]).encode())
    return h.hexdigest()


def _ft_store(out: Scores, cache, qs, scores) -> None:
    for (iid, v, _f0, _a, ckey), s in zip(qs, scores, strict=True):
        out[iid][v] = float(s)
        if ckey is not None:
            cache[ckey] = float(s)


def _ft_subset_jobs(metric, variants, jobs, keys, out):
    """Approx mode: score Ax5/6 from the base model's vectors restricted to the subset."""
    keep_jobs, keep_keys = [], []
    for job, qs in zip(jobs, keys, strict=True):
        plain = [q for q in qs if q[1] not in ("minus_cited", "cited_only")]
        sub = [q for q in qs if q[1] in ("minus_cited", "cited_only")]
        if sub:
            rows = variants[sub[0][0]]["base"]
            titles, train_focal = job[1], job[2]
            wv = metric.train(titles if train_focal is None else [*titles, train_focal])
            pv = metric.vectors(wv, titles)
            pos = {int(r): i for i, r in enumerate(np.sort(rows))}
            for iid, v, ftitle, _a, _ck in sub:
                keep = [pos[int(r)] for r in variants[iid][v]]
                fv = metric.vectors(wv, [ftitle])[0]
                out[iid][v] = metric.lof_of_focal(fv, pv[keep])
        if plain:
            keep_jobs.append((job[0], job[1], job[2], [(q[0], q[2], q[3]) for q in plain]))
            keep_keys.append(plain)
    return keep_jobs, keep_keys


def naive_variant_scores(metric_name: str, metric, emb: np.ndarray, task: TaskData,
                         item: FocalItem, variants: Variants) -> dict[str, float]:
    """Per-variant recompute of one focal paper (reference for the speed benchmark)."""
    out = {}
    for v, rows in variants.items():
        if metric_name in ("RND", "Yin"):
            out[v] = naive_embedding_score(metric, emb, item.local, rows)
        elif metric_name == "SemNovel":
            out[v] = metric.score(emb[item.local], emb[rows])
        elif metric_name == "FastTextLOF" and not v.startswith("cov"):
            out[v] = metric.score(task.titles[item.local], [task.titles[int(r)] for r in np.sort(rows)])
    return out


def group_sizes(variants: dict[str, Variants]) -> dict[str, int]:
    """How many distinct pool contents the variants have (shared-work diagnostics)."""
    keys: defaultdict[Any, int] = defaultdict(int)
    for vs in variants.values():
        for rows in vs.values():
            keys[pool_key(rows)] += 1
    return {"variants": sum(keys.values()), "distinct_pools": len(keys)}
