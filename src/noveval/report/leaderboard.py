"""The report's first section when eval folders are given: the model × system leaderboard.

Built from :func:`noveval.compare.leaderboard.model_leaderboard` (the same numbers as
``noveval leaderboard``): a row per model, a column per system run; each cell is the model's
value with its 95% CI and, for a model other than the baseline, its difference from the
baseline on the items both runs have and the Holm-adjusted p-value; then the yardstick rows (by
their names) and the published rows on the same data and protocol (labelled with their table
and dataset); the rest are named in a note ("other data"). Evals on the shipped samples give
the page its "invented sample items — not an evaluation" banner (``invented``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from noveval.benchmarks._suite import EVAL_FILE
from noveval.report.model import Cell, Table

__all__ = ["LeaderboardView", "eval_folders", "leaderboard_view"]


@dataclass
class LeaderboardView:
    """The leaderboard section of the page."""

    table: Table
    models: list[tuple[str, str]]
    """(label, model spec) of each model, in row order."""
    baseline: str
    notes: list[str] = field(default_factory=list)
    invented: str | None = None
    """The banner of a table of runs on the shipped samples (None: every model ran on real data)."""


def eval_folders(paths: list[Path]) -> list[Path]:
    """The given paths that are eval folders (they hold ``eval.json``)."""
    return [Path(p) for p in paths if (Path(p) / EVAL_FILE).is_file()]


def _fmt(v: Any, signed: bool = False) -> str:
    if not isinstance(v, (int, float)) or (isinstance(v, float) and not math.isfinite(v)):
        return "–"
    return f"{v:+.3f}" if signed else f"{v:.3f}"


def _cell(c: Any, is_base: bool, greater: bool | None) -> Cell:
    if c is None:
        return Cell("–", title="no run of this system in this model's eval folder")
    ci = f"[{_fmt(c.ci_low)}, {_fmt(c.ci_high)}]" if c.ci_low is not None and c.ci_high is not None else ""
    title = f"n = {c.n}" if c.n is not None else ""
    if c.status != "complete":
        ci = f"{ci} {c.status}".strip()
        title += f"; {c.status}: not a result" + (f" ({c.note})" if c.note else "")
    t = c.test
    if not is_base and t is not None and c.p_holm is not None:
        mark = " *" if c.significant else ""
        ci = f"{ci} · Δ {_fmt(t.difference, True)}, p {c.p_holm:.3f}{mark}".strip(" ·")
        title += (f"; difference from the baseline {_fmt(t.difference, True)} [{_fmt(t.ci_low, True)}, "
                  f"{_fmt(t.ci_high, True)}] on {t.n} matched items; p {t.p_value:.4f}, Holm {c.p_holm:.4f}")
    elif not is_base and c.note:
        title += f"; not tested: {c.note}"
    better = c.significant and c.difference is not None and (c.difference > 0) == (greater is not False)
    return Cell(_fmt(c.value), ci=ci, value=c.value, title=title.strip("; "), best=bool(better))


def leaderboard_view(board: Any) -> LeaderboardView:
    """The section's view of a :class:`~noveval.compare.leaderboard.ModelLeaderboard`."""
    from noveval.compare.leaderboard import invented_line, other_data_notes, reference_rows

    header = [f"{c.title} · {c.metric or '?'} {'↑' if c.greater_is_better else '↓' if c.greater_is_better is False else ''}".strip()
              for c in board.columns]
    rows: list[tuple[str, list[Cell]]] = []
    for m in board.models:
        is_base = m.label == board.baseline
        rows.append((f"{m.label}{' (baseline)' if is_base else ''}",
                     [_cell(board.cell(m.label, c.run), is_base, c.greater_is_better) for c in board.columns]))
    for name, vals in reference_rows(board):
        cells = []
        for c in board.columns:
            v = vals.get(c.run)
            how = ", ".join(str(x) for x in (v.get("name"), v.get("how"), v.get("source"), v.get("table")) if x) if v else ""
            cells.append(Cell(_fmt(v.get("value")), value=v.get("value"), title=how) if v else Cell("–"))
        rows.append((name, cells))
    s = board.settings
    caption = (f"Each model's value on its run's items with its 95% CI; for the other models Δ = model − baseline "
               f"({board.baseline}) on the items both runs have (paired bootstrap CI in the hover text) and the "
               f"paired permutation p after Holm's correction over the table's {s['comparisons']} comparison(s); "
               f"* and a highlighted cell: differs from the baseline at α = {s['alpha']:g} (highlighted when better). "
               "Yardstick rows (on the run's own items) and published rows come from the runs' scores.json; a "
               "published row is shown only on the same data file and protocol as the baseline's run.")
    table = Table("Model", header, rows, caption=caption, kind="leaderboard")
    notes = [f"other data (not comparable, not shown): {n}" for n in other_data_notes(board)]
    notes += [f"{m.label} = {m.spec} (protocol {m.protocol}, data {m.data})" for m in board.models] + list(board.notes)
    return LeaderboardView(table, [(m.label, m.spec) for m in board.models], board.baseline, notes,
                           invented=invented_line(board))
