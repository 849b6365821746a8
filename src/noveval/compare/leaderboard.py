"""Several models' eval folders as one model × system table, each model tested against a baseline model.

:func:`model_leaderboard` reads ``noveval eval`` folders (one per model), joins their runs by
run name (a system, or one of its runs), and for every model other than the baseline and
every run compares the two run folders item by item with :func:`noveval.compare.compare_runs`
(paired bootstrap CI of the difference, paired permutation p) on the run's table metric.
The p-values of all those comparisons in the table are adjusted together with Holm's
method, so a mark ("differs from the baseline") holds at family-wise level ``alpha`` over
the whole table. Yardsticks and published rows come from the runs' ``scores.json`` (the
baseline's first), as rows of their own: only the published rows on the same data and
protocol as the baseline's run (:func:`noveval.benchmarks._yardsticks.comparable`); the rest
are folded under "other data" (``BoardColumn.other``), their datasets named. A table of runs
on the shipped samples shows no published row and says first that its items are invented.

Models are named by :func:`noveval.labels.model_labels` (model name; host when two share
a name; the eval folder when the same model was evaluated twice).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from noveval.benchmarks import BENCHMARKS
from noveval.benchmarks._suite import EvalResult, EvalRow, csv_rows, read_eval
from noveval.benchmarks._yardsticks import (
    INVENTED,
    other_data_text,
    published_label,
    run_data,
    split_comparable,
    with_declared_data,
)
from noveval.compare import compare_runs
from noveval.compare.text import _table, wrap_lines
from noveval.errors import InputError
from noveval.io import read_json, to_jsonable
from noveval.labels import model_labels, model_name
from noveval.metrics.paired import PairedDifference, holm
from noveval.models.embed import embedder_clash, recorded_embedder

__all__ = ["BoardCell", "BoardColumn", "BoardModel", "ModelLeaderboard", "format_leaderboard", "model_leaderboard"]


@dataclass
class BoardModel:
    """One model's eval folder."""

    label: str
    spec: str
    model_id: str | None
    path: Path
    protocol: str
    data: str


@dataclass
class BoardColumn:
    """One run (a system, or one of its runs) of the table."""

    system: str
    title: str
    run: str
    metric: str | None
    greater_is_better: bool | None
    yardsticks: list[dict[str, Any]] = field(default_factory=list)
    published: list[dict[str, Any]] = field(default_factory=list)
    """The published rows on the same data and protocol as the baseline's run."""
    other: list[dict[str, Any]] = field(default_factory=list)
    """The published rows of other data or another protocol (folded: "other data")."""


@dataclass
class BoardCell:
    """One model on one run: its value (on its own items) and, for a model other than the baseline,
    the paired test against the baseline's run (``test``: difference = model - baseline on the
    matched items, its CI and raw p), the Holm-adjusted p and whether it is below ``alpha``."""

    value: float | None
    ci_low: float | None
    ci_high: float | None
    n: int | None
    status: str
    test: PairedDifference | None = None
    p_holm: float | None = None
    significant: bool = False
    note: str | None = None

    @property
    def difference(self) -> float | None:
        """Model - baseline on the matched items (None: not tested)."""
        return self.test.difference if self.test is not None else None


