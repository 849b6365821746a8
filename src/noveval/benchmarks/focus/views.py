"""Focus-level review evaluation in the report (Table 3, the Figure 4 distributions) and the set
statistic ``compare`` recomputes from per-paper rows (``kl_mean`` from facet counts).

Presentation: this module belongs to the report/CLI layer (like ``cli.py``); the report,
``compare`` and ``export`` find it through the system's declaration.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from noveval.benchmarks.focus.protocol import PROTOCOLS
from noveval.benchmarks.focus.scoring import count_vector, kl_mean_of_counts
from noveval.compare.metrics import ItemMetric, Rows
from noveval.metrics.focus import DEFAULT_EPSILON
from noveval.report.figures import PALETTE, png_uri, pyplot
from noveval.report.fmt import mark_best, metric_cell
from noveval.report.model import Cell, Figure, RunData, Table
from noveval.report.tables import REFERENCE_NOTE, reference_rows


def focus_tables(runs: list[RunData]) -> tuple[list[Table], list[str]]:
    """Focus-level Table 3: KL per distribution (+ mean) and multiset F1."""
    dists = ["strength/target", "weakness/target", "strength/aspect", "weakness/aspect"]
    rows, gaps = [], []
    for r in runs:
        extra = r.extra
        kl = extra.get("kl") or {}
        m = r.metrics
        proto = str(r.scores.get("protocol") or "noveval")
        if (extra.get("protocol") or {}).get("note"):
            proto += f" (scoring; run: {r.config.get('protocol') or 'noveval'})"
        cells = [Cell(proto, title=str((extra.get("protocol") or {}).get("note") or ""))]
        cells += [metric_cell(m.get("kl_mean") if "kl_mean" in m else kl.get("mean"))]
        cells += [metric_cell(kl.get(d)) for d in dists]
        cells += [metric_cell(m.get(k)) for k in ("f1_overall", "f1_strength", "f1_weakness")]
        rows.append((r.label, cells))
        if not kl:
            gaps.append(f"focus Table 3: run {r.label} has no `extra.kl`")
    header = ["Protocol", "KL mean", *(f"KL {d}" for d in dists), "F1 overall", "F1 strength", "F1 weakness"]
    for j in range(1, len(header)):
        mark_best([c[j] for _, c in rows], lower=j < 6)
    caption = ("KL(human ‖ model) per focus distribution (lower is better; – = left out: no "
               "labelled point on one side) and F1 of (target, aspect) labels (higher is better): "
               "protocol paper = rejected papers, meta-review chain, set F1; noveval = all papers, "
               "all reviewers' points, multiset F1 (docs/fidelity.md).")
    keys = ["", "kl_mean", *("" for _ in dists), "f1_overall", "f1_strength", "f1_weakness"]
    refs = reference_rows(runs, list(zip(keys, header, strict=True)))  # after the best marks: never bold
    if refs:
        rows += refs
        caption += " " + REFERENCE_NOTE
    return [Table("Table 3 — focus alignment with expert reviews", header, rows, caption=caption, kind="paper")], gaps


def focus_figures(runs: list[RunData]) -> list[Figure]:
    """Figure 4: the four focus distributions, human vs model, per run."""
    plt = pyplot()
    out = []
    for r in runs:
        ex = r.extra
        d = ex.get("distributions") or {}
        hum, mod = d.get("human") or {}, d.get("model") or {}
        keys = [k for k in hum if k in mod]
        if not keys:
            continue
        facets = ex.get("facets") or {}
        fig, axes = plt.subplots(1, len(keys), figsize=(3.2 * len(keys), 3.0), squeeze=False)
        for ax, k in zip(axes[0], keys, strict=True):
            labels = facets.get(k.split("/")[-1]) or [str(i) for i in range(len(hum[k]))]
            x = range(len(labels))
            w = 0.4
            ax.bar([i - w / 2 for i in x], hum[k], w, label="human", color=PALETTE[0])
            ax.bar([i + w / 2 for i in x], mod[k], w, label="model", color=PALETTE[1])
            ax.set_xticks(list(x), labels, rotation=40, ha="right", fontsize=7)
            kl = (ex.get("kl") or {}).get(k)
            ax.set_title(k + (f"  (KL {kl:.2f})" if isinstance(kl, (int, float)) else ""))
            ax.set_ylim(0, max(1e-9, *hum[k], *mod[k]) * 1.15)
        axes[0][0].set_ylabel("share of points")
        axes[0][0].legend(frameon=False)
        out.append(Figure(f"Focus distributions: human vs model ({r.label})", src=png_uri(fig),
                          caption="Share of review points per target/aspect, for strengths and weaknesses (Figure 4)."))
    return out


REPLACES_SAVED = ("focus",)
"""Images the runs save themselves (by title) that the figures here draw again."""

def _count_rows(rows: Rows) -> np.ndarray:
    return np.array([count_vector(r.get("focus_counts") or {}) for r in rows], dtype=float).reshape(len(rows), -1)


def focus_item_metrics(scores: dict[str, Any], config: dict[str, Any]) -> dict[str, ItemMetric]:
    """``kl_mean`` as a statistic of the papers: the pooled KL recomputed from per-paper facet counts.

    Each paper's data is its ``focus_counts`` (human and model facet counts of the four
    distributions); a set of papers' ``kl_mean`` is :func:`~noveval.benchmarks.focus.scoring.kl_mean_of_counts`
    of their sum, with the run's smoothing (``config.json`` ``epsilon``) and its protocol's
    rule for distributions empty on one side -- exactly how scoring computed it (Table 3).
    """
    proto = PROTOCOLS.get(str(scores.get("protocol") or "noveval"))
    eps = config.get("epsilon", DEFAULT_EPSILON)
    if proto is None or not isinstance(eps, (int, float)) or isinstance(eps, bool):
        return {}
    present_only = proto.kl_present_only

    def kl_mean(sums: np.ndarray) -> np.ndarray:
        return kl_mean_of_counts(sums, epsilon=float(eps), present_only=present_only)

    rule = "distributions with points on both sides" if present_only else "all four distributions"
    return {"kl_mean": ItemMetric(
        "kl_mean", f"mean KL(human || model) over {rule}, recomputed from per-paper facet counts (epsilon {eps:g})",
        _count_rows, kl_mean, "statistic")}


tables = focus_tables
figures = focus_figures
item_metrics = focus_item_metrics
