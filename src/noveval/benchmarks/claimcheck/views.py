"""CLAIMCHECK in the report (Tables 5-6 and the other tasks' metrics, WLE and WL figures) and the
set statistics ``compare`` recomputes from per-item rows (WI/CA micro span F1).

Presentation: this module belongs to the report/CLI layer (like ``cli.py``); the report,
``compare`` and ``export`` find it through the system's declaration.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from noveval.compare.metrics import ItemMetric, Rows
from noveval.metrics.spans import f1_from_span_sums
from noveval.report.figures import PALETTE, png_uri, pyplot
from noveval.report.fmt import pretty_name
from noveval.report.model import Figure, RunData, Table
from noveval.report.tables import by_run


def claimcheck_tables(runs: list[RunData]) -> tuple[list[Table], list[str]]:
    """CLAIMCHECK Tables 5-6 (WL alpha; WLE win/tie/loss) and the other tasks' metrics."""
    by_task: dict[str, list[RunData]] = {}
    for r in runs:
        by_task.setdefault(str(r.scores.get("task") or r.config.get("task") or "?"), []).append(r)
    tables: list[Table] = []
    gaps: list[str] = []
    titles = {"wl": "Table 5 — weakness labeling (Krippendorff α)", "wle": "Table 6 — weakness rewriting (WLE)",
              "wi": "Weakness identification (span F1)", "ca": "Claim association (span F1)",
              "cv": "Claim verification", "extract": "Claim extraction"}
    for task in ("wl", "wle", "wi", "ca", "cv", "extract"):
        trs = by_task.pop(task, [])
        if not trs:
            if task in ("wl", "wle"):
                gaps.append(f"CLAIMCHECK {titles[task].split(' —')[0]}: no `{task}` run in the report")
            continue
        keys: list[str] = []
        for r in trs:
            keys += [k for k in r.metrics if k not in keys]
        tables.append(by_run(trs, [(k, pretty_name(k)) for k in keys], titles[task],
                              f"Task `{task}`. " + _claimcheck_setup(trs)))
    for task, trs in by_task.items():
        keys = list(dict.fromkeys(k for r in trs for k in r.metrics))
        tables.append(by_run(trs, [(k, pretty_name(k)) for k in keys], f"Task {task}", ""))
    return tables, gaps


def _claimcheck_setup(runs: list[RunData]) -> str:
    """Protocol, seeds and judge of each CLAIMCHECK run, for a table caption."""
    parts = []
    for r in runs:
        sc = r.scores
        seeds = sc.get("seeds") or r.config.get("seeds")
        bits = [f"protocol {sc.get('protocol') or r.config.get('protocol') or 'noveval'}"]
        if seeds:
            bits.append(("seeds " if len(seeds) > 1 else "seed ") + ", ".join(str(x) for x in seeds)
                        + (" (mean over seeds)" if len(seeds) > 1 else ""))
        if sc.get("judge_note"):
            bits.append(str(sc["judge_note"]))
        parts.append(f"{r.label}: " + "; ".join(b.rstrip(".") for b in bits) + ".")
    return " ".join(parts)


