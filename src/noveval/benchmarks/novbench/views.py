"""NovBench in the report: Table 2 and the sentiment-distribution figure.

Presentation: this module belongs to the report/CLI layer (like ``cli.py``); the report,
``compare`` and ``export`` find it through the system's declaration.
"""

from __future__ import annotations

from typing import Any

from noveval.report.figures import png_uri, pyplot
from noveval.report.fmt import metric_cell
from noveval.report.model import Figure, RunData, Table
from noveval.report.tables import by_run, missing_gaps


def novbench_tables(runs: list[RunData]) -> tuple[list[Table], list[str]]:
    """NovBench Table 2: Relevance, Coverage, Clarity, DistAcc per model and prompting."""
    cols = [("relevance", "Rel."), ("coverage", "Cov."), ("clarity", "Clarity"),
            ("clarity_reference", "Clarity (ref.)"), ("dist_acc", "DistAcc")]

    def label(r: RunData) -> str:
        p = r.config.get("prompting") or r.scores.get("prompting") or r.extra.get("prompting")
        return f"{r.model} · {p}" if p else r.label

    notes = list(dict.fromkeys(str(x) for r in runs if (x := r.extra.get("models_note"))))
    t = by_run(runs, cols, "Table 2 — novelty-evaluation quality",
                "Rows: model · prompting (zero-shot, few-shot, RAG); “Human” scores the gold evaluations "
                "as if they were predictions, so Coverage and DistAcc are undefined (–) there. "
                "Clarity is Eq. 7, the variant comparable with the paper's Table 2 (its result files fit it); "
                "Clarity (ref.) is the released comment_evaluate.py formula. "
                + (" ".join(f"Models: {n}." for n in notes) if notes else "Models: not recorded in scores.json."),
                row_label=label)
    human = next((h for r in runs if isinstance(h := r.extra.get("human"), dict) and h), None)
    if human:
        t.rows.insert(0, ("Human", [metric_cell(human.get(k)) for k, _ in cols]))
    return [t], missing_gaps(runs, ["relevance", "coverage", "dist_acc"], "NovBench Table 2")


def novbench_figures(runs: list[RunData]) -> list[Figure]:
    """Sentiment distributions (positive / neutral / negative) of the generated evaluations per run."""
    plt = pyplot()
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


tables = novbench_tables
figures = novbench_figures
