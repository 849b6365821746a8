"""Figures drawn with matplotlib (Agg) and inlined as base64 PNG ``data:`` URIs.

Each builder takes the runs of one benchmark and returns :class:`Figure` objects;
data the builder needs but does not find simply yields no figure (the caller lists
the gap).
"""

from __future__ import annotations

import base64
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

from noveval.report.model import Figure, RunData

__all__ = ["FIGURES", "png_uri", "file_uri"]

_PALETTE = ["#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860", "#DA8BC3", "#8C8C8C"]


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({
        "font.size": 9, "axes.spines.top": False, "axes.spines.right": False, "axes.titlesize": 10,
        "axes.titleweight": "bold", "figure.dpi": 110, "axes.grid": True, "grid.alpha": 0.25,
        "axes.axisbelow": True,
    })
    return plt


def png_uri(fig: Any) -> str:
    """Render a matplotlib figure to a base64 PNG ``data:`` URI and close it."""
    plt = _plt()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight", dpi=110)
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def file_uri(path: Path) -> str:
    """A saved PNG/SVG file as a ``data:`` URI."""
    mime = "image/svg+xml" if path.suffix.lower() == ".svg" else "image/png"
    return f"data:{mime};base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def _extra(r: RunData) -> dict[str, Any]:
    return r.extra


def focus_figures(runs: list[RunData]) -> list[Figure]:
    """Figure 4: the four focus distributions, human vs model, per run."""
    plt = _plt()
    out = []
    for r in runs:
        ex = _extra(r)
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
            ax.bar([i - w / 2 for i in x], hum[k], w, label="human", color=_PALETTE[0])
            ax.bar([i + w / 2 for i in x], mod[k], w, label="model", color=_PALETTE[1])
            ax.set_xticks(list(x), labels, rotation=40, ha="right", fontsize=7)
            kl = (ex.get("kl") or {}).get(k)
            ax.set_title(k + (f"  (KL {kl:.2f})" if isinstance(kl, (int, float)) else ""))
            ax.set_ylim(0, max(1e-9, *hum[k], *mod[k]) * 1.15)
        axes[0][0].set_ylabel("share of points")
        axes[0][0].legend(frameon=False)
        out.append(Figure(f"Focus distributions: human vs model ({r.label})", src=png_uri(fig),
                          caption="Share of review points per target/aspect, for strengths and weaknesses (Figure 4)."))
    return out


def _conf_rows(cm: dict[str, dict[str, int]]) -> tuple[list[str], list[str], list[list[float]]]:
    rows = sorted(cm, key=str)
    cols: list[str] = []
    for r in rows:
        cols += [c for c in cm[r] if c not in cols]
    return rows, cols, [[float(cm[r].get(c, 0)) for c in cols] for r in rows]


def rinobench_figures(runs: list[RunData]) -> list[Figure]:
    """Confusion matrix per run and predicted vs gold score histogram."""
    plt = _plt()
    out = []
    for r in runs:
        cm = _extra(r).get("confusion_matrix")
        if not isinstance(cm, dict) or not cm:
            continue
        rows, cols, data = _conf_rows(cm)
        fig, ax = plt.subplots(figsize=(0.6 * len(cols) + 1.8, 0.5 * len(rows) + 1.4))
        ax.grid(False)
        im = ax.imshow(data, cmap="Blues", aspect="auto")
        ax.set_xticks(range(len(cols)), ["unp." if c == "unparseable" else c for c in cols])
        ax.set_yticks(range(len(rows)), rows)
        top = max(max(row) for row in data) or 1
        for i, row in enumerate(data):
            for j, v in enumerate(row):
                ax.text(j, i, f"{v:.0f}", ha="center", va="center", fontsize=8, color="white" if v > top / 2 else "black")
        ax.set_xlabel("predicted score")
        ax.set_ylabel("gold score")
        fig.colorbar(im, ax=ax, fraction=0.05)
        out.append(Figure(f"Confusion matrix ({r.label})", src=png_uri(fig),
                          caption="Rows: gold novelty score; columns: predicted score (unp. = unparseable)."))
    dists: list[tuple[RunData, dict[str, Any]]] = []
    for r in runs:
        d = _extra(r).get("predicted_score_distribution")
        if isinstance(d, dict) and d:
            dists.append((r, d))
    if dists:
        gold = next((_extra(r).get("gold_score_distribution") for r, _ in dists if _extra(r).get("gold_score_distribution")), None)
        series: list[tuple[str, dict[str, Any]]] = ([("gold", gold)] if isinstance(gold, dict) else []) + [
            (r.label, d) for r, d in dists]
        labels = list(dict.fromkeys(k for _, d in series for k in d))
        fig, ax = plt.subplots(figsize=(max(4.5, 0.9 * len(labels) * max(1, len(series) / 2)), 3.0))
        w = 0.8 / len(series)
        for s, (name, d) in enumerate(series):
            tot = sum(d.values()) or 1
            ax.bar([i - 0.4 + w * (s + 0.5) for i in range(len(labels))], [d.get(k, 0) / tot for k in labels], w,
                   label=name, color="#999999" if name == "gold" else _PALETTE[s % len(_PALETTE)])
        ax.set_xticks(range(len(labels)), ["unp." if k == "unparseable" else k for k in labels])
        ax.set_xlabel("novelty score")
        ax.set_ylabel("share of items")
        ax.legend(frameon=False, fontsize=7)
        out.append(Figure("Predicted score distribution", src=png_uri(fig),
                          caption="Share of items per predicted score, with the gold distribution in grey."))
    return out