@dataclass
class ModelLeaderboard:
    """What :func:`model_leaderboard` returns."""

    models: list[BoardModel]
    baseline: str
    columns: list[BoardColumn]
    cells: dict[tuple[str, str], BoardCell]
    """``(model label, run name)`` -> cell."""
    notes: list[str]
    settings: dict[str, Any]

    @property
    def invented(self) -> list[str]:
        """The labels of the models whose eval ran on the shipped samples (invented items)."""
        return [m.label for m in self.models if m.data == "sample"]

    def cell(self, model: str, run: str) -> BoardCell | None:
        """The cell of ``model`` (a label) on ``run`` (None: the model has no such run)."""
        return self.cells.get((model, run))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (``--json``)."""
        return to_jsonable({
            "baseline": self.baseline, "settings": self.settings, "notes": self.notes,
            "models": [{**asdict(m), "path": str(m.path)} for m in self.models],
            "columns": [asdict(c) for c in self.columns],
            "cells": [{"model": m, "run": r, **asdict(c)} for (m, r), c in self.cells.items()],
        })

    def csv_rows(self) -> list[dict[str, Any]]:
        """The table in long form: a row per model and run, then each yardstick and published row."""
        out: list[dict[str, Any]] = []
        by_run = {c.run: c for c in self.columns}
        for m in self.models:
            for c in self.columns:
                cell = self.cells.get((m.label, c.run))
                if cell is None:
                    continue
                t = cell.test
                out.append({"kind": "model", "label": m.label, "model": m.spec, "system": c.system, "run": c.run,
                            "metric": c.metric, "greater_is_better": c.greater_is_better, "value": cell.value,
                            "ci_low": cell.ci_low, "ci_high": cell.ci_high, "n": cell.n, "status": cell.status,
                            "baseline": self.baseline, "source": cell.note,
                            **({"difference": t.difference, "diff_ci_low": t.ci_low, "diff_ci_high": t.ci_high,
                                "n_matched": t.n, "p_value": t.p_value, "p_holm": cell.p_holm,
                                "significant": cell.significant} if t is not None else {})})
        refs = [EvalRow(c.system, c.title, c.run, "", metric=c.metric, greater_is_better=c.greater_is_better,
                        yardsticks=c.yardsticks, published=c.published) for c in by_run.values()]
        out += [r for r in csv_rows(refs, label="", model="") if r["kind"] != "model"]
        return out


CSV_COLUMNS = ("kind", "label", "model", "system", "run", "metric", "greater_is_better", "value", "ci_low", "ci_high",
               "n", "status", "baseline", "difference", "diff_ci_low", "diff_ci_high", "n_matched", "p_value",
               "p_holm", "significant", "source")
"""Columns of the leaderboard CSV (``kind``: ``model``, ``yardstick`` or ``published``)."""


def _models(evals: list[EvalResult]) -> list[BoardModel]:
    labels = model_labels([e.model_id or e.settings.model for e in evals], folders=[e.path for e in evals])
    return [BoardModel(lab, e.settings.model, e.model_id, e.path, e.settings.protocol, e.settings.data)
            for lab, e in zip(labels, evals, strict=True)]


def _pick_baseline(models: list[BoardModel], baseline: str | None) -> BoardModel:
    if baseline is None:
        return models[0]
    for m in models:
        if baseline in (m.label, m.spec, m.model_id) or Path(baseline).resolve() == m.path.resolve():
            return m

    hits = [m for m in models if model_name(m.model_id or m.spec) == baseline]
    if len(hits) == 1:
        return hits[0]
    raise InputError(None, None, "baseline", f"{baseline!r} is none of the models: "
                     + "; ".join(f"{m.label} ({m.spec}, {m.path})" for m in models))


def _columns(evals: list[EvalResult], base: int, notes: list[str]) -> list[BoardColumn]:
    """One column per run name, in the systems' order; metric and references from the baseline first."""
    rank = {name: i for i, name in enumerate(BENCHMARKS)}
    order = [evals[base], *[e for i, e in enumerate(evals) if i != base]]
    cols: dict[str, BoardColumn] = {}
    for e in order:
        for r in e.rows:
            c = cols.get(r.run)
            if c is None:
                cols[r.run] = BoardColumn(r.system, r.title, r.run, r.metric, r.greater_is_better)
                c = cols[r.run]
            elif r.metric and c.metric and r.metric != c.metric:
                notes.append(f"{r.run}: {e.path} shows {r.metric}, the table {c.metric}: not compared")
            if c.metric is None:
                c.metric, c.greater_is_better = r.metric, r.greater_is_better
            c.yardsticks = c.yardsticks or r.yardsticks
            c.published = c.published or r.published
    return sorted(cols.values(), key=lambda c: (rank.get(c.system, len(rank)), c.run))


