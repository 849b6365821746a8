"""RINoBench in the report and in ``compare``: Table 3, per-class F1, confusion matrices, score
distributions, and the metrics ``compare`` recomputes from per-item rows (F1 from counts).

Presentation: this module belongs to the report/CLI layer (like ``cli.py``); the report,
``compare`` and ``export`` find it through the system's declaration.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from noveval.compare.metrics import ItemMetric, Rows, mean_of
from noveval.metrics.paired import Combine, class_counts, f1_from_counts
from noveval.report.figures import PALETTE, png_uri, pyplot
from noveval.report.model import Figure, RunData, Table
from noveval.report.tables import by_run, missing_gaps


def rinobench_tables(runs: list[RunData]) -> tuple[list[Table], list[str]]:
    """RINoBench Table 3: macro-F1, MAE and the justification metrics."""
    cols = [("f1_macro", "Macro-F1"), ("mean_absolute_error", "MAE"), ("mean_alignment", "Alignment"),
            ("mean_known_aspects_recall", "Recall known"), ("mean_novelty_aspects_recall", "Recall novel"),
            ("mean_additional_known_aspects_ratio", "Additional known"),
            ("mean_additional_novelty_aspects_ratio", "Additional novel"),
            ("mean_known_aspects_hallucination_rate", "Halluc. known"),
            ("mean_novelty_aspects_hallucination_rate", "Halluc. novel")]
    def setup(r: RunData) -> str:
        extra = r.extra
        labels = extra.get("f1_labels") or "fixed"
        bits = [f"F1 labels {labels}" + (" (classes 1-5)" if labels == "fixed" else " (released eval.py)"),
                f"protocol {extra.get('protocol') or 'unknown'}"]
        jo = extra.get("judge_options")
        if isinstance(jo, dict):
            cap = jo.get("max_arguments")
            bits.append(f"arguments {'all' if cap is None else f'≤ {cap}'}, grounding {jo.get('grounding_context', 'split')}")
        return f"{r.label}: " + ", ".join(bits)

    t = by_run(runs, cols, "Table 3 — score prediction and justification quality",
                "Macro-F1 over the novelty classes; MAE over parsed predictions; the remaining "
                "columns are judge-based justification metrics (Eqs. 1-3); Alignment is 1-5 mapped to [0, 1], "
                "not deepeval's 0-10 G-Eval scale. Set-up per run — " + "; ".join(setup(r) for r in runs) + ".")
    per_class = by_run(runs, [(f"f1_{c}", f"F1 {c}") for c in range(1, 6)], "Per-class F1",
                        "F1 of each gold novelty score 1-5 (models tend to avoid the extremes).")
    return [t, per_class], missing_gaps(runs, [k for k, _ in cols], "RINoBench Table 3")


def _conf_rows(cm: dict[str, dict[str, int]]) -> tuple[list[str], list[str], list[list[float]]]:
    rows = sorted(cm, key=str)
    cols: list[str] = []
    for r in rows:
        cols += [c for c in cm[r] if c not in cols]
    return rows, cols, [[float(cm[r].get(c, 0)) for c in cols] for r in rows]


def rinobench_figures(runs: list[RunData]) -> list[Figure]:
    """Confusion matrix per run and predicted vs gold score histogram."""
    plt = pyplot()
    out = []
    for r in runs:
        cm = r.extra.get("confusion_matrix")
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
        d = r.extra.get("predicted_score_distribution")
        if isinstance(d, dict) and d:
            dists.append((r, d))
    if dists:
        gold = next((r.extra.get("gold_score_distribution") for r, _ in dists if r.extra.get("gold_score_distribution")), None)
        series: list[tuple[str, dict[str, Any]]] = ([("gold", gold)] if isinstance(gold, dict) else []) + [
            (r.label, d) for r, d in dists]
        labels = list(dict.fromkeys(k for _, d in series for k in d))
        fig, ax = plt.subplots(figsize=(max(4.5, 0.9 * len(labels) * max(1, len(series) / 2)), 3.0))
        w = 0.8 / len(series)
        for s, (name, d) in enumerate(series):
            tot = sum(d.values()) or 1
            ax.bar([i - 0.4 + w * (s + 0.5) for i in range(len(labels))], [d.get(k, 0) / tot for k in labels], w,
                   label=name, color="#999999" if name == "gold" else PALETTE[s % len(PALETTE)])
        ax.set_xticks(range(len(labels)), ["unp." if k == "unparseable" else k for k in labels])
        ax.set_xlabel("novelty score")
        ax.set_ylabel("share of items")
        ax.legend(frameon=False, fontsize=7)
        out.append(Figure("Predicted score distribution", src=png_uri(fig),
                          caption="Share of items per predicted score, with the gold distribution in grey."))
    return out


_RINO_LABELS = (1, 2, 3, 4, 5)


def _score(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) and v in _RINO_LABELS else None


def _rino_counts(rows: Rows) -> np.ndarray:
    """TP/FP/FN contributions per class 1..5; an unparseable prediction is wrong; no gold -> NaN row."""
    gold = [_score(r.get("gold_score")) for r in rows]
    pred = [_score(r.get("predicted_score")) for r in rows]
    x = class_counts(gold, pred, _RINO_LABELS)
    x[[g is None for g in gold]] = np.nan
    return x


def _rino_worst_error(rows: Rows) -> np.ndarray:
    out = []
    for r in rows:
        g, p = _score(r.get("gold_score")), _score(r.get("predicted_score"))
        out.append(math.nan if g is None else float(abs(g - p)) if p is not None else float(max(g - 1, 5 - g)))
    return np.array(out, dtype=float)


def _class_f1(j: int, k: int) -> Combine:
    """``combine`` of the F1 of the ``j``-th class from summed counts."""

    def f1(sums: np.ndarray) -> np.ndarray:
        return f1_from_counts(sums, k=k, average=j)

    return f1


def _rinobench(scores: dict[str, Any], config: dict[str, Any]) -> dict[str, ItemMetric]:
    extra: dict[str, Any] = scores["extra"] if isinstance(scores.get("extra"), dict) else {}
    mode = extra.get("f1_labels") or config.get("f1_labels") or "fixed"
    k = len(_RINO_LABELS)
    src = "recomputed from per-item gold_score and predicted_score (unparseable = wrong)"
    if mode == "present":
        macro = ItemMetric("f1_macro", f"macro-F1 over the classes present in gold or predictions, {src}",
                           _rino_counts, lambda s: f1_from_counts(s, k=k, average="present"), "statistic")
    else:
        macro = ItemMetric("f1_macro", f"macro-F1 over classes 1-5, {src}",
                           _rino_counts, lambda s: f1_from_counts(s, k=k, average="macro"), "statistic")
    out = {"f1_macro": macro}
    for j, c in enumerate(_RINO_LABELS):
        out[f"f1_{c}"] = ItemMetric(f"f1_{c}", f"F1 of class {c}, {src}", _rino_counts, _class_f1(j, k), "statistic")
    out["unparseable_rate"] = mean_of("unparseable_rate", "unparseable")
    out["mean_absolute_error_unparseable_worst"] = ItemMetric(
        "mean_absolute_error_unparseable_worst",
        "mean of |gold - predicted|, max(g - 1, 5 - g) for an unparseable answer, from gold_score and predicted_score",
        _rino_worst_error)
    return out


tables = rinobench_tables
figures = rinobench_figures
item_metrics = _rinobench
