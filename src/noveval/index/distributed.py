"""``noveval novelty score --engine ray``: score a large paper set as a Ray Data job.

The papers become a Ray dataset; ``map_batches`` runs a pool of scorer actors, each of
which opens the *shared* corpus index (memory-mapped, so every actor on a node shares the
page cache), embeds its batch through the shared vector cache (or an embedding server,
``-e openai-compatible/...``), and scores it with the same code as the in-process path
(:func:`noveval.novelty.pool.score_group`), so the result equals it paper for paper.
Each actor keeps the pools it has loaded (one per distinct year limit). Rows come back
in input order.

Ray is an optional extra (``pip install 'noveval[distributed]'``), imported here only.
With no ``address`` a local Ray instance is started (and stopped at the end).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from noveval.corpus import paper_text
from noveval.errors import ConfigError, InputError
from noveval.index.novelty import _groups, index_pool, load_papers
from noveval.index.store import open_index
from noveval.novelty.pool import pool_limit, score_group

__all__ = ["score_papers_ray", "BatchScorer"]


class BatchScorer:
    """Ray Data UDF: scores batches of papers against the shared index (one instance per actor).

    Args:
        index: Index folder (a path every worker can read).
        metrics, embedder, top_k, before_year, prior_only, fields: As in
            :func:`noveval.index.novelty.score_papers`.
    """

    def __init__(self, index: str, metrics: Sequence[str], embedder: str, top_k: int, before_year: int | None,
                 prior_only: bool, fields: Sequence[str] | None) -> None:
        self.idx = open_index(index)
        self.metrics, self.top_k = list(metrics), top_k
        self.before_year, self.prior_only, self.fields = before_year, prior_only, list(fields or []) or None
        self.embedder_spec = embedder
        self._embedder: Any = None
        self._pools: dict[int | None, Any] = {}

    def _emb(self) -> Any:
        if self._embedder is None:
            from noveval.models.embed import get_embedder

            self._embedder = get_embedder(self.embedder_spec)
        return self._embedder

    def _pool(self, lim: int | None) -> Any:
        if lim not in self._pools:
            rows = np.flatnonzero(self.idx.mask(before_year=lim, fields=self.fields))
            filled = self.idx.filled()
            if not filled[rows].all():
                raise InputError(self.idx.path, None, "vectors", f"{int((~filled[rows]).sum())} pool papers have no "
                                 "vector; fill the index first (`noveval index embed`)")
            sp = index_pool(self.idx, rows)
            sp.note.update(before_year=lim, prior_only=self.prior_only, fields=self.fields)
            self._pools[lim] = sp
        return self._pools[lim]

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, list[Any]]:
        titles = [str(t) for t in batch["title"]]
        years = [None if int(y) == 0 else int(y) for y in batch["year"]]
        texts = [paper_text(t, str(a)) for t, a in zip(titles, batch["abstract"])]
        vecs = np.asarray(self._emb().encode(texts))
        out_i: list[int] = []
        out_rows: list[str] = []
        by_lim: dict[int | None, list[int]] = {}
        for j, y in enumerate(years):
            by_lim.setdefault(pool_limit(self.before_year, y if self.prior_only else None), []).append(j)
        for lim, members in by_lim.items():
            sp = self._pool(lim)
            res = score_group(vecs[members], [titles[j] for j in members], sp, self.metrics, self.top_k)
            for j, r in zip(members, res):
                out_i.append(int(batch["i"][j]))
                out_rows.append(json.dumps({"id": str(batch["id"][j]), "title": titles[j], **r, "pool": dict(sp.note)}))
        return {"i": out_i, "row": out_rows}


def score_papers_ray(papers: Path, index: str | Path, *, metrics: Sequence[str], embedder: str = "local",
                     top_k: int = 5, before_year: int | None = None, prior_only: bool = False,
                     fields: Sequence[str] | None = None, address: str | None = None, batch_size: int = 64,
                     actors: int | None = None, num_cpus: int | None = None) -> list[dict[str, Any]]:
    """Score papers against an index as a Ray Data job; same rows as :func:`~noveval.index.novelty.score_papers`.

    Args:
        papers: JSONL of papers to score.
        index: Shared index folder.
        metrics, embedder, top_k, before_year, prior_only, fields: As in ``score_papers``.
        address: Ray cluster address (None: start a local instance and stop it at the end).
        batch_size: Papers per batch.
        actors: Scorer actors (default: the cluster's CPUs).
        num_cpus: CPUs of a local instance (default: all).

    Raises:
        ConfigError: Ray is not installed.
        InputError: bad papers file, a paper without a year under ``prior_only``, an
            incompletely filled index or a different embedder.
    """
    try:
        import ray
    except ImportError as e:
        raise ConfigError("--engine ray needs Ray: pip install 'noveval[distributed]'") from e
    ps = load_papers(Path(papers))
    _groups(ps, Path(papers), prior_only)  # validates years before anything starts
    idx = open_index(index)
    from noveval.models.embed import get_embedder

    emb_id = get_embedder(embedder, cache=False).model_id
    if idx.embedder_id != emb_id:
        raise InputError(idx.path, None, "embedder", f"the index holds {idx.embedder_id} vectors; scoring with {emb_id}")
    started = False
    if not ray.is_initialized():
        env = {k: os.environ[k] for k in ("NOVEVAL_CACHE_DIR", "PYTHONPATH", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE",
                                          "NOVEVAL_THREADS") if k in os.environ}
        for attempt in range(3):  # a loaded machine can miss Ray's fixed 30 s node-startup wait
            try:
                ray.init(address=address, num_cpus=num_cpus if address is None else None, include_dashboard=False,
                         runtime_env={"env_vars": env} if env else None, log_to_driver=False)
                break
            except Exception as e:  # Ray raises a bare Exception for this
                if "timed out during startup" not in str(e) or attempt == 2:
                    raise
                ray.shutdown()
        started = address is None
    try:
        items = [{"i": i, "id": p["id"], "title": p["title"], "abstract": p["abstract"], "year": p["year"] or 0}
                 for i, p in enumerate(ps)]
        n_act = actors or max(1, int(ray.cluster_resources().get("CPU", 1)))
        ds = ray.data.from_items(items).map_batches(
            BatchScorer, fn_constructor_kwargs={"index": str(Path(index).resolve()), "metrics": list(metrics),
                                                "embedder": embedder, "top_k": top_k, "before_year": before_year,
                                                "prior_only": prior_only, "fields": list(fields or []) or None},
            batch_size=batch_size, batch_format="numpy", concurrency=n_act, num_cpus=1)
        got = sorted(ds.take_all(), key=lambda r: int(r["i"]))
    finally:
        if started:
            ray.shutdown()
    return [json.loads(r["row"]) for r in got]
