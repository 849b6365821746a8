"""Corpus novelty metrics of each paper against its prior-only pool: resumable and cached per metric.

Metrics are reached only through :func:`noveval.novelty.get_metric` and their documented
interface (``name``, ``inputs``, ``score(focal, pool)``), so a changed default flows in.
Each metric's *signature* is its full ``repr`` (every parameter, the variant included)
plus the embedder id for embedding metrics. A result row carries the signature in its
id, so after a default changes a re-run recomputes that metric only: rows with the old
signature no longer match and are dropped when the file is finalised. Values are also
kept in the content-keyed fit cache (``novelty_fits.sqlite``: metric signature + focal
text + pool texts), so another run folder over the same papers reuses them.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

from noveval.benchmarks.validate.options import ALL_METRICS
from noveval.runs import run_items

__all__ = ["METRIC_NAMES", "MetricTask", "metric_signature", "short_sig", "fit_key", "score_metrics"]

METRIC_NAMES = ALL_METRICS
"""The four corpus metrics of Liu & Zhai (2026) §4, in their table order."""


def metric_signature(metric: Any, embedder_id: str | None) -> str:
    """What determines a metric's values: its repr (all parameters) and, for embedding metrics, the embedder."""
    sig = f"{metric.name}|{metric!r}"
    if getattr(metric, "inputs", "embedding") == "embedding":
        sig += f"|embedder={embedder_id}"
    return sig


def short_sig(signature: str) -> str:
    """8-hex digest of a signature (used inside row ids)."""
    return hashlib.sha1(signature.encode()).hexdigest()[:8]


@dataclass(frozen=True)
class MetricTask:
    """One metric for one paper: the predictor name and the paper's position."""

    name: str
    paper: int


def _score_job(args: tuple[Any, Any, Any]) -> float:
    """Top-level (picklable) worker: ``metric.score(focal, pool)`` as a float."""
    metric, focal, pool = args
    return float(metric.score(focal, pool))


async def score_metrics(
    run: Any,
    metrics: dict[str, Any],
    signatures: dict[str, str],
    paper_ids: Sequence[str],
    subsets: dict[str, list[int]] | None = None,
    *,
    focal_input: Callable[[str, int], Any],
    pool_input: Callable[[str, int], Any],
    cache_key: Callable[[str, int], str],
    fit_cache: Any | None,
    executor: Executor | None,
    jobs: int = 1,
    progress: str = "validate: novelty metrics",
) -> dict[str, dict[str, float | None]]:
    """Score every paper with every metric, resumably, into ``predictions.jsonl``.

    Args:
        run: The :class:`~noveval.runs.RunDir`.
        metrics: Name -> metric object.
        signatures: Name -> :func:`metric_signature`.
        paper_ids: Paper ids, in order.
        subsets: Metric -> positions of the papers it scores (default: all).
        focal_input: ``(metric name, paper position) -> focal input`` (an embedding row or a title).
        pool_input: ``(metric name, paper position) -> pool input`` (embedding rows or titles).
        cache_key: ``(metric name, paper position) -> fit-cache key``.
        fit_cache: A :class:`~noveval.novelty.fitcache.FitCache` or None.
        executor: Process pool for the fits (None: in this process).
        jobs: Tasks in flight.
        progress: Progress label.

    Returns:
        ``{metric: {paper id: value}}`` (None where the metric is undefined or failed).
    """
    every = list(range(len(paper_ids)))
    tasks = [MetricTask(name, i) for name in metrics for i in (subsets or {}).get(name, every)]

    def id_of(t: MetricTask) -> str:
        return f"{t.name}:{short_sig(signatures[t.name])}:{paper_ids[t.paper]}"

    loop = asyncio.get_running_loop()

    async def worker(t: MetricTask) -> dict[str, Any]:
        key = cache_key(t.name, t.paper)
        row: dict[str, Any] = {"predictor": t.name, "paper_id": paper_ids[t.paper], "signature": signatures[t.name]}
        hit = fit_cache.get(key) if fit_cache is not None else None
        if hit is not None:
            return {**row, "value": hit, "cached": True, "error": None}
        args = (metrics[t.name], focal_input(t.name, t.paper), pool_input(t.name, t.paper))
        t0 = time.perf_counter()
        try:
            v = await loop.run_in_executor(executor, _score_job, args) if executor is not None else _score_job(args)
        except Exception as e:  # a failed fit is recorded (and retried on a re-run), never silently zero
            return {**row, "value": None, "cached": False, "error": f"{type(e).__name__}: {e}"}
        row["seconds"] = round(time.perf_counter() - t0, 4)
        if math.isnan(v) or math.isinf(v):
            return {**row, "value": None, "cached": False, "error": None, "note": "undefined (pool too small)"}
        if fit_cache is not None:
            fit_cache[key] = v
        return {**row, "value": v, "cached": False, "error": None}

    rows = await run_items(run, "predictions", tasks, worker, id_of=id_of, progress=progress, concurrency=jobs)
    out: dict[str, dict[str, float | None]] = {name: {} for name in metrics}
    for r in rows:
        if r.get("predictor") in out:
            out[r["predictor"]][str(r["paper_id"])] = None if r.get("error") else r.get("value")
    return out


def fit_key(signature: str, focal_hash: str, pool_key: str) -> str:
    """Fit-cache key of one metric value: signature, focal text and pool content."""
    return "validate:" + hashlib.sha1(f"{signature}\x1f{focal_hash}\x1f{pool_key}".encode()).hexdigest()
