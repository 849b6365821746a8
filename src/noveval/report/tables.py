"""Tables: the generic headline table, and the helpers systems' paper-shaped tables use.

A system's paper tables live with the system (``tables(runs)`` in its views module, found
through its declaration): each takes the runs of one benchmark and returns tables plus a
list of *gaps* (what the paper's table needs but the runs' scores.json lack).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from noveval.benchmarks._yardsticks import other_data_text, split_comparable, with_declared_data
from noveval.benchmarks._yardsticks import run_data as data_of
from noveval.io import read_json
from noveval.report.fmt import lower_is_better, mark_best, metric_cell, pretty_name
from noveval.report.model import Cell, RunData, Table
from noveval.scores import MetricValue
from noveval.yardstick_text import published_summary, reference_text

__all__ = ["by_run", "headline_table", "missing_gaps", "other_data", "reference_rows", "run_data"]

REFERENCE_NOTE = ("Rows marked “yardstick ·” are what random, constant or shuffled answers score on the same gold "
                  "(brackets: the range 95% of random draws fall in, or a CI); rows marked “paper ·” are the paper's "
                  "published numbers on the same data and protocol (its models: hover a value); rows of other data are left "
                  "out (a run on the invented samples has none). Neither competes for bold.")


def _metrics(run: RunData) -> dict[str, MetricValue]:
    return run.metrics


def _task_headline(runs: list[RunData]) -> Table:
    rows = []
    for r in runs:
        prim = str(r.typed.primary_metric or next(iter(_metrics(r)), ""))
        cell = metric_cell(_metrics(r).get(prim))
        task = Cell(str(r.scores.get("task") or r.config.get("task") or "–"))
        rows.append((r.label, [task, Cell(pretty_name(prim)), cell, _reference_cell([r], prim)]))
    return Table("Headline results", ["Task", "Primary metric", "Value", "Yardsticks · paper (reference)"], rows,
                 kind="headline",
                 caption="Runs of different tasks: each run's primary metric (mean, 95% bootstrap CI), beside its "
                         "yardsticks on the same gold and the paper's best rows (reference, never bold). "
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
    ref_cells = {k: _reference_cell(runs, k) for k in names}
    refs = any(c.text != "–" for c in ref_cells.values())
    for k in names:
        cells = [metric_cell(_metrics(r).get(k)) for r in runs]
        gib = {r.typed.greater_is_better for r in runs if r.typed.primary_metric == k}
        mark_best(cells, (gib == {False}) if len(gib) == 1 and None not in gib else lower_is_better(k))
        label = pretty_name(k) + (" ★" if k in primaries else "")
        rows.append((label, [*cells, ref_cells[k]] if refs else cells))
    caption = "Mean with 95% bootstrap CI in brackets; hover a value for n. ★ primary metric; best run in bold."
    if refs:
        caption += (" Last column: yardsticks on the same gold (brackets: the range 95% of random draws fall in, "
                    "or a CI) and the paper's best rows, for reference: not runs, never bold.")
    left = other_data(runs)
    if left:
        caption += f" Published rows of other data or another protocol, not shown: {left}."
    header = [r.label for r in runs] + (["Yardsticks · paper (reference)"] if refs else [])
    return Table("Headline results", header, rows, caption=caption, kind="headline")


def run_data(run: RunData) -> Any:
    """What ``run`` ran on (:func:`noveval.benchmarks._yardsticks.run_data`): its config's data paths,
    and the protocol and sample flag of the eval folder it sits in (none: the paths alone say)."""
    f = run.path.parent / "eval.json"
    settings: Any = None
    if f.is_file():
        try:
            got = read_json(f)
        except Exception:  # an unreadable eval.json: the run's own config still says what it read
            got = None
        settings = got.get("settings") if isinstance(got, dict) else None
    if not isinstance(settings, dict):
        return data_of(run.config, protocol=None)
    return data_of(run.config, protocol=settings.get("protocol"), sample=True if settings.get("data") == "sample" else None)


def _references(runs: list[RunData], metric: str) -> tuple[list[dict], list[dict]]:
    """Yardsticks (distinct by name and value) and published rows (distinct) of a metric over runs.

    Only the published rows on a run's data and protocol (issue 37: none for a run on the
    shipped samples); :func:`other_data` says what is left out.
    """
    from noveval.metrics.yardsticks import references_of

    ys: dict[tuple[str, float | None], dict] = {}
    pub: dict[tuple[str, str, float | None], dict] = {}
    for r in runs:
        got_y, got_p = references_of(r.scores, metric)
        for y in got_y:
            ys.setdefault((str(y.get("name")), y.get("value")), y)
        same, _ = split_comparable(with_declared_data(r.benchmark, got_p), run_data(r))
        for row in same:
            pub.setdefault((str(row.get("model")), str(row.get("setting")), row.get("value")), row)
    return list(ys.values()), list(pub.values())


def other_data(runs: list[RunData]) -> str:
    """The published rows of the runs' scores left out as not comparable, by dataset ("" when none)."""
    left: dict[tuple[str, str, str, float | None], dict] = {}
    for r in runs:
        got = [p for p in r.scores.get("published") or [] if isinstance(p, dict)]
        _, other = split_comparable(with_declared_data(r.benchmark, got), run_data(r))
        for row in other:
            left.setdefault((str(row.get("model")), str(row.get("setting")), str(row.get("metric")), row.get("value")), row)
    return other_data_text(left.values())


