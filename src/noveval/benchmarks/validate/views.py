"""The report's validity section (``noveval validate`` runs): the agreement table and figures.

Table: one row per predictor with Spearman ρ [95% CI], Kendall τ, AUC (high vs low
originality), partial ρ, ρ against the ceiling's own targets, n, and the human ceiling.
Figures: mean human rating per predictor quintile (with 95% CIs) and the per-paper scatter.
Terminal: :func:`summary_lines`, the same table as text. ``compare``: each predictor's ``rho_*``
recomputed from the per-paper rows on every resample (:func:`validate_item_metrics`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from noveval.compare.metrics import ItemMetric, Rows
from noveval.metrics.correlation import spearman_rows
from noveval.report.figures import PALETTE, png_uri, pyplot
from noveval.report.fmt import num
from noveval.report.model import Cell, Figure, RunData, Table

__all__ = ["summary_lines", "validity_tables", "validity_figures", "validate_item_metrics"]


def _extra(r: RunData) -> dict[str, Any]:
    return r.extra


def _cell(v: Any, lo: Any = None, hi: Any = None, n: Any = None, digits: int = 3) -> Cell:
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        return Cell("–", title="not available")
    ci = f"[{num(float(lo), digits)}, {num(float(hi), digits)}]" if isinstance(lo, (int, float)) and isinstance(hi, (int, float)) else ""
    return Cell(num(float(v), digits), ci=ci, value=float(v), title=f"n = {n}" if n is not None else "")


def _setting(r: RunData) -> str:
    pool = r.config.get("pool") or {}
    bits = [f"pool {pool.get('mode')} ({pool.get('size')})" if pool else "", f"embedder {r.config.get('embedder')}",
            f"judge model {r.config.get('model')}" if r.config.get("model") else "no LLM judge"]
    return "; ".join(b for b in bits if b)


def validity_tables(runs: list[RunData]) -> tuple[list[Table], list[str]]:
    """Per run: the predictor table next to the human ceiling, and ρ per keyword group."""
    tables: list[Table] = []
    gaps: list[str] = []
    for r in runs:
        ex = _extra(r)
        table, ceil = ex.get("table"), ex.get("ceiling") or {}
        if not isinstance(table, list) or not table:
            gaps.append(f"validity: run {r.label} has no `extra.table`")
            continue
        ceiling = _cell(ceil.get("rho"), ceil.get("ci_low"), ceil.get("ci_high"), ceil.get("n"))
        rows = []
        for row in table:
            rows.append((str(row.get("label") or row.get("predictor")), [
                _cell(row.get("rho"), row.get("rho_ci_low"), row.get("rho_ci_high"), row.get("n")),
                _cell(row.get("tau"), row.get("tau_ci_low"), row.get("tau_ci_high"), row.get("n")),
                _cell(row.get("auc"), row.get("auc_ci_low"), row.get("auc_ci_high"),
                      f"{row.get('n_high')} high / {row.get('n_low')} low"),
                _cell(row.get("partial_rho"), row.get("partial_ci_low"), row.get("partial_ci_high")),
                _cell(row.get("rho_loro_target"), row.get("rho_loro_target_ci_low"), row.get("rho_loro_target_ci_high")),
                Cell(str(row.get("n", 0)), value=None),
                Cell(ceiling.text, ci=ceiling.ci, value=None, title=ceiling.title),
            ]))
        h = ex.get("human") or {}
        tables.append(Table(
            f"Agreement with human {r.scores.get('aspect') or 'originality'} ratings ({r.label})",
            ["Spearman ρ", "Kendall τ", "AUC high/low", "partial ρ", "ρ vs LORO targets", "n", "human ceiling"], rows,
            caption=(f"Target: mean rating of {h.get('papers')} papers. 95% bootstrap CIs (papers resampled). "
                     f"AUC separates {h.get('n_high')} papers with mean ≥ {h.get('high')} from {h.get('n_low')} with "
                     f"mean ≤ {h.get('low')}. Partial ρ controls for abstract length and the nearest prior paper's year. "
                     "Human ceiling: one reviewer against the mean of the paper's other reviewers (Spearman, averaged "
                     f"over reviewer slots; Krippendorff α ordinal {_cell(ceil.get('krippendorff_alpha_ordinal')).text}); "
                     "'ρ vs LORO targets' correlates the predictor with the same targets, the like-for-like comparison. "
                     f"Greater = more novel for every predictor. {_setting(r)}."),
            kind="paper"))
        com = ex.get("common")
        if isinstance(com, dict) and com.get("table"):
            ceil_c = _cell(com.get("ceiling"), com.get("ceiling_ci_low"), com.get("ceiling_ci_high"), com.get("n"))
            crows = [(str(c.get("label") or c["predictor"]), [
                _cell(c.get("rho"), c.get("rho_ci_low"), c.get("rho_ci_high"), c.get("n")), _cell(c.get("tau")),
                _cell(c.get("rho_loro_target")), Cell(str(c.get("n", 0))),
                Cell(ceil_c.text, ci=ceil_c.ci, title=ceil_c.title)]) for c in com["table"]]
            tables.append(Table(f"The same {com['n']} papers for every predictor ({r.label})",
                                ["Spearman ρ", "Kendall τ", "ρ vs LORO targets", "n", "human ceiling"], crows,
                                caption="Predictors computed on different subsets (the judged sample, a metric "
                                        "limit) compared on the papers they all scored; the ceiling on the same papers.",
                                kind="paper"))
        groups = ex.get("groups") or []
        if groups:
            names = [row["predictor"] for row in table]
            labels = [str(row.get("label") or row["predictor"]) for row in table]
            grows = []
            for g in groups:
                cells = [_cell(g.get("ceiling"), g.get("ceiling_ci_low"), g.get("ceiling_ci_high"))]
                for p in names:
                    c = (g.get("predictors") or {}).get(p) or {}
                    cells.append(_cell(c.get("rho"), c.get("rho_ci_low"), c.get("rho_ci_high"), c.get("n")))
                grows.append((f"{g['group']} (n={g['n']})", cells))
            tables.append(Table(f"Spearman ρ per keyword group ({r.label})", ["human ceiling", *labels], grows,
                                caption="Papers sharing a normalised author keyword (groups overlap); 95% bootstrap CIs.",
                                kind="paper"))
    return tables, gaps


def _grid(plt: Any, n: int) -> tuple[Any, Any]:
    """A figure with one panel per predictor, four per row, sharing the rating axis."""
    cols = min(4, n)
    rows = (n + cols - 1) // cols
    return plt.subplots(rows, cols, figsize=(2.9 * cols, 2.4 * rows), squeeze=False, sharey=True)


def _finish(fig: Any, axes: Any, n: int) -> None:
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    for row_axes in axes:
        row_axes[0].set_ylabel("mean human rating")
    fig.tight_layout()


def validity_figures(runs: list[RunData]) -> list[Figure]:
    """Mean human rating per predictor quintile, and per-paper scatter plots."""
    plt = pyplot()
    out = []
    for r in runs:
        ex = _extra(r)
        table = ex.get("table") or []
        binned = ex.get("binned") or {}
        names = [row["predictor"] for row in table if binned.get(row["predictor"])]
        if not names:
            continue
        labels = {row["predictor"]: str(row.get("label") or row["predictor"]) for row in table}
        rhos = {row["predictor"]: row.get("rho") for row in table}
        fig, axes = _grid(plt, len(names))
        for ax, p in zip(axes.flat, names):
            bins = binned[p]
            xs = list(range(1, len(bins) + 1))
            means = [b["mean"] for b in bins]
            err = [[b["mean"] - (b["ci_low"] if b["ci_low"] is not None else b["mean"]) for b in bins],
                   [(b["ci_high"] if b["ci_high"] is not None else b["mean"]) - b["mean"] for b in bins]]
            ax.errorbar(xs, means, yerr=err, marker="o", color=PALETTE[0], capsize=2, lw=1.2)
            ax.set_xticks(xs)
            rho = rhos.get(p)
            ax.set_title(labels[p] + (f"  ρ={rho:.2f}" if isinstance(rho, (int, float)) else ""), fontsize=8)
            ax.set_xlabel("predictor quintile (low → high)", fontsize=7)
        _finish(fig, axes, len(names))
        out.append(Figure(f"Human rating by predictor quintile ({r.label})", src=png_uri(fig),
                          caption="Papers binned by each predictor's quintiles; mean human rating per bin with a 95% "
                                  "normal-approximation CI. A predictor that tracks the reviewers rises left to right."))
        pts = [(float(row["human_mean"]), row.get("predictors") or {}) for row in r.per_item
               if isinstance(row.get("human_mean"), (int, float))]
        if pts:
            fig, axes = _grid(plt, len(names))
            rng = np.random.default_rng(0)
            for ax, p in zip(axes.flat, names):
                xy = [(float(v[p]), y) for y, v in pts if isinstance(v.get(p), (int, float))]
                if not xy:
                    continue
                x, y = np.array(xy).T
                size, alpha = (4, 0.25) if len(x) > 500 else (14, 0.7)
                ax.scatter(x, y + rng.uniform(-0.08, 0.08, len(y)), s=size, alpha=alpha, color=PALETTE[1],
                           linewidths=0)
                ax.set_title(labels[p], fontsize=8)
            _finish(fig, axes, len(names))
            out.append(Figure(f"Per-paper scatter ({r.label})", src=png_uri(fig),
                              caption="One dot per paper (ratings jittered vertically by ±0.08)."))
    return out


tables = validity_tables
figures = validity_figures


def _ci(lo: Any, hi: Any, digits: int = 3) -> str:
    if lo is None or hi is None:
        return ""
    return f"[{lo:.{digits}f}, {hi:.{digits}f}]"


def _v(v: Any, digits: int = 3) -> str:
    return "–" if v is None else f"{v:.{digits}f}"


def summary_lines(scores: dict[str, Any]) -> list[str]:
    """The terminal summary's metric lines: one per predictor with ρ [CI], τ, AUC, n, next to the ceiling.

    The shared summary (:func:`noveval.cli.summary.format_summary`) prints these instead of
    its generic metric table.
    """
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
        *([f"candidates capped by {pool['candidate_cap']}: a smoke test, not comparable with a full run "
           "(docs/validate.md)"] if pool.get("candidate_cap") else []),
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
    return lines



def _num(v: Any) -> float:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else math.nan


def _rho_data(predictor: str) -> Any:
    """Rows -> ``[predictor, human_mean, abstract_words, nn_year]``; NaN when the paper has no
    rating or any of them is missing (the papers :func:`~noveval.metrics.correlation.correlate` keeps)."""

    def data(rows: Rows) -> np.ndarray:
        out = np.array([[_num((r.get("predictors") or {}).get(predictor)), _num(r.get("human_mean")),
                         _num(r.get("abstract_words")), _num(r.get("nn_year"))] for r in rows], dtype=float)
        out[[not r.get("human_scores") for r in rows]] = math.nan
        return out.reshape(len(rows), 4)

    return data


def _spearman(stack: np.ndarray) -> np.ndarray:
    """Spearman ρ of columns 0 and 1 of each item set in a stack ``(r, m, 4)``."""
    x = np.asarray(stack, dtype=float)
    return spearman_rows(x[..., 0], x[..., 1])


def validate_item_metrics(scores: dict[str, Any], config: dict[str, Any]) -> dict[str, ItemMetric]:
    """Each ``rho_<predictor>``: Spearman ρ with the mean originality rating, a statistic of the papers.

    A paper's data is its predictor value, ``human_mean`` and the two covariates (the
    table's ρ uses the papers that have all four, :mod:`noveval.benchmarks.validate.analysis`);
    ρ is recomputed on every resample and swap (average ranks, ties share their mean rank).
    """
    del config
    metrics: dict[str, Any] = scores["metrics"] if isinstance(scores.get("metrics"), dict) else {}
    return {name: ItemMetric(name, f"Spearman rho of per-item predictors.{name[4:]} with human_mean "
                                   "(papers with abstract_words and nn_year), recomputed on every resample",
                             _rho_data(name[4:]), kind="statistic", statistic=_spearman)
            for name in metrics if name.startswith("rho_")}


item_metrics = validate_item_metrics
