"""The axiomatic benchmark in the report: Table 2 pass rates and the heatmap.

Presentation: this module belongs to the report/CLI layer (like ``cli.py``); the report,
``compare`` and ``export`` find it through the system's declaration.
"""

from __future__ import annotations

from noveval.benchmarks._benchmark import published_rows
from noveval.benchmarks.axioms.plots import draw_pass_rates
from noveval.report.figures import png_uri, pyplot
from noveval.report.fmt import mark_best, metric_cell
from noveval.report.model import Cell, Figure, RunData, Table


def axioms_tables(runs: list[RunData]) -> tuple[list[Table], list[str]]:
    """Axioms Table 2: pass rates (%) per metric × axiom, by field and overall."""
    tables, gaps = [], []
    for r in runs:
        tab = r.extra.get("table")
        if not isinstance(tab, dict) or "overall" not in tab:
            gaps.append(f"axioms Table 2: run {r.label} has no `extra.table`")
            continue
        cols = list(tab.get("columns") or [])
        rows = []
        blocks = [*(tab.get("by_field") or {}).items(), ("All", tab["overall"])]
        sd = tab.get("sd") or {}
        for field, res in blocks:
            spread = sd.get("overall", {}) if field == "All" else (sd.get("by_field") or {}).get(field, {})
            for metric, cell in res.items():
                cells = [metric_cell(cell.get(c), digits=1, scale=_pct_scale(tab)) for c in cols]
                for c, col in zip(cells, cols, strict=True):  # several seeds: mean ± SD
                    e = (spread.get(metric) or {}).get(col)
                    if e is not None and c.value is not None:
                        c.ci = f"± {e * _pct_scale(tab):.1f} (SD, {len(tab['seeds'][metric])} seeds)"
                rows.append((f"{field} · {metric}", cells))
        for field, _res in blocks:  # best metric per field (and overall) for each check, as in the paper
            group = [c for name, c in rows if name.startswith(f"{field} · ")]
            for j in range(len(cols)):
                mark_best([c[j] for c in group], lower=False)
        rows += _reference_rows(r, cols)  # after the best marks: never bold
        caption = ("Rows: field · novelty metric; Avg = mean over applicable checks; "
                   "– = check not applicable or no items; best metric per field in bold. "
                   "“paper ·” rows: Table 2's all-domain rows; “yardstick ·”: a random metric (each "
                   "two-variant check passes with probability 1/2, Ax3grad 1/6; Avg with the range of "
                   "95% of 10,000 simulated random metrics on this run's checks); neither is bold.")
        for metric, agree in (tab.get("seed_agreement") or {}).items():
            share, n = agree["all"]
            if share is not None:
                caption += (f" {metric}: all {len(tab['seeds'][metric])} seeds make the same pass/fail "
                            f"decision on {100 * share:.1f}% of {n} checks.")
        tables.append(Table(f"Table 2 — axiom pass rates (%), {r.label}", cols, rows, caption=caption, kind="paper"))
    return tables, gaps


def _reference_rows(r: RunData, cols: list[str]) -> list[tuple[str, list[Cell]]]:
    """Table 2's all-domain row of each metric the run scores, then the random metric (issue 29)."""
    from noveval.benchmarks import BENCHMARKS
    from noveval.benchmarks.axioms.yardsticks import PASS_PROBABILITY

    out = []
    for metric in r.metrics:
        cells = {row["axiom"]: row for row in published_rows(BENCHMARKS["axioms"], metric=metric)
                 if row.get("domain") == "All"}
        if cells:
            out.append((f"paper · All · {metric} (Table 2)", [  # printed in % like this table
                metric_cell(cells[c]["value"], digits=1) if c in cells else Cell("–") for c in cols]))
    ys = next(iter((r.scores.get("baselines") or {}).values()), None)
    if ys:
        y = ys[0]
        avg = Cell(f"{y['value']:.1f}", ci=f"[{y['ci_low']:.1f}, {y['ci_high']:.1f}]", title=str(y.get("how")))
        out.append(("yardstick · random metric (chance)",
                    [avg if c == "Avg" else Cell(f"{100 * PASS_PROBABILITY.get(c, 0.5):.1f}") for c in cols]))
    return out


def _pct_scale(tab: dict) -> float:
    vals = [v for res in tab["overall"].values() for v in res.values() if isinstance(v, (int, float))]
    return 100.0 if vals and max(vals) <= 1.0 else 1.0


def axioms_figures(runs: list[RunData]) -> list[Figure]:
    """Pass-rate heatmap (metric × axiom, overall) per run."""
    plt = pyplot()

    out = []
    for r in runs:
        tab = r.extra.get("table")
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


REPLACES_SAVED = ("heatmap",)
"""Images the runs save themselves (by title) that the figures here draw again."""

tables = axioms_tables
figures = axioms_figures


def summary_lines(scores: dict) -> list[str]:
    """The terminal summary's metric lines: Table 2 (field and overall rows) and the metric timings."""
    from noveval.benchmarks.axioms.runner import format_table

    extra = scores.get("extra") or {}
    tab = extra.get("table")
    if not isinstance(tab, dict) or "overall" not in tab:
        return ["  no pass-rate table (no focal paper finished)"]
    metrics = scores.get("metrics") or {}
    lines = format_table(tab, list(metrics or tab["overall"])).splitlines()
    n = max((m.get("n") or 0 for m in metrics.values() if isinstance(m, dict)), default=0)
    return [*lines, f"{n} focal papers; a metric's value is its All row's Avg pass rate (%, higher is better)",
            f"timings (s): {extra.get('timings_s') or {}}"]