def _reference_cell(runs: list[RunData], metric: str) -> Cell:
    """One text cell: the metric's yardsticks and the paper's best rows (value None: never bold)."""
    ys, pub = _references(runs, metric)
    parts = [reference_text(y) for y in ys]
    if pub:
        parts.append(published_summary(pub, greater_is_better=not lower_is_better(metric), most=2))
    if not parts:
        return Cell("–", title="no yardstick or published row for this metric")
    how = "; ".join(f"{y.get('name')}: {y.get('how')}" for y in ys)
    return Cell(" · ".join(parts), title=how)


def reference_rows(runs: list[RunData], columns: list[tuple[str, str]], scale: float = 1.0,
                   ) -> list[tuple[str, list[Cell]]]:
    """Reference rows for a paper table (one column per metric): yardsticks, then the paper's rows.

    Rows are labelled ``yardstick · <name> (<kind>)`` and ``paper · <model> (<table>)``; their cells
    carry the value (scaled like the table) and, as hover text, how it was made or the paper's
    source and setting; they are never bold.
    """
    yrows: dict[str, dict[str, dict]] = {}
    prows: dict[str, dict[str, dict]] = {}
    for key, _ in columns:
        ys, pub = _references(runs, key)
        for y in ys:
            yrows.setdefault(f"yardstick · {y.get('name')} ({y.get('kind')})", {}).setdefault(key, y)
        for row in pub:
            label = f"paper · {row.get('model')} ({row.get('table')})"
            first = next(iter(prows.get(label, {}).values()), row)
            if first.get("setting") != row.get("setting"):  # the same model twice in one table: say which
                label = f"paper · {row.get('model')} ({row.get('table')}, {row.get('setting')})"
            prows.setdefault(label, {}).setdefault(key, row)
    out = []
    for label, by_key in [*yrows.items(), *prows.items()]:
        cells = []
        for key, _ in columns:
            ref = by_key.get(key)
            if ref is None:
                cells.append(Cell("–", title="not available"))
                continue
            cell = metric_cell({"mean": ref.get("value"), "ci_low": ref.get("ci_low"), "ci_high": ref.get("ci_high")},
                               scale=scale)
            cell.title = str(ref.get("how") or f"{ref.get('source')}; {ref.get('setting')}")
            cells.append(cell)
        out.append((label, cells))
    return out


def by_run(runs: list[RunData], columns: list[tuple[str, str]], title: str, caption: str,
           row_label: Callable[[RunData], str] | None = None, scale: float = 1.0) -> Table:
    """One row per run, one column per ``(metric, header)``; the best run per column in bold.

    Then the reference rows of :func:`reference_rows` (yardsticks and the paper's rows), never bold.
    """
    rows = []
    for r in runs:
        m = _metrics(r)
        rows.append(((row_label or (lambda x: x.label))(r), [metric_cell(m.get(key), scale=scale) for key, _ in columns]))
    for j, (key, _) in enumerate(columns):
        mark_best([cells[j] for _, cells in rows], lower_is_better(key))
    refs = reference_rows(runs, columns, scale=scale)  # after the best marks: reference rows are never bold
    if refs:
        rows.extend(refs)
        caption = f"{caption} {REFERENCE_NOTE}".strip()
    return Table(title, [h for _, h in columns], rows, caption=caption, kind="paper")


def missing_gaps(runs: list[RunData], keys: list[str], what: str) -> list[str]:
    """``what: no run reports `key``` for each of ``keys`` that no run has."""
    gaps = []
    for k in keys:
        if not any(k in _metrics(r) for r in runs):
            gaps.append(f"{what}: no run reports `{k}`")
    return gaps


