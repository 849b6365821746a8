"""CLAIMCHECK in the report: Tables 5-6 and the other tasks' metrics, WLE and WL figures.

Presentation: this module belongs to the report/CLI layer (like ``cli.py``); the report,
``compare`` and ``export`` find it through the system's declaration.
"""

from __future__ import annotations

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


tables = claimcheck_tables
figures = claimcheck_figures