def axioms_figures(runs: list[RunData]) -> list[Figure]:
    """Pass-rate heatmap (metric × axiom, overall) per run."""
    from noveval.benchmarks.axioms.plots import draw_pass_rates

    plt = _plt()

    out = []
    for r in runs:
        tab = _extra(r).get("table")
        if not isinstance(tab, dict) or not isinstance(tab.get("overall"), dict):
            continue
        cols = list(tab.get("columns") or [])
        metrics = list(tab["overall"])
        fig, ax = plt.subplots(figsize=(1.2 + 0.75 * len(cols), 0.9 + 0.45 * len(metrics)))
        ax.grid(False)
        im = draw_pass_rates(ax, {**tab, "columns": cols}, metrics, rotation=40, fractions_as_percent=True)
        fig.colorbar(im, ax=ax, fraction=0.03)
        out.append(Figure(f"Axiom pass rates, % ({r.label})", src=png_uri(fig),
                          caption="Overall pass rate of each novelty metric on each axiom check (Table 2, All rows)."))
    return out


def novbench_figures(runs: list[RunData]) -> list[Figure]:
    """Sentiment distributions (positive / neutral / negative) of the generated evaluations per run."""
    plt = _plt()
    sents = ("positive", "neutral", "negative")
    series = []
    for r in runs:
        ds: list[dict[str, Any]] = [d for row in r.per_item if isinstance(d := row.get("distribution"), dict)]
        ds = [d for d in ds if sum(float(d.get(s) or 0) for s in sents) > 0]
        if ds:
            series.append((r, [[float(d.get(s) or 0) for d in ds] for s in sents]))
    if not series:
        return []
    fig, ax = plt.subplots(figsize=(max(4.5, 1.6 * len(series) + 2), 3.2))
    colors = {"positive": "#55A868", "neutral": "#8C8C8C", "negative": "#C44E52"}
    w = 0.8 / 3
    for j, s in enumerate(sents):
        xs = [i - 0.4 + w * (j + 0.5) for i in range(len(series))]
        means = [sum(v[j]) / len(v[j]) for _, v in series]
        ax.bar(xs, means, w, color=colors[s], label=s, alpha=0.85)
        for x, (_, v) in zip(xs, series, strict=True):
            ax.scatter([x] * len(v[j]), v[j], s=6, color="black", alpha=0.35, zorder=3)
    ax.set_xticks(range(len(series)), [r.label for r, _ in series], rotation=15, ha="right")
    ax.set_ylabel("share of evaluation items")
    ax.set_ylim(0, 1.05)
    ax.legend(frameon=False, ncol=3, fontsize=8)
    return [Figure("Sentiment distribution of generated evaluations", src=png_uri(fig),
                   caption="Mean share of positive / neutral / negative items per paper (bars), one dot per paper (Figure 4).")]


def saved_figures(runs: list[RunData]) -> list[Figure]:
    """Images the runs saved themselves (PNG/SVG in the run directory)."""
    return [Figure(f"{p.stem} ({r.label})", src=file_uri(p), caption=f"Saved by the run as {p.name}.")
            for r in runs for p in r.images]


FIGURES: dict[str, Callable[[list[RunData]], list[Figure]]] = {
    "focus": focus_figures,
    "rinobench": rinobench_figures,
    "axioms": axioms_figures,
    "novbench": novbench_figures,
}


def claimcheck_figures(runs: list[RunData]) -> list[Figure]:
    """WLE win/tie/loss bars and WL Krippendorff alpha per label."""
    plt = _plt()
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
        ax.bar(range(len(ks)), [alphas[k] for k in ks], color=[_PALETTE[0] if alphas[k] >= 0 else _PALETTE[3] for k in ks])
        ax.axhline(0, color="black", lw=0.8)
        ax.set_xticks(range(len(ks)), [k.replace("_", " ") for k in ks], rotation=30, ha="right")
        ax.set_ylabel("Krippendorff α")
        out.append(Figure(f"WL agreement with annotators ({r.label})", src=png_uri(fig),
                          caption="Krippendorff α between the model's weakness labels and the gold labels (Table 5)."))
    return out


FIGURES["claimcheck"] = claimcheck_figures


def _validity_figures(runs: list[RunData]) -> list[Figure]:
    from noveval.report.validity import validity_figures

    return validity_figures(runs)


FIGURES["validate"] = _validity_figures
