"""Metric combination (Liu & Zhai 2026, §6.2): z-scores, simplex grid search, LODO CV.

Each metric's scores (all variants of all training items) are z-normalised with the
training fold's mean and standard deviation; a combined score is ``sum_m w_m z_m`` with
``w`` on the simplex grid of step 0.05 (all non-negative multiples of 0.05 summing to 1);
the nine checks are re-decided on the combined scores. The global weight vector
maximises the mean pass rate over the checks; per-axiom weights maximise each check's
own pass rate (ties: the first grid point in lexicographic order). Cross-validation
holds out one field at a time (the paper's leave-one-domain-out), the ablation drops
one metric at a time, and the Pearson table correlates base-pool scores (Table 7).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from noveval.benchmarks.axioms.axioms import _GREATER, AXIOM_VARIANTS, AXIOMS, VARIANTS

VIDX = {v: i for i, v in enumerate(VARIANTS)}


def simplex_grid(n_metrics: int, step: float = 0.05) -> np.ndarray:
    """All weight vectors with entries in multiples of ``step`` summing to 1 (lexicographic)."""
    k = int(round(1 / step))
    pts = [c for c in itertools.product(range(k + 1), repeat=n_metrics) if sum(c) == k]
    return np.array(sorted(pts, reverse=True), dtype=np.float64) / k


def score_tensor(rows: Sequence[dict], metrics: Sequence[str]) -> np.ndarray:
    """(items, variants, metrics) scores; NaN where absent. A title-only metric's Ax3
    variants equal its base score (Ax3 changes abstracts only)."""
    t = np.full((len(rows), len(VARIANTS), len(metrics)), np.nan)
    for i, r in enumerate(rows):
        for j, m in enumerate(metrics):
            sc = r["scores"].get(m, {})
            for v, s in sc.items():
                if s is not None and v in VIDX:
                    t[i, VIDX[v], j] = s
            if m == "FastTextLOF" and sc.get("base") is not None:
                for v in ("cov1", "cov2", "cov4"):
                    if any(r["scores"].get(o, {}).get(v) is not None for o in metrics if o != m):
                        t[i, VIDX[v], j] = sc["base"]
    return t


def zscore_params(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-metric mean and std over all finite scores of ``t``."""
    flat = t.reshape(-1, t.shape[-1])
    mu = np.nanmean(flat, axis=0)
    sd = np.nanstd(flat, axis=0)
    return mu, np.where(sd > 0, sd, 1.0)


def pass_rates(t: np.ndarray, weights: np.ndarray, mu: np.ndarray, sd: np.ndarray) -> np.ndarray:
    """Pass rates (%) per grid point and check: array (n_weights, 9), NaN if not applicable."""
    z = (t - mu) / sd
    comb = np.einsum("ivm,gm->ivg", np.nan_to_num(z), weights)
    comb[np.isnan(z).any(axis=2)] = np.nan
    out = np.full((len(weights), len(AXIOMS)), np.nan)
    for a_i, a in enumerate(AXIOMS):
        vs = [comb[:, VIDX[v], :] for v in AXIOM_VARIANTS[a]]
        app = ~np.any([np.isnan(x) for x in vs], axis=0)
        if a in _GREATER:
            ok = vs[0] > vs[1]
        else:
            ok = np.all([x < y for x, y in zip(vs, vs[1:], strict=False)], axis=0)
        n = app.sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[:, a_i] = np.where(n > 0, 100.0 * (ok & app).sum(axis=0) / np.maximum(n, 1), np.nan)
    return out


def best_weights(t: np.ndarray, grid: np.ndarray, *, axiom: str | None = None) -> tuple[np.ndarray, float]:
    """Grid point maximising the mean pass rate (or one check's rate) on ``t``."""
    mu, sd = zscore_params(t)
    rates = pass_rates(t, grid, mu, sd)
    if axiom:
        obj = rates[:, AXIOMS.index(axiom)]
    else:
        cols = ~np.isnan(rates).all(axis=0)
        with np.errstate(all="ignore"):
            obj = np.nanmean(rates[:, cols], axis=1) if cols.any() else np.full(len(grid), np.nan)
    if np.isnan(obj).all():
        return grid[0], float("nan")
    g = int(np.nanargmax(obj))
    return grid[g], float(obj[g])