def _test(base: Path, other: Path, labels: tuple[str, str], metric: str, opts: dict[str, Any]) -> tuple[Any, str | None]:
    """The paired comparison of ``other`` with ``base`` on ``metric`` (None and why, when there is none)."""
    try:
        comp = compare_runs([base, other], labels=list(labels), metrics=[metric], **opts)
    except InputError as e:
        return None, e.message if e.field == "metric" else str(e)
    got = next((m for m in comp.metrics if m.name == metric), None)
    if got is None:
        return None, comp.skipped.get(metric, "not compared item by item")
    return got.result, ("; ".join(comp.notes) or None)


def model_leaderboard(paths: Sequence[str | Path], *, baseline: str | None = None, alpha: float = 0.05,
                      n_resamples: int = 10_000, n_permutations: int = 10_000, seed: int = 0) -> ModelLeaderboard:
    """The model × system table of several eval folders, with paired tests against ``baseline``.

    Args:
        paths: Eval folders (``noveval eval -o DIR``), one per model.
        baseline: The model the others are tested against: its label, spec, model id, model
            name or eval folder (None: the first folder's).
        alpha: Family-wise level of the marks, after Holm over every comparison in the table.
        n_resamples: Paired bootstrap resamples per comparison.
        n_permutations: Random swaps of each permutation test (exact when ``2**n`` is fewer).
        seed: Seed of every resampling.

    Returns:
        The :class:`ModelLeaderboard`.

    Raises:
        InputError: no folder, a folder that is not an eval folder, the same folder twice,
            or an unknown baseline.
    """
    if not paths:
        raise InputError(None, None, None, "give one or more eval folders")
    resolved = [Path(p).resolve() for p in paths]
    for i, p in enumerate(resolved):
        if p in resolved[:i]:
            raise InputError(paths[i], None, None, "given twice")
    evals = [read_eval(p) for p in paths]
    models = _models(evals)
    base_model = _pick_baseline(models, baseline)
    b = models.index(base_model)
    notes: list[str] = []
    columns = _columns(evals, b, notes)
    _fold_other_data(models, evals, b, columns, notes)
    _check_embedders(models, evals, columns)
    cells: dict[tuple[str, str], BoardCell] = {}
    for m, e in zip(models, evals, strict=True):
        for r in e.rows:
            cells[(m.label, r.run)] = BoardCell(r.mean, r.ci_low, r.ci_high, r.n, r.status,
                                                note=r.message or None)
    opts = {"n_resamples": n_resamples, "n_permutations": n_permutations, "seed": seed, "alpha": alpha}
    _paired_tests(models, evals, b, columns, cells, opts)
    tested = [c for c in cells.values() if c.test is not None]
    adjusted = holm([c.test.p_value for c in tested if c.test is not None]) if tested else []
    for c, q in zip(tested, adjusted, strict=True):
        c.p_holm, c.significant = float(q), bool(q < alpha)
    if any(c.status != "complete" for c in cells.values()):
        notes.append("a run that is not complete (model calls failed, answers unusable, or a budget stop) is "
                     "not a result: its numbers are shown with its status")
    settings = {"alpha": alpha, "n_resamples": n_resamples, "n_permutations": n_permutations, "seed": seed,
                "comparisons": len(tested),
                "correction": f"holm over the {len(tested)} comparison(s) with the baseline in the table"}
    return ModelLeaderboard(models, base_model.label, columns, cells, notes, settings)