def claimcheck_figures(runs: list[RunData]) -> list[Figure]:
    """WLE win/tie/loss bars and WL Krippendorff alpha per label."""
    plt = pyplot()
    out = []

    def mean(r: RunData, k: str) -> float | None:
        return r.typed.mean(k)

    wle = [r for r in runs if all(mean(r, k) is not None for k in ("win", "tie", "loss"))]
    if wle:
        fig, ax = plt.subplots(figsize=(6.0, 0.6 * len(wle) + 1.2))
        colors = {"win": "#55A868", "tie": "#BBBBBB", "loss": "#C44E52"}
        for i, r in enumerate(wle):
            left = 0.0
            for k in ("win", "tie", "loss"):
                v = mean(r, k) or 0.0
                ax.barh(i, v, left=left, color=colors[k], label=k if i == 0 else None)
                if v >= 0.08:
                    ax.text(left + v / 2, i, f"{v:.0%}", ha="center", va="center", fontsize=8, color="white")
                left += v
        ax.set_yticks(range(len(wle)), [r.label for r in wle])
        ax.set_xlim(0, 1)
        ax.set_xlabel("share of weaknesses (rewritten vs original)")
        ax.legend(frameon=False, ncol=3, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.35))
        out.append(Figure("WLE outcomes", src=png_uri(fig),
                          caption="Judge preference between the rewritten and the original weakness (Table 6)."))
    for r in runs:
        alphas: dict[str, float] = {}
        for k in r.metrics:
            a = mean(r, k) if k.startswith("alpha_") else None
            if a is not None:
                alphas[k[6:]] = a
        if not alphas:
            continue
        fig, ax = plt.subplots(figsize=(max(4.0, 0.7 * len(alphas) + 1.5), 2.8))
        ks = list(alphas)
        ax.bar(range(len(ks)), [alphas[k] for k in ks], color=[PALETTE[0] if alphas[k] >= 0 else PALETTE[3] for k in ks])
        ax.axhline(0, color="black", lw=0.8)
        ax.set_xticks(range(len(ks)), [k.replace("_", " ") for k in ks], rotation=30, ha="right")
        ax.set_ylabel("Krippendorff α")
        out.append(Figure(f"WL agreement with annotators ({r.label})", src=png_uri(fig),
                          caption="Krippendorff α between the model's weakness labels and the gold labels (Table 5)."))
    return out


def _span_data(kind: str, seeds: list[Any]) -> Any:
    """Rows -> ``[matched_<kind>, n_gold, n_pred]`` per row, in the block of the row's seed
    (one block per seed of a multi-seed run; NaN: no such fields or an unknown seed)."""
    blocks = max(1, len(seeds))

    def data(rows: Rows) -> np.ndarray:
        out = np.zeros((len(rows), 3 * blocks))
        for i, r in enumerate(rows):
            vals = [r.get(f"matched_{kind}"), r.get("n_gold"), r.get("n_pred")]
            j = seeds.index(r.get("seed")) if blocks > 1 and r.get("seed") in seeds else 0 if blocks == 1 else -1
            if j < 0 or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
                out[i] = math.nan
            else:
                out[i, 3 * j : 3 * j + 3] = vals
        return out

    return data


def _seed_mean_f1(blocks: int) -> Any:
    """``combine``: the micro span F1 of each seed's summed counts, averaged over the seeds (Appendix C.1)."""
    def f1(sums: np.ndarray) -> np.ndarray:
        s = np.asarray(sums, dtype=float)
        return np.asarray(f1_from_span_sums(s.reshape(*s.shape[:-1], blocks, 3)).mean(axis=-1))

    return f1


def claimcheck_item_metrics(scores: dict[str, Any], config: dict[str, Any]) -> dict[str, ItemMetric]:
    """WI and CA: ``f1_edit`` / ``f1_exact``, the micro span F1 (§3.4) recomputed on every resample.

    Each item's data is its aligned similarity and span counts (``matched_edit`` or
    ``matched_exact``, ``n_gold``, ``n_pred``); a set of items' F1 is
    :func:`noveval.metrics.spans.f1_from_span_sums` of their sum. A multi-seed run keeps one
    block of counts per seed (``scores.json`` ``seeds``) and averages the seeds' F1, as its
    scores do; resampling or swapping an item moves all its seeds together.
    """
    del config
    if scores.get("task") not in ("wi", "ca"):
        return {}
    seeds = list(scores.get("seeds") or [])
    seeds = seeds if len(seeds) > 1 else []
    blocks = max(1, len(seeds))
    over = f", averaged over {blocks} seeds" if blocks > 1 else ""
    out = {}
    for kind, sim in (("edit", "normalised edit-distance"), ("exact", "exact-match")):
        out[f"f1_{kind}"] = ItemMetric(
            f"f1_{kind}", f"micro span F1 ({sim} alignment) recomputed from per-item matched_{kind}, n_gold, n_pred{over}",
            _span_data(kind, seeds), _seed_mean_f1(blocks), "statistic")
    return out


tables = claimcheck_tables
figures = claimcheck_figures
item_metrics = claimcheck_item_metrics