def lodo(rows: Sequence[dict], metrics: Sequence[str], *, step: float = 0.05, per_axiom: bool = False) -> dict:
    """Leave-one-field-out CV of the global (or per-axiom) weighted combination.

    Returns per fold: held-out field, training fields, weights, train and test rates.
    Per-axiom: a check that never applies in the training fields (Ax5/6 where only one
    field has reference lists) has nothing to fit, so it takes the fold's global weight
    vector; such checks are listed under ``untrained``.
    """
    t = score_tensor(rows, metrics)
    fields = np.array([r["field"] for r in rows])
    grid = simplex_grid(len(metrics), step)
    folds = []
    for f in sorted(set(fields.tolist())):
        tr, te = fields != f, fields == f
        fold: dict = {"held_out": f, "train_fields": sorted(set(fields[tr].tolist()))}
        if per_axiom:
            fold["weights"], fold["train"], fold["test"], fold["untrained"] = {}, {}, {}, []
            mu, sd = zscore_params(t[tr])
            w_global = None
            for a in AXIOMS:
                w, obj = best_weights(t[tr], grid, axiom=a)
                if np.isnan(obj):  # no training check for this axiom: use the fold's global weights
                    if w_global is None:
                        w_global, _ = best_weights(t[tr], grid)
                    w = w_global
                    fold["untrained"].append(a)
                fold["weights"][a] = dict(zip(metrics, w.round(2).tolist(), strict=True))
                fold["train"][a] = _nan(obj)
                fold["test"][a] = _nan(pass_rates(t[te], w[None], mu, sd)[0, AXIOMS.index(a)])
            fold["test_avg"] = _mean(fold["test"].values())
        else:
            w, obj = best_weights(t[tr], grid)
            mu, sd = zscore_params(t[tr])
            test = pass_rates(t[te], w[None], mu, sd)[0]
            fold.update(weights=dict(zip(metrics, w.round(2).tolist(), strict=True)), train=obj,
                        test={a: _nan(x) for a, x in zip(AXIOMS, test, strict=True)})
            fold["test_avg"] = _mean(fold["test"].values())
        folds.append(fold)
    avg = {a: _mean([fo["test"][a] for fo in folds]) for a in AXIOMS}
    return {"folds": folds, "test_by_axiom": avg, "test_avg": _mean([fo["test_avg"] for fo in folds])}


def ablation(rows: Sequence[dict], metrics: Sequence[str], *, step: float = 0.05) -> dict:
    """Leave-one-metric-out: LODO of the global combination without each metric (Table 4/9)."""
    full = lodo(rows, metrics, step=step)
    out = {"None": {"test_avg": full["test_avg"], "test_by_axiom": full["test_by_axiom"]}}
    for m in metrics:
        rest = [x for x in metrics if x != m]
        r = lodo(rows, rest, step=step)
        out[m] = {"test_avg": r["test_avg"], "test_by_axiom": r["test_by_axiom"],
                  "delta": None if r["test_avg"] is None or full["test_avg"] is None
                  else r["test_avg"] - full["test_avg"]}
    return out


def pearson_table(rows: Sequence[dict], metrics: Sequence[str]) -> dict:
    """Pearson r between metrics' base-pool scores over the focal papers (Table 7)."""
    base = np.array([[r["scores"].get(m, {}).get("base", np.nan) for m in metrics] for r in rows], dtype=float)
    out: dict = {}
    for i, a in enumerate(metrics):
        out[a] = {}
        for j, b in enumerate(metrics):
            ok = ~np.isnan(base[:, i]) & ~np.isnan(base[:, j])
            out[a][b] = float(np.corrcoef(base[ok, i], base[ok, j])[0, 1]) if ok.sum() > 2 else None
    return out


def combine(rows: Sequence[dict], metrics: Sequence[str], *, step: float = 0.05) -> dict:
    """All §6.2 results: global LODO, per-axiom LODO, ablation, Pearson table."""
    return {
        "metrics": list(metrics), "step": step,
        "global": lodo(rows, metrics, step=step),
        "per_axiom": lodo(rows, metrics, step=step, per_axiom=True),
        "ablation": ablation(rows, metrics, step=step),
        "pearson": pearson_table(rows, metrics),
    }


def _nan(x: float) -> float | None:
    return None if x is None or np.isnan(x) else float(x)


def _mean(xs) -> float | None:
    ys = [x for x in xs if x is not None]
    return float(np.mean(ys)) if ys else None
