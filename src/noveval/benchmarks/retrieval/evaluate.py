"""Ranking metrics against sets of gold papers, with bootstrap CIs over queries.

A gold paper is a set of equivalent rows (duplicate corpus titles); it is found at the
first rank holding any of its rows, and counts once.

* ``recall@k = |gold papers found in the top k| / |gold papers|`` — range [0, 1], best 1.
* ``nDCG@k = DCG@k / IDCG@k`` with binary gains, ``DCG@k = sum_{i<=k} rel_i / log2(i + 1)``
  and ``IDCG@k`` the DCG of a ranking with all ``min(k, |gold|)`` gold papers first
  (Järvelin & Kekäläinen 2002; scikit-learn's ``ndcg_score`` without ties) — range [0, 1], best 1.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from noveval.metrics.bootstrap import bootstrap_ci

__all__ = ["found_ranks", "recall_at_k", "ndcg_at_k", "summarize_runs", "paired_differences"]


def found_ranks(ranking: Sequence[int], gold: Sequence[Sequence[int]]) -> list[int | None]:
    """1-based rank at which each gold paper is first found (None: not in ``ranking``)."""
    pos: dict[int, int] = {}
    for i, r in enumerate(ranking, 1):
        pos.setdefault(int(r), i)
    out: list[int | None] = []
    for rows in gold:
        ranks = [pos[int(r)] for r in rows if int(r) in pos]
        out.append(min(ranks) if ranks else None)
    return out


def recall_at_k(ranking: Sequence[int], gold: Sequence[Sequence[int]], k: int) -> float:
    """Share of gold papers in the top ``k`` (NaN without gold)."""
    if not gold:
        return float("nan")
    return sum(1 for r in found_ranks(ranking, gold) if r is not None and r <= k) / len(gold)


def ndcg_at_k(ranking: Sequence[int], gold: Sequence[Sequence[int]], k: int) -> float:
    """Binary-gain nDCG@k (NaN without gold)."""
    if not gold:
        return float("nan")
    ranks = sorted({r for r in found_ranks(ranking, gold) if r is not None and r <= k})
    dcg = sum(1.0 / math.log2(r + 1) for r in ranks)
    idcg = sum(1.0 / math.log2(i + 1) for i in range(1, min(k, len(gold)) + 1))
    return dcg / idcg


def summarize_runs(rankings: dict[str, Sequence[Sequence[int]]], gold: Sequence[Sequence[Sequence[int]]], *,
                   ks: Sequence[int] = (10, 50, 100), ndcg_k: int = 10, seed: int = 0) -> dict[str, Any]:
    """Mean and 95% bootstrap CI of recall@ks and nDCG over queries with gold, per mode.

    Args:
        rankings: Mode -> per-query ranked rows (aligned with ``gold``).
        gold: Per query, its gold papers (sets of rows); queries without gold are left out.
        ks: Recall cut-offs.
        ndcg_k: nDCG cut-off.
        seed: Bootstrap seed.
    """
    use = [i for i, g in enumerate(gold) if g]
    out: dict[str, Any] = {}
    for mode, runs in rankings.items():
        row: dict[str, Any] = {}
        vals = {f"recall@{k}": [recall_at_k(runs[i], gold[i], k) for i in use] for k in ks}
        vals[f"ndcg@{ndcg_k}"] = [ndcg_at_k(runs[i], gold[i], ndcg_k) for i in use]
        for name, v in vals.items():
            lo, hi = bootstrap_ci(np.asarray(v), seed=seed)
            row[name] = {"mean": float(np.mean(v)), "ci_low": lo, "ci_high": hi, "n": len(v)}
        out[mode] = row
    return out


def paired_differences(rankings: dict[str, Sequence[Sequence[int]]], gold: Sequence[Sequence[Sequence[int]]], *,
                       baseline: str, ks: Sequence[int] = (10, 50, 100), ndcg_k: int = 10,
                       seed: int = 0) -> dict[str, Any]:
    """Per-query differences of each mode minus ``baseline`` (same queries), mean and 95% bootstrap CI.

    A CI that excludes 0 means the mode differs from the baseline on these queries.
    """
    use = [i for i, g in enumerate(gold) if g]
    base = rankings[baseline]
    out: dict[str, Any] = {}
    for mode, runs in rankings.items():
        if mode == baseline:
            continue
        row: dict[str, Any] = {}
        cuts: list[tuple[str, Any, int]] = [(f"recall@{k}", recall_at_k, k) for k in ks]
        cuts.append((f"ndcg@{ndcg_k}", ndcg_at_k, ndcg_k))
        for name, fn, k in cuts:
            d = np.asarray([fn(runs[i], gold[i], k) - fn(base[i], gold[i], k) for i in use])
            lo, hi = bootstrap_ci(d, seed=seed)
            row[name] = {"mean": float(d.mean()), "ci_low": lo, "ci_high": hi, "n": len(d)}
        out[mode] = row
    return out
