"""Run folders as tables: per-item results and scores as pandas DataFrames, and files.

:func:`load_run` reads one run folder into a :class:`RunResults` (two DataFrames and
the run's identity); :func:`export_runs` writes the tables of several runs to
``FILE.csv``, ``FILE.parquet`` or ``FILE.jsonl`` plus a second file of the same format,
``FILE.scores.csv`` (``.parquet``, ``.jsonl``), for the scores.

**Items** (one row per item): ``run`` (the folder), ``system``, ``task`` (when the
system has tasks), ``model``, ``label`` (the model's name, :func:`noveval.labels.model_labels`),
``item_id``, then every field of the run's
``per_item.jsonl`` (its per-item metrics and whatever else the system records there).
Nested objects become dotted columns (``metrics.alignment``); lists are kept as JSON text.
A run without ``per_item.jsonl`` (not scored: no gold) contributes its
``predictions.jsonl`` rows instead, so its items are still listed. Runs of different
systems share one table; a column a system does not have is empty (NaN) for its rows.

**Scores** (one row per run and metric): ``run``, ``system``, ``task``, ``model``,
``label``, ``metric``, ``mean``, ``ci_low``, ``ci_high`` (95% bootstrap CI), ``n``, ``primary``
(the system's primary metric), ``greater_is_better``, ``complete`` (False: model calls
failed or the budget stopped the run; the numbers are not a result), ``cost_usd`` (the
run folder's model calls; empty when unknown), ``yardsticks`` (the metric's yardsticks on the
run's own gold as text, e.g. ``uniform random 0.185 · class-frequency random 0.199 [0.154,
0.247]``; brackets: the range 95% of random draws fall in, or a CI).

**References** (``FILE.references.<suffix>``, one row per run, metric and reference): the
yardsticks and the paper's published rows of every metric (issue 29): ``run``, ``system``,
``task``, ``model``, ``metric``, ``row`` (``yardstick`` or ``published``), ``name`` (the
yardstick, or the published model), ``kind`` (chance, trivial, shuffled, human, ceiling; a
published row: ``published``), ``value``, ``ci_low``, ``ci_high``, ``how``, ``setting``,
``table``, ``source``.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from noveval.errors import InputError
from noveval.io import _atomic_write_bytes, complete_rows, read_json

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["RunResults", "load_run", "export_runs", "items_frame", "scores_frame", "references_frame", "FORMATS"]

FORMATS = (".csv", ".parquet", ".jsonl")
"""File types :func:`export_runs` writes, chosen by the output name's suffix."""

_MARKERS = ("config.json", "scores.json", "per_item.jsonl")
ID_COLUMNS = ("run", "system", "task", "model", "label", "item_id")
SCORE_COLUMNS = ("run", "system", "task", "model", "label", "metric", "mean", "ci_low", "ci_high", "n", "primary",
                 "greater_is_better", "complete", "cost_usd", "yardsticks")
REFERENCE_COLUMNS = ("run", "system", "task", "model", "label", "metric", "row", "name", "kind", "value", "ci_low",
                     "ci_high", "how", "setting", "table", "source")


@dataclass(frozen=True)
class RunResults:
    """One run folder's results (what :func:`load_run` returns).

    Attributes:
        path: The run folder.
        system: The benchmark that made it (``rinobench``, ``novbench``, ...).
        model: The model evaluated (spec label), or None when the run does not say.
        items: One row per item: ``run, system, task, model, item_id`` and every per-item field.
        scores: One row per metric: ``metric, mean, ci_low, ci_high, n, primary, ...``.
        complete: False when model calls failed or the budget stopped the run; None
            for runs made before noveval recorded it.
        cost_usd: Dollars the run folder's model calls cost; None when unknown.
        config: The run's ``config.json``.
        raw_scores: The run's ``scores.json``.
        references: One row per metric and yardstick or published row (see the module docstring).
    """

    path: Path
    system: str
    model: str | None
    items: pd.DataFrame
    scores: pd.DataFrame
    complete: bool | None
    cost_usd: float | None
    config: dict[str, Any] = field(default_factory=dict)
    raw_scores: dict[str, Any] = field(default_factory=dict)
    references: pd.DataFrame | None = None


def _read_json(p: Path) -> dict[str, Any]:
    if not p.is_file():
        return {}
    got = read_json(p)
    return got if isinstance(got, dict) else {}


def _rows(p: Path) -> list[dict[str, Any]]:
    """Complete rows of a JSONL file (a torn last line from a killed run is skipped)."""
    if not p.is_file():
        return []
    return complete_rows(p.read_text(encoding="utf-8"))


