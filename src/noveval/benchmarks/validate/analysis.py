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

from noveval.metrics.correlation import correlate, loro_ceiling, loro_ci, loro_matched

__all__ = ["PREDICTOR_INFO", "predictor_label", "score_rows", "binned", "format_summary"]

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
    progress: bool = True,
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
        progress: Show progress.

    Returns:
        ``{"metrics", "extra"}`` parts of ``scores.json``.
    """
    from noveval.metrics.agreement import krippendorff_alpha
    from noveval.progress import track

    rows = [r for r in rows if r.get("human_scores")]
    ratings = [list(r["human_scores"]) for r in rows]
    target = np.array([_nan(r.get("human_mean")) for r in rows])
    hi_mask, lo_mask = target >= high, target <= low
    cov = np.array([[_nan(r.get("abstract_words")), _nan(r.get("nn_year"))] for r in rows], dtype=np.float64)
    preds = {p: np.array([_nan((r.get("predictors") or {}).get(p)) for r in rows]) for p in predictors}

    ceiling = loro_ceiling(ratings, min_raters=min_raters)
    c_lo, c_hi = loro_ci(ratings, min_raters=min_raters, n_resamples=n_resamples, seed=seed)
    m = max((len(r) for r in ratings), default=0)
    data = np.full((m, len(ratings)), np.nan)
    for u, rs in enumerate(ratings):
        data[: len(rs), u] = rs
    alpha = krippendorff_alpha(data, level="ordinal") if len(ratings) > 1 else math.nan
    n_ceiling = sum(len(r) >= min_raters for r in ratings)

    table = []
    groups_out = []
    from noveval.benchmarks.validate.data import keyword_groups

    groups = keyword_groups([r.get("keywords") or [] for r in rows], min_size=min_group)
    with track(len(predictors) * (1 + len(groups)), "validate: correlations" if progress else "") as tr:
        for p in predictors:
            row = _one(p, preds[p], target, ratings, high=hi_mask, low=lo_mask, cov=cov, min_raters=min_raters,
                       n_resamples=n_resamples, seed=seed, full=True)
            row["label"] = predictor_label(p, top_k)
            row["kind"] = PREDICTOR_INFO.get(p, ("", "other"))[1]
            table.append(row)
            tr.advance()
        for g, members in groups.items():
            idx = np.array(members)
            g_ratings = [ratings[i] for i in members]
            g_ceiling = loro_ceiling(g_ratings, min_raters=min_raters)
            g_lo, g_hi = loro_ci(g_ratings, min_raters=min_raters, n_resamples=n_resamples, seed=seed)
            cells = {}
            for p in predictors:
                c = _one(p, preds[p][idx], target[idx], g_ratings, high=hi_mask[idx], low=lo_mask[idx], cov=None,
                         min_raters=min_raters, n_resamples=n_resamples, seed=seed, full=False)
                cells[p] = {k: c[k] for k in ("n", "rho", "rho_ci_low", "rho_ci_high", "tau", "rho_loro_target")}
                tr.advance()
            groups_out.append({"group": g, "n": len(members), "ceiling": _f(g_ceiling), "ceiling_ci_low": _f(g_lo),
                               "ceiling_ci_high": _f(g_hi), "predictors": cells})

    common = _common_subset(preds, target, ratings, min_raters=min_raters, n_resamples=n_resamples, seed=seed,
                            top_k=top_k)

    metrics: dict[str, dict[str, Any]] = {
        "human_ceiling_loro": {"mean": _f(ceiling), "ci_low": _f(c_lo), "ci_high": _f(c_hi), "n": n_ceiling},
        "krippendorff_alpha_ordinal": {"mean": _f(alpha), "ci_low": None, "ci_high": None, "n": len(ratings)},
    }
    for row in table:
        metrics[f"rho_{row['predictor']}"] = {"mean": row["rho"], "ci_low": row["rho_ci_low"],
                                              "ci_high": row["rho_ci_high"], "n": row["n"]}
    dist = {str(v): int(sum(v == x for r in ratings for x in r)) for v in sorted({x for r in ratings for x in r})}
    extra = {
        "table": table,
        "ceiling": {"rho": _f(ceiling), "ci_low": _f(c_lo), "ci_high": _f(c_hi), "n": n_ceiling,
                    "min_raters": min_raters, "krippendorff_alpha_ordinal": _f(alpha),
                    "definition": "mean over reviewer slots j < min_raters of Spearman(reviewer j, mean of the "
                                  "paper's other reviewers), papers with >= min_raters ratings"},
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


def _ci(lo: Any, hi: Any, digits: int = 3) -> str:
    if lo is None or hi is None:
        return ""
    return f"[{lo:.{digits}f}, {hi:.{digits}f}]"


def _v(v: Any, digits: int = 3) -> str:
    return "–" if v is None else f"{v:.{digits}f}"


def format_summary(scores: dict[str, Any]) -> str:
    """The terminal summary: one line per predictor with ρ [CI], τ, AUC, n, next to the ceiling."""
    ex = scores.get("extra") or {}
    c = ex.get("ceiling") or {}
    pool = ex.get("pool") or {}
    model = scores.get("model") or "none"
    judge = "no LLM judge" if model == "none" else f"LLM judges: {model} on {(ex.get('papers') or {}).get('judged')} papers"
    if "SmolLM2-135M" in model:
        judge += " (the bundled 135M model: plumbing only, not a measurement of LLM judges)"
    lines = [
        f"pool: {pool.get('mode')}, {pool.get('pool_size')} prior papers per paper"
        f"{', field ' + str(pool.get('field')) if pool.get('field') else ', all fields'} "
        f"({pool.get('candidates')} candidates before {pool.get('before_year')}); embedder {scores.get('embedder')}; {judge}",
        f"human ceiling (one reviewer vs the others' mean, Spearman): {_v(c.get('rho'))} "
        f"{_ci(c.get('ci_low'), c.get('ci_high'))}  n={c.get('n')} papers with >= {c.get('min_raters')} ratings; "
        f"Krippendorff alpha (ordinal) {_v(c.get('krippendorff_alpha_ordinal'))}",
        f"{'predictor':<28} {'rho [95% CI]':<26} {'tau':>7} {'AUC hi/lo':>10} {'partial':>8} {'rho LORO':>9} {'n':>6}",
    ]
    for r in ex.get("table") or []:
        lines.append(
            f"{r.get('label', r['predictor']):<28} {_v(r.get('rho')) + ' ' + _ci(r.get('rho_ci_low'), r.get('rho_ci_high')):<26} "
            f"{_v(r.get('tau')):>7} {_v(r.get('auc')):>10} {_v(r.get('partial_rho')):>8} "
            f"{_v(r.get('rho_loro_target')):>9} {r.get('n', 0):>6}")
    com = ex.get("common")
    if com:
        lines.append(f"same {com['n']} papers for every predictor (human ceiling {_v(com.get('ceiling'))} "
                     f"{_ci(com.get('ceiling_ci_low'), com.get('ceiling_ci_high'))}):")
        for r in com["table"]:
            lines.append(f"  {r.get('label', r['predictor']):<26} "
                         f"{_v(r.get('rho')) + ' ' + _ci(r.get('rho_ci_low'), r.get('rho_ci_high')):<26} "
                         f"{_v(r.get('tau')):>7} {'':>10} {'':>8} {_v(r.get('rho_loro_target')):>9} {r.get('n', 0):>6}")
    h = ex.get("human") or {}
    lines.append(f"target: mean {scores.get('aspect', 'originality')} of {h.get('papers')} papers; AUC separates "
                 f"{h.get('n_high')} papers with mean >= {h.get('high')} from {h.get('n_low')} with mean <= {h.get('low')}; "
                 "partial rho controls for abstract length and nearest-neighbour year; "
                 "rho LORO = against the ceiling's own targets (compare with the ceiling)")
    fails = (scores.get("failures") or {})
    if fails.get("total"):
        lines.append(f"FAILED: {fails['total']} computation(s)/call(s) failed ({fails}); the run is incomplete")
    return "\n".join(lines)