def _fold_other_data(models: list[BoardModel], evals: list[EvalResult], b: int, columns: list[BoardColumn],
                     notes: list[str]) -> None:
    """Keep beside each run only the published rows on the baseline run's data and protocol; fold the rest."""
    def data_of(i: int, run: str) -> Any:
        f = evals[i].path / run / "config.json"
        config = read_json(f) if f.is_file() else {}
        return run_data(config if isinstance(config, dict) else {}, protocol=models[i].protocol,
                        sample=True if models[i].data == "sample" else None)

    for c in columns:
        have = [i for i, e in enumerate(evals) if any(r.run == c.run for r in e.rows)]
        first = b if b in have else (have[0] if have else b)
        base = data_of(first, c.run)
        c.published, other = split_comparable(with_declared_data(c.system, c.published), base)
        c.other = other
        for i in have:
            mine = data_of(i, c.run)
            if i != first and (mine.sample, mine.protocol) != (base.sample, base.protocol):
                notes.append(f"{c.run}: {models[i].label} ran on {'the samples' if mine.sample else 'real data'} "
                             f"(protocol {mine.protocol}), {models[first].label} on "
                             f"{'the samples' if base.sample else 'real data'} (protocol {base.protocol}): "
                             f"the published rows shown are comparable with {models[first].label}'s run only")


def _check_embedders(models: list[BoardModel], evals: list[EvalResult], columns: list[BoardColumn]) -> None:
    """Refuse a table whose runs of one system record different resolved embedders (issue 35)."""
    def read(f: Path) -> dict[str, Any]:
        obj = read_json(f) if f.is_file() else {}
        return obj if isinstance(obj, dict) else {}

    for c in columns:
        named = []
        for m, e in zip(models, evals, strict=True):
            folder = e.path / c.run
            if folder.is_dir():
                named.append((f"{m.label} ({folder})",
                              recorded_embedder(read(folder / "config.json"), read(folder / "scores.json"))))
        clash = embedder_clash(named)
        if clash:
            raise InputError(None, None, None, f"{c.run}: {clash}")


def _paired_tests(models: list[BoardModel], evals: list[EvalResult], b: int, columns: list[BoardColumn],
                  cells: dict[tuple[str, str], BoardCell], opts: dict[str, Any]) -> None:
    """Fill each non-baseline cell's paired comparison with the baseline's run of the same name."""
    base = models[b]
    for c in columns:
        if c.metric is None or (base.label, c.run) not in cells:
            continue
        for i, m in enumerate(models):
            cell = cells.get((m.label, c.run))
            if i == b or cell is None:
                continue
            if cell.status != "complete" or cells[(base.label, c.run)].status != "complete":
                cell.note = cell.note or "not tested: a run that is not complete is not a result"
                continue
            folder, base_folder = evals[i].path / c.run, evals[b].path / c.run
            res, why = _test(base_folder, folder, (base.label, m.label), c.metric, opts)
            if res is None:
                cell.note = why
                continue
            cell.test, cell.note = res, why


def _num(v: Any, signed: bool = False) -> str:
    if not isinstance(v, (int, float)) or (isinstance(v, float) and math.isnan(v)):
        return "–"
    return f"{v:+.3f}".replace("-", "−") if signed else f"{v:.3f}"


def _cell_text(cell: BoardCell | None, is_base: bool) -> str:
    if cell is None:
        return "–"
    text = _num(cell.value)
    if cell.status != "complete":
        text += f" ({cell.status})"
    if not is_base and cell.difference is not None and cell.p_holm is not None:
        text += f" {_num(cell.difference, True)} p={cell.p_holm:.3f}{'*' if cell.significant else ''}"
    return text


def reference_rows(board: ModelLeaderboard) -> list[tuple[str, dict[str, dict[str, Any]]]]:
    """Yardstick rows (by their names, e.g. ``majority class (always 2)``) and the comparable published
    rows (model, table and dataset), by run name; the folded rows are in each column's ``other``."""
    rows: dict[str, dict[str, dict[str, Any]]] = {}
    for c in board.columns:
        for y in c.yardsticks:
            rows.setdefault(f"yardstick: {y.get('name') or y.get('kind')}", {}).setdefault(c.run, y)
        for p in c.published:
            rows.setdefault(f"published: {published_label(p)}", {}).setdefault(c.run, p)
    return list(rows.items())