def _flatten(row: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in row.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, key + "."))
        elif isinstance(v, list):
            out[key] = json.dumps(v, ensure_ascii=False)
        else:
            out[key] = v
    return out


def _identity(config: dict[str, Any], scores: dict[str, Any], path: Path) -> tuple[str, str | None, str | None]:
    system = scores.get("benchmark") or config.get("benchmark") or path.name
    task = scores.get("task") or config.get("task")
    model = scores.get("model") or config.get("model")
    if isinstance(model, dict):
        model = model.get("model_id")
    return str(system), (str(task) if task else None), (str(model) if model else None)


def _cost(scores: dict[str, Any], calls: dict[str, Any]) -> float | None:
    cost = scores.get("cost") if isinstance(scores.get("cost"), dict) else calls.get("cost")
    usd = cost.get("usd") if isinstance(cost, dict) else None
    return float(usd) if isinstance(usd, (int, float)) else None


def _uniform(df: pd.DataFrame) -> pd.DataFrame:
    """Columns that mix numbers and text (across systems) become text, so every format can hold them."""
    for c in df.columns:
        kinds = {type(v) for v in df[c].dropna()}
        if len(kinds - {int, float, bool}) and len(kinds) > 1:
            df[c] = df[c].map(lambda v: v if v is None or (isinstance(v, float) and v != v) else str(v))
        elif bool in kinds and kinds & {int, float}:  # 0/1 flags written as true/false by some runs
            df[c] = df[c].map(lambda v: float(v) if isinstance(v, bool) else v)
    return df


def load_run(path: str | Path) -> RunResults:
    """Read one run folder into tables (see the module docstring for the columns).

    Args:
        path: A run folder (it holds ``config.json``, ``scores.json`` or ``per_item.jsonl``).

    Returns:
        A :class:`RunResults`.

    Raises:
        InputError: not a run folder, or a damaged ``config.json`` / ``scores.json``.
    """
    import pandas as pd

    p = Path(path)
    if not p.is_dir():
        raise InputError(p, None, None, "no such run folder" if not p.exists() else "is a file, expected a run folder")
    if not any((p / m).is_file() for m in _MARKERS):
        raise InputError(p, None, None, "not a run folder (no config.json, scores.json or per_item.jsonl)")
    config, scores = _read_json(p / "config.json"), _read_json(p / "scores.json")
    calls = _read_json(p / "calls.json") if (p / "calls.json").is_file() else {}
    system, task, model = _identity(config, scores, p)
    rows = _rows(p / "per_item.jsonl") or _rows(p / "predictions.jsonl")
    from noveval.labels import model_name

    ident = {"run": str(p), "system": system, "task": task, "model": model, "label": model_name(model or p.name)}
    items = [{**ident, "item_id": None if r.get("id") is None else str(r.get("id")),
              **_flatten({k: v for k, v in r.items() if k != "id"})} for r in rows]
    items_df = pd.DataFrame(items, columns=list(ID_COLUMNS) if not items else None)
    complete = scores.get("complete") if isinstance(scores.get("complete"), bool) else (
        (calls.get("last") or {}).get("complete") if isinstance(calls.get("last"), dict) else None)
    cost_usd = _cost(scores, calls)
    primary = scores.get("primary_metric")
    srows = []
    for name, m in (scores.get("metrics") or {}).items():
        m = m if isinstance(m, dict) else {"mean": m}
        srows.append({**ident, "metric": name, "mean": m.get("mean"), "ci_low": m.get("ci_low"),
                      "ci_high": m.get("ci_high"), "n": m.get("n"), "primary": name == primary,
                      "greater_is_better": scores.get("greater_is_better"), "complete": complete, "cost_usd": cost_usd,
                      "yardsticks": _yardstick_text(scores, name)})
    scores_df = pd.DataFrame(srows, columns=list(SCORE_COLUMNS))
    refs = pd.DataFrame(_reference_rows(ident, scores), columns=list(REFERENCE_COLUMNS))
    return RunResults(path=p, system=system, model=model, items=_uniform(items_df), scores=scores_df,
                      complete=complete, cost_usd=cost_usd, config=config, raw_scores=scores, references=refs)


def _yardstick_text(scores: dict[str, Any], metric: str) -> str | None:
    from noveval.metrics.yardsticks import references_of
    from noveval.yardstick_text import reference_text

    ys, _ = references_of(scores, metric)
    return " · ".join(reference_text(y) for y in ys) or None


