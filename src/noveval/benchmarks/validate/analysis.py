"""From per-paper rows to the validity scores: each predictor against the human target and ceiling.

Input: ``per_item.jsonl`` rows (one per paper with ratings) holding ``human_scores``,
``human_mean``, ``groups``, the covariates ``abstract_words`` and ``nn_year``, and a
``predictors`` dict (name -> value, greater = more novel, None = no value). Output: the
``scores.json`` dict. No model calls: ``noveval score validate RUN`` re-runs this alone.

Reported per predictor (papers with a value): Spearman ρ and Kendall τ-b against the
mean originality with 95% percentile bootstrap CIs (papers resampled), AUC of separating
high (mean >= ``high``) from low (mean <= ``low``) papers, partial ρ controlling for
abstract length and the year of the nearest prior paper, and ρ against the human
ceiling's own targets (:func:`noveval.metrics.correlation.loro_matched`). The same per
keyword group with at least ``min_group`` papers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from noveval.benchmarks.validate.data import keyword_groups
from noveval.metrics.agreement import krippendorff_alpha
from noveval.metrics.correlation import correlate, loro_ceiling, loro_ci, loro_matched
from noveval.progress import track

__all__ = ["PREDICTOR_INFO", "predictor_label", "score_rows", "binned"]

PREDICTOR_INFO: dict[str, tuple[str, str]] = {
    "Yin": ("Yin", "metric"),
    "RND": ("RND", "metric"),
    "SemNovel": ("SemNovel", "metric"),
    "FastTextLOF": ("FastTextLOF", "metric"),
    "nn_distance": ("1 − max similarity", "retrieval"),
    "topk_distance": ("1 − top-k mean similarity", "retrieval"),
    "llm_rubric": ("LLM rubric (1-5)", "judge"),
    "llm_direct": ("LLM direct (1-4)", "judge"),
}
"""Predictor key -> (table label, kind)."""


def predictor_label(name: str, top_k: int | None = None) -> str:
    """Table label of a predictor (``top_k`` fills in the retrieval signal's k)."""
    label = PREDICTOR_INFO.get(name, (name, ""))[0]
    return label.replace("top-k", f"top-{top_k}") if top_k else label


def _nan(v: Any) -> float:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else math.nan


def _f(v: float) -> float | None:
    return None if v is None or math.isnan(v) else float(v)


def binned(pred: np.ndarray, target: np.ndarray, *, bins: int = 5) -> list[dict[str, float | int | None]]:
    """Mean target per quantile bin of the predictor, with a normal-approximation 95% CI.

    Bins are predictor quantiles (ties may merge bins); each entry: ``lo, hi`` (predictor
    range), ``x`` (median predictor), ``mean``, ``ci_low``, ``ci_high`` (mean ± 1.96 SE), ``n``.
    """
    ok = ~(np.isnan(pred) | np.isnan(target))
    p, t = pred[ok], target[ok]
    if len(p) < bins:
        return []
    edges = np.unique(np.quantile(p, np.linspace(0, 1, bins + 1)))
    which = np.clip(np.searchsorted(edges, p, side="right") - 1, 0, len(edges) - 2)
    out = []
    for b in range(len(edges) - 1):
        sel = which == b
        if not sel.any():
            continue
        tt = t[sel]
        se = float(tt.std(ddof=1) / math.sqrt(len(tt))) if len(tt) > 1 else math.nan
        m = float(tt.mean())
        out.append({"lo": float(edges[b]), "hi": float(edges[b + 1]), "x": float(np.median(p[sel])), "mean": m,
                    "ci_low": _f(m - 1.96 * se), "ci_high": _f(m + 1.96 * se), "n": int(sel.sum())})
    return out


def _one(name: str, pred: np.ndarray, target: np.ndarray, ratings: Sequence[Sequence[int]], *, high: np.ndarray,
         low: np.ndarray, cov: np.ndarray | None, min_raters: int, n_resamples: int, seed: int,
         full: bool) -> dict[str, Any]:
    c = correlate(pred, target, high=high if full else None, low=low if full else None,
                  covariates=cov if full else None, n_resamples=n_resamples, seed=seed, tau_ci=full)
    row: dict[str, Any] = {"predictor": name, **c.to_dict()}
    matched = loro_matched(pred, ratings, min_raters=min_raters)
    row["rho_loro_target"] = _f(matched)
    if full:
        lo, hi = loro_ci(ratings, pred, min_raters=min_raters, n_resamples=n_resamples, seed=seed)
        row["rho_loro_target_ci_low"], row["rho_loro_target_ci_high"] = _f(lo), _f(hi)
    return row


def _ceiling(ratings: Sequence[Sequence[int]], *, min_raters: int, n_resamples: int, seed: int) -> dict[str, Any]:
    """The human ceiling (leave one reviewer out, 95% CI) and Krippendorff's ordinal alpha."""
    rho = loro_ceiling(ratings, min_raters=min_raters)
    lo, hi = loro_ci(ratings, min_raters=min_raters, n_resamples=n_resamples, seed=seed)
    m = max((len(r) for r in ratings), default=0)
    data = np.full((m, len(ratings)), np.nan)
    for u, rs in enumerate(ratings):
        data[: len(rs), u] = rs
    alpha = krippendorff_alpha(data, level="ordinal") if len(ratings) > 1 else math.nan
    return {"rho": _f(rho), "ci_low": _f(lo), "ci_high": _f(hi), "n": sum(len(r) >= min_raters for r in ratings),
            "min_raters": min_raters, "krippendorff_alpha_ordinal": _f(alpha),
            "definition": "mean over reviewer slots j < min_raters of Spearman(reviewer j, mean of the "
                          "paper's other reviewers), papers with >= min_raters ratings"}


def _group_row(g: str, members: list[int], preds: dict[str, np.ndarray], target: np.ndarray,
               ratings: Sequence[Sequence[int]], hi_mask: np.ndarray, lo_mask: np.ndarray, *, min_raters: int,
               n_resamples: int, seed: int, tr: Any) -> dict[str, Any]:
    """One keyword group: its own ceiling and each predictor's correlations on its papers."""
    idx = np.array(members)
    g_ratings = [ratings[i] for i in members]
    g_ceiling = loro_ceiling(g_ratings, min_raters=min_raters)
    g_lo, g_hi = loro_ci(g_ratings, min_raters=min_raters, n_resamples=n_resamples, seed=seed)
    cells = {}
    for p, v in preds.items():
        c = _one(p, v[idx], target[idx], g_ratings, high=hi_mask[idx], low=lo_mask[idx], cov=None,
                 min_raters=min_raters, n_resamples=n_resamples, seed=seed, full=False)
        cells[p] = {k: c[k] for k in ("n", "rho", "rho_ci_low", "rho_ci_high", "tau", "rho_loro_target")}
        tr.advance()
    return {"group": g, "n": len(members), "ceiling": _f(g_ceiling), "ceiling_ci_low": _f(g_lo),
            "ceiling_ci_high": _f(g_hi), "predictors": cells}


def score_rows(
    rows: Sequence[dict[str, Any]],
    *,
    predictors: Sequence[str],
    min_raters: int = 3,
    min_group: int = 80,
    high: float = 3.5,
    low: float = 2.0,
    n_resamples: int = 1000,
    seed: int = 0,
    top_k: int | None = None,
) -> dict[str, Any]:
    """The validity analysis of per-paper rows (see module docstring).

    Args:
        rows: ``per_item`` rows.
        predictors: Predictor keys to report, in table order.
        min_raters: Papers need this many ratings for the ceiling (and the matched ρ).
        min_group: Smallest keyword group analysed.
        high, low: AUC groups: mean rating >= high vs <= low.
        n_resamples, seed: Bootstrap settings.
        top_k: k of the top-k retrieval signal (for its label).

    Returns:
        ``{"metrics", "extra"}`` parts of ``scores.json``.
    """
    rows = [r for r in rows if r.get("human_scores")]
    ratings = [list(r["human_scores"]) for r in rows]
    target = np.array([_nan(r.get("human_mean")) for r in rows])
    hi_mask, lo_mask = target >= high, target <= low
    cov = np.array([[_nan(r.get("abstract_words")), _nan(r.get("nn_year"))] for r in rows], dtype=np.float64)
    preds = {p: np.array([_nan((r.get("predictors") or {}).get(p)) for r in rows]) for p in predictors}
    ceiling = _ceiling(ratings, min_raters=min_raters, n_resamples=n_resamples, seed=seed)
    groups = keyword_groups([r.get("keywords") or [] for r in rows], min_size=min_group)
    table = []
    with track(len(predictors) * (1 + len(groups)), "validate: correlations") as tr:
        for p in predictors:
            row = _one(p, preds[p], target, ratings, high=hi_mask, low=lo_mask, cov=cov, min_raters=min_raters,
                       n_resamples=n_resamples, seed=seed, full=True)
            row["label"] = predictor_label(p, top_k)
            row["kind"] = PREDICTOR_INFO.get(p, ("", "other"))[1]
            table.append(row)
            tr.advance()
        groups_out = [_group_row(g, members, preds, target, ratings, hi_mask, lo_mask, min_raters=min_raters,
                                 n_resamples=n_resamples, seed=seed, tr=tr) for g, members in groups.items()]
    common = _common_subset(preds, target, ratings, min_raters=min_raters, n_resamples=n_resamples, seed=seed,
                            top_k=top_k)
    metrics: dict[str, dict[str, Any]] = {
        "human_ceiling_loro": {"mean": ceiling["rho"], "ci_low": ceiling["ci_low"], "ci_high": ceiling["ci_high"],
                               "n": ceiling["n"]},
        "krippendorff_alpha_ordinal": {"mean": ceiling["krippendorff_alpha_ordinal"], "ci_low": None,
                                       "ci_high": None, "n": len(ratings)},
    }
    for row in table:
        metrics[f"rho_{row['predictor']}"] = {"mean": row["rho"], "ci_low": row["rho_ci_low"],
                                              "ci_high": row["rho_ci_high"], "n": row["n"]}
    dist = {str(v): int(sum(v == x for r in ratings for x in r)) for v in sorted({x for r in ratings for x in r})}
    extra = {
        "table": table,
        "ceiling": ceiling,
        "groups": groups_out,
        "common": common,
        "binned": {p: binned(preds[p], target) for p in predictors},
        "human": {"papers": len(rows), "ratings": sum(len(r) for r in ratings), "rating_distribution": dist,
                  "mean_of_means": _f(float(np.nanmean(target))) if len(target) else None,
                  "n_high": int(hi_mask.sum()), "n_low": int(lo_mask.sum()), "high": high, "low": low},
        "covariates": ["abstract_words", "nn_year"],
    }
    return {"metrics": metrics, "extra": extra}


def _common_subset(preds: dict[str, np.ndarray], target: np.ndarray, ratings: Sequence[Sequence[int]], *,
                   min_raters: int, n_resamples: int, seed: int, top_k: int | None,
                   min_n: int = 20) -> dict[str, Any] | None:
    """Every predictor on the same papers (those all predictors scored), when their n differ.

    Predictors computed on different subsets (a judged sample, a metric limit) are then also
    compared like for like. None when every predictor has the same papers or fewer than
    ``min_n`` papers are common.
    """
    if not preds:
        return None
    have = {p: ~np.isnan(v) for p, v in preds.items()}
    mask = np.logical_and.reduce(list(have.values()))
    n = int(mask.sum())
    if n < min_n or all(int(h.sum()) == n for h in have.values()):
        return None
    idx = np.flatnonzero(mask)
    sub_ratings = [ratings[int(i)] for i in idx]
    rows = []
    for p, v in preds.items():
        c = correlate(v[idx], target[idx], n_resamples=n_resamples, seed=seed, tau_ci=False)
        rows.append({"predictor": p, "label": predictor_label(p, top_k), "n": c.n, "rho": _f(c.rho),
                     "rho_ci_low": _f(c.rho_ci[0]), "rho_ci_high": _f(c.rho_ci[1]), "tau": _f(c.tau),
                     "rho_loro_target": _f(loro_matched(v[idx], sub_ratings, min_raters=min_raters))})
    lo, hi = loro_ci(sub_ratings, min_raters=min_raters, n_resamples=n_resamples, seed=seed)
    return {"n": n, "ceiling": _f(loro_ceiling(sub_ratings, min_raters=min_raters)), "ceiling_ci_low": _f(lo),
            "ceiling_ci_high": _f(hi), "table": rows}