def other_data_notes(board: ModelLeaderboard) -> list[str]:
    """One line per run with folded published rows: ``<run>: 22 rows of <dataset> (<table>, protocol paper)``."""
    return [f"{c.run}: {other_data_text(c.other)}" for c in board.columns if c.other]


def invented_line(board: ModelLeaderboard) -> str | None:
    """The line a table of runs on the shipped samples opens with (None: every model ran on real data)."""
    who = board.invented
    if not who:
        return None
    whom = "every model" if len(who) == len(board.models) else ", ".join(who)
    return (f"{INVENTED}: {whom} ran on the shipped samples; the numbers show the pipelines run, not how good a "
            "model is, and no published row is comparable")


WIDTH = 120
"""The terminal table's width."""


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _board_rows(board: ModelLeaderboard) -> list[tuple[str, str, str, str]]:
    """(run, metric, row name, value): each run's models, then its yardsticks and comparable published rows."""
    refs = reference_rows(board)
    out: list[tuple[str, str, str, str]] = []
    for c in board.columns:
        way = "↑" if c.greater_is_better else "↓" if c.greater_is_better is False else ""
        run, metric = c.run, f"{c.metric or '?'} {way}".rstrip()
        for m in board.models:
            cell = board.cell(m.label, c.run)
            if cell is not None:
                out.append((run, metric, f"{m.label}{' (baseline)' if m.label == board.baseline else ''}",
                            _cell_text(cell, m.label == board.baseline)))
                run = metric = ""
        for name, vals in refs:
            if c.run in vals:
                out.append((run, metric, name, _num(vals[c.run].get("value"))))
                run = metric = ""
        if c.other:
            out.append((run, metric, "other data (not comparable)", f"{len(c.other)} published row(s), below"))
    return out


def format_leaderboard(board: ModelLeaderboard) -> str:
    """The table as terminal text, at most :data:`WIDTH` columns: a block per run (its models, yardsticks
    and the published rows on the same data and protocol), then the folded "other data" and the notes."""
    rows = _board_rows(board)
    fixed = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(("run", "metric", "", "value"))]
    room = max(20, WIDTH - 2 - 6 - fixed[0] - fixed[1] - fixed[3])
    rows = [(a, b, _fit(name, room), v) for a, b, name, v in rows]
    s = board.settings
    lines = [line for line in [invented_line(board)] if line]
    lines.append(f"leaderboard · {len(board.models)} model(s) · {len(board.columns)} run(s) · baseline {board.baseline}")
    lines += [_fit(line, WIDTH) for line in _table(("run", "metric", "row", "value"), rows, right=set())]
    notes = [f"cells: the model's value (its run's own items), then for each other model its difference from the "
             f"baseline on the items both runs have and the p-value after Holm's correction over the table's "
             f"{s['comparisons']} comparison(s); * below α = {s['alpha']:g}.",
             f"how: paired bootstrap ({s['n_resamples']:,} resamples) and paired permutation test per run "
             f"(noveval compare); seed {s['seed']}. Yardsticks (on the run's own items) and published rows: the runs' "
             "scores.json; a published row is shown only on the same data file and protocol as the baseline's run."]
    notes += [f"other data: {n}" for n in other_data_notes(board)]
    notes += [f"{m.label} = {m.spec} (protocol {m.protocol}; data {m.data}; {m.path})" for m in board.models]
    for c in board.columns:
        for m in board.models:
            cell = board.cell(m.label, c.run)
            if cell is not None and cell.note and m.label != board.baseline:
                notes.append(f"note: {c.run}, {m.label}: {cell.note}")
    notes += [f"note: {n}" for n in board.notes]
    lines += [f"  {n}" for n in notes]
    return "\n".join(wrap_lines(lines, WIDTH))