def _reference_rows(ident: dict[str, Any], scores: dict[str, Any]) -> list[dict[str, Any]]:
    """The run's yardsticks and published rows, one row each (see the module docstring)."""
    from noveval.metrics.yardsticks import references_of

    out = []
    for metric in scores.get("metrics") or {}:
        ys, pub = references_of(scores, metric)
        for y in ys:
            out.append({**ident, "metric": metric, "row": "yardstick", "name": y.get("name"), "kind": y.get("kind"),
                        "value": y.get("value"), "ci_low": y.get("ci_low"), "ci_high": y.get("ci_high"),
                        "how": y.get("how")})
        for r in pub:
            out.append({**ident, "metric": metric, "row": "published", "name": r.get("model"), "kind": "published",
                        "value": r.get("value"), "setting": r.get("setting"), "table": r.get("table"),
                        "source": r.get("source")})
    return out


def items_frame(runs: list[RunResults]) -> pd.DataFrame:
    """The items of several runs in one table (columns: the union; missing values NaN)."""
    import pandas as pd

    frames = [r.items for r in runs if len(r.items)]
    if not frames:
        return pd.DataFrame(columns=list(ID_COLUMNS))
    return _uniform(pd.concat(frames, ignore_index=True, sort=False))


def scores_frame(runs: list[RunResults]) -> pd.DataFrame:
    """The scores of several runs in one table."""
    import pandas as pd

    frames = [r.scores for r in runs if len(r.scores)]
    if not frames:
        return pd.DataFrame(columns=list(SCORE_COLUMNS))
    return pd.concat(frames, ignore_index=True, sort=False)


def references_frame(runs: list[RunResults]) -> pd.DataFrame:
    """The yardsticks and published rows of several runs in one table."""
    import pandas as pd

    frames = [r.references for r in runs if r.references is not None and len(r.references)]
    if not frames:
        return pd.DataFrame(columns=list(REFERENCE_COLUMNS))
    return pd.concat(frames, ignore_index=True, sort=False)


def references_path(out: str | Path) -> Path:
    """Where :func:`export_runs` writes the references: ``FILE.references.<suffix>``."""
    p = Path(out)
    return p.with_name(f"{p.stem}.references{p.suffix}")


def scores_path(out: str | Path) -> Path:
    """Where :func:`export_runs` writes the scores: ``FILE.scores.<suffix>`` beside ``FILE.<suffix>``."""
    p = Path(out)
    return p.with_name(f"{p.stem}.scores{p.suffix}")


def _encode(df: pd.DataFrame, suffix: str) -> bytes:
    if suffix == ".csv":
        return df.to_csv(index=False).encode("utf-8")
    if suffix == ".jsonl":
        text = df.to_json(orient="records", lines=True, force_ascii=False)
        return (text if text.endswith("\n") or not text else text + "\n").encode("utf-8")
    buf = io.BytesIO()
    df.to_parquet(buf, index=False)
    return buf.getvalue()


def export_runs(paths: list[str | Path], out: str | Path) -> tuple[Path, Path, int, int, Path, int]:
    """Write the items, scores and references of run folders to ``out``, ``FILE.scores.<suffix>``
    and ``FILE.references.<suffix>``.

    Args:
        paths: Run folders, or folders that contain run folders (searched 3 levels deep).
        out: ``FILE.csv``, ``FILE.parquet`` or ``FILE.jsonl``.

    Returns:
        ``(items_file, scores_file, n_item_rows, n_score_rows, references_file, n_reference_rows)``.

    Raises:
        InputError: an unknown suffix, no run folder found, or a folder that is not a run.
    """
    from noveval.report.load import find_runs

    o = Path(out)
    if o.suffix not in FORMATS:
        raise InputError(o, None, "--out", f"unknown file type {o.suffix or '(none)'}: use {', '.join(FORMATS)}")
    for p in paths:
        if not Path(p).exists():
            raise InputError(p, None, None, "no such run folder")
    found = find_runs([Path(p) for p in paths])
    if not found:
        raise InputError(paths[0] if paths else None, None, None, "no run folder here (none holds config.json, "
                         "scores.json or per_item.jsonl)")
    runs = [load_run(p) for p in found]
    from noveval.labels import model_labels

    for r, label in zip(runs, model_labels([r.model or r.path.name for r in runs], folders=found), strict=True):
        r.items["label"], r.scores["label"] = label, label
        if r.references is not None:
            r.references["label"] = label
    items, scores, refs = items_frame(runs), scores_frame(runs), references_frame(runs)
    so, ro = scores_path(o), references_path(o)
    _atomic_write_bytes(o, _encode(items, o.suffix))
    _atomic_write_bytes(so, _encode(scores, o.suffix))
    _atomic_write_bytes(ro, _encode(_uniform(refs), o.suffix))
    return o, so, len(items), len(scores), ro, len(refs)
