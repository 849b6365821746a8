"""Tables: the generic headline table, and the helpers systems' paper-shaped tables use.

A system's paper tables live with the system (``tables(runs)`` in its views module, found
through its declaration): each takes the runs of one benchmark and returns tables plus a
list of *gaps* (what the paper's table needs but the runs' scores.json lack).
"""

from __future__ import annotations

from collections.abc import Callable

from noveval.report.fmt import lower_is_better, mark_best, metric_cell, pretty_name
from noveval.report.model import Cell, RunData, Table
from noveval.scores import MetricValue

__all__ = ["by_run", "headline_table", "missing_gaps"]


def _metrics(run: RunData) -> dict[str, MetricValue]:
    return run.metrics


def _task_headline(runs: list[RunData]) -> Table:
    rows = []
    for r in runs:
        prim = str(r.typed.primary_metric or next(iter(_metrics(r)), ""))
        cell = metric_cell(_metrics(r).get(prim))
        rows.append((r.label, [Cell(str(r.scores.get("task") or r.config.get("task") or "–")), Cell(pretty_name(prim)), cell]))
    return Table("Headline results", ["Task", "Primary metric", "Value"], rows, kind="headline",
                 caption="Runs of different tasks: each run's primary metric (mean, 95% bootstrap CI). "
                         "All metrics are in the task tables below.")


def headline_table(runs: list[RunData]) -> Table:
    """Runs side by side: one row per metric (primary first), one column per run.

    Runs of different tasks (e.g. CLAIMCHECK's six) share few metrics; then the table has
    one row per run with its task and primary metric instead.
    """
    tasks = {r.scores.get("task") or r.config.get("task") for r in runs}
    if len(tasks) > 1:
        return _task_headline(runs)
    names: list[str] = []
    primaries = {r.typed.primary_metric for r in runs if r.typed.primary_metric}
    for r in runs:
        for k in _metrics(r):
            if k not in names:
                names.append(k)
    names.sort(key=lambda k: 0 if k in primaries else 1)
    rows = []
    for k in names:
        cells = [metric_cell(_metrics(r).get(k)) for r in runs]
        gib = {r.typed.greater_is_better for r in runs if r.typed.primary_metric == k}
        mark_best(cells, (gib == {False}) if len(gib) == 1 and None not in gib else lower_is_better(k))
        label = pretty_name(k) + (" ★" if k in primaries else "")
        rows.append((label, cells))
    caption = "Mean with 95% bootstrap CI in brackets; hover a value for n. ★ primary metric; best run in bold."
    return Table("Headline results", [r.label for r in runs], rows, caption=caption, kind="headline")


def by_run(runs: list[RunData], columns: list[tuple[str, str]], title: str, caption: str,
           row_label: Callable[[RunData], str] | None = None, scale: float = 1.0) -> Table:
    """One row per run, one column per ``(metric, header)``; the best run per column in bold."""
    rows = []
    for r in runs:
        m = _metrics(r)
        rows.append(((row_label or (lambda x: x.label))(r), [metric_cell(m.get(key), scale=scale) for key, _ in columns]))
    for j, (key, _) in enumerate(columns):
        mark_best([cells[j] for _, cells in rows], lower_is_better(key))
    return Table(title, [h for _, h in columns], rows, caption=caption, kind="paper")


def missing_gaps(runs: list[RunData], keys: list[str], what: str) -> list[str]:
    """``what: no run reports `key``` for each of ``keys`` that no run has."""
    gaps = []
    for k in keys:
        if not any(k in _metrics(r) for r in runs):
            gaps.append(f"{what}: no run reports `{k}`")
    return gaps


