"""Runs of one system, matched by item id, compared metric by metric.

:func:`compare_runs` reads two or more run folders (``config.json``, ``scores.json``,
``per_item.jsonl``), checks that they come from the same system (and task) and were scored
against the same gold, matches their items by ``id``, and

* with two runs A and B: for every metric that can be compared item by item
  (:mod:`noveval.compare.metrics`), the difference B - A on the matched items with a
  paired bootstrap CI and a paired permutation p-value
  (:func:`noveval.metrics.paired.paired_difference`);
* with three or more: a leaderboard per chosen metric (the primary metric by default) on
  the items every run has; each run is tested against the best one, and the p-values of
  those ``k - 1`` tests are adjusted with Holm's method, so "significantly below the best"
  holds at family-wise level ``alpha`` per leaderboard.

p-values of the per-metric table (two runs) are not adjusted: each metric is its own
question, and the primary metric is the one to decide on.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict, Unpack

import numpy as np

from noveval.compare.agreement import Agreement, answer_agreement, declared_answer, metric_spread
from noveval.compare.metrics import ItemMetric, finite_rows, lower_is_better, plan_metrics
from noveval.errors import InputError
from noveval.io import iter_jsonl, read_json
from noveval.labels import model_labels
from noveval.metrics.paired import PairedDifference, holm
from noveval.models.embed import embedder_clash, recorded_embedder

__all__ = ["CompareRun", "MetricComparison", "LeaderRow", "Leaderboard", "Comparison", "load_compare_run", "compare_runs",
           "compare_loaded", "CompareOptions"]

_IGNORED_CONFIG = {"created", "noveval_version", "python"}
"""config.json keys that differ between any two runs and say nothing about the setting."""


@dataclass
class CompareRun:
    """One run folder as compare reads it.

    Attributes:
        label: The run's name in the comparison (by default its model's, :func:`noveval.labels.model_labels`).
        path: The folder.
        system: ``scores.json`` / ``config.json`` ``benchmark``.
        task: The task within the system (``scores.json`` ``task``: CLAIMCHECK's), else None.
        model: The evaluated model, when the run says.
        config: ``config.json``.
        scores: ``scores.json``.
        rows: ``per_item.jsonl`` rows by item id (file order); an id has several rows
            when the run repeated its items under several seeds (field ``seed``).
        lines: Line of each id's first row in ``per_item.jsonl``.
        compared: Metrics that can be compared item by item.
        skipped: Metrics that cannot, with the reason.
    """

    label: str
    path: Path
    system: str
    task: str | None
    model: str | None
    config: dict[str, Any]
    scores: dict[str, Any]
    rows: dict[str, list[dict[str, Any]]]
    lines: dict[str, int]
    compared: dict[str, ItemMetric] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        """False when the run recorded failed model calls (its numbers are not a result)."""
        return self.scores.get("complete") is not False

    @property
    def repeats(self) -> int:
        """Most rows of one item (seeds per item); 1 for a run without repeats."""
        return max(len(v) for v in self.rows.values())

    @property
    def identity(self) -> str:
        """``system`` or ``system/task``."""
        return self.system + (f"/{self.task}" if self.task else "")


@dataclass
class MetricComparison:
    """B versus A on one metric (two runs)."""

    name: str
    how: str
    kind: str
    primary: bool
    lower_is_better: bool
    result: PairedDifference


@dataclass
class LeaderRow:
    """One run on a leaderboard."""

    rank: int
    label: str
    value: float
    difference: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    p_value: float | None = None
    p_holm: float | None = None
    significant: bool = False


@dataclass
class Leaderboard:
    """Runs ranked on one metric, each tested against the best (Holm over the tests)."""

    metric: str
    how: str
    lower_is_better: bool
    n: int
    best: str
    rows: list[LeaderRow]
    exact: bool = False


@dataclass
class Comparison:
    """What :func:`compare_runs` returns (``to_dict`` gives the ``--json`` output)."""

    system: str
    task: str | None
    runs: list[CompareRun]
    common: list[str]
    only: dict[str, list[str]]
    metrics: list[MetricComparison]
    skipped: dict[str, str]
    leaderboards: list[Leaderboard]
    differs: dict[str, dict[str, Any]]
    notes: list[str]
    settings: dict[str, Any]
    agreement: Agreement | None = None
    """Answer agreement across the runs (systems that declare an answer field)."""
    spread: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Three or more runs: each compared metric per run and its spread (:func:`metric_spread`)."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (NaN becomes None)."""
        return _clean({
            "system": self.system,
            "task": self.task,
            "runs": [{"label": r.label, "path": str(r.path), "model": r.model, "items": len(r.rows),
                      "complete": r.complete, "primary_metric": r.scores.get("primary_metric")} for r in self.runs],
            "matched": {"common": len(self.common),
                        "only": {k: {"count": len(v), "first": v[:5]} for k, v in self.only.items()}},
            "settings": self.settings,
            "differs": self.differs,
            "metrics": [{"name": m.name, "how": m.how, "kind": m.kind, "primary": m.primary,
                         "lower_is_better": m.lower_is_better, **m.result.to_dict()} for m in self.metrics],
            "not_compared": self.skipped,
            "leaderboards": [{"metric": lb.metric, "how": lb.how, "lower_is_better": lb.lower_is_better, "n": lb.n,
                              "best": lb.best, "exact": lb.exact, "rows": [vars(r) for r in lb.rows]}
                             for lb in self.leaderboards],
            "agreement": self.agreement.to_dict() if self.agreement else None,
            "spread": self.spread,
            "notes": self.notes,
        })


def _clean(obj: Any) -> Any:
    if isinstance(obj, float) and math.isnan(obj):
        return None
    if isinstance(obj, dict):
        return {k: _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    return obj


def _read_object(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    got = read_json(path)
    if not isinstance(got, dict):
        raise InputError(path, None, None, "expected a JSON object")
    return got


def load_compare_run(path: str | Path, label: str) -> CompareRun:
    """Read one run folder for comparison.

    Args:
        path: The run folder.
        label: Its label (a model name, a prompt variant, ...).

    Returns:
        A :class:`CompareRun` with its compared / skipped metrics planned.

    Raises:
        InputError: not a run folder, no ``per_item.jsonl`` (not scored), a row without
            an ``id`` or with a repeated one, damaged JSON.
    """
    p = Path(path)
    if not p.is_dir():
        raise InputError(p, None, None, "no such run folder" if not p.exists() else "is a file, expected a run folder")
    config, scores = _read_object(p / "config.json"), _read_object(p / "scores.json")
    system = scores.get("benchmark") or config.get("benchmark")
    if not isinstance(system, str) or not system:
        raise InputError(p, None, None, "not a run folder: no benchmark named in config.json or scores.json")
    # the task within a system is what scores.json names (CLAIMCHECK's ca, cv, ...); config.json's
    # "task" may be a step ("score"), and a scored `run` and a `score` of the same system compare
    task = scores.get("task")
    model = scores.get("model") or config.get("model")
    model = model.get("model_id") if isinstance(model, dict) else model
    per_item = p / "per_item.jsonl"
    if not per_item.is_file():
        raise InputError(per_item, None, None, "missing: the run was not scored (no gold?); compare needs per-item rows")
    rows: dict[str, list[dict[str, Any]]] = {}
    lines: dict[str, int] = {}
    seen: dict[tuple[str, str], int] = {}
    for line, obj in iter_jsonl(per_item):
        if not isinstance(obj, dict):
            raise InputError(per_item, line, None, f"expected a JSON object, got {type(obj).__name__}")
        rid = obj.get("id")
        if rid is None or isinstance(rid, (dict, list, bool)):
            raise InputError(per_item, line, "id", "missing: compare matches items by id")
        key = str(rid)
        rep = (key, json.dumps(obj.get("seed")))
        if rep in seen:
            raise InputError(per_item, line, "id", f"duplicate id {key!r} (also on line {seen[rep]}); "
                             "rows of one item must differ in their 'seed'")
        seen[rep] = line
        rows.setdefault(key, []).append(obj)
        lines.setdefault(key, line)
    if not rows:
        raise InputError(per_item, None, None, "file is empty: no items to compare")
    run = CompareRun(label=label, path=p, system=system, task=str(task) if task else None,
                     model=str(model) if model else None, config=config, scores=scores, rows=rows, lines=lines)
    run.compared, run.skipped = plan_metrics(system, scores, config, list(rows.values()))
    return run


def _model_labels(runs: list[CompareRun]) -> None:
    """Name each run by its model (:func:`noveval.labels.model_labels`; the folder when the run names no model)."""
    models = [r.model or r.path.name for r in runs]
    for r, label in zip(runs, model_labels(models, folders=[r.path for r in runs]), strict=True):
        r.label = label


def _check_same_system(runs: list[CompareRun]) -> None:
    if len({r.identity for r in runs}) > 1:
        listing = "; ".join(f"{r.label} = {r.identity} ({r.path})" for r in runs)
        raise InputError(None, None, None, f"runs of different systems cannot be compared: {listing}")


def _check_same_embedder(runs: list[CompareRun]) -> None:
    """Runs whose recorded resolved embedders differ are not compared (issue 35)."""
    clash = embedder_clash([(f"{r.label} ({r.path})", recorded_embedder(r.config, r.scores)) for r in runs])
    if clash:
        raise InputError(None, None, None, clash)


def _check_same_gold(runs: list[CompareRun], common: list[str]) -> None:
    """Matched items must carry the same gold (fields ``gold`` / ``gold_*``) in every run."""
    first = runs[0]
    for r in runs[1:]:
        for i in common:
            ra, rb = first.rows[i][0], r.rows[i][0]
            for k in rb:
                if (k == "gold" or k.startswith("gold_")) and k in ra and ra[k] != rb[k]:
                    raise InputError(r.path / "per_item.jsonl", r.lines[i], k,
                                     f"item {i!r} has {rb[k]!r} here but {ra[k]!r} in {first.label} "
                                     f"({first.path}): the runs were scored against different gold")


def _flat(obj: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(obj, dict):
        out: dict[str, Any] = {}
        for k, v in obj.items():
            out.update(_flat(v, f"{prefix}{k}."))
        return out
    return {prefix[:-1]: obj}


def config_differences(runs: Sequence[CompareRun]) -> dict[str, dict[str, Any]]:
    """The ``config.json`` settings whose values differ between the runs: ``{key: {label: value}}``."""
    flats = [{k: v for k, v in _flat(r.config).items() if k.split(".")[0] not in _IGNORED_CONFIG} for r in runs]
    keys = list(dict.fromkeys(k for f in flats for k in f))
    out: dict[str, dict[str, Any]] = {}
    for k in keys:
        vals = [f.get(k) for f in flats]
        if any(v != vals[0] for v in vals[1:]):
            out[k] = {r.label: v for r, v in zip(runs, vals, strict=True)}
    return out


def _data(metric: ItemMetric, run: CompareRun, ids: Sequence[str]) -> np.ndarray:
    return metric.grouped([run.rows[i] for i in ids])


class CompareOptions(TypedDict, total=False):
    """How :func:`compare_runs` / :func:`compare_loaded` compare (every key optional)."""

    metrics: Sequence[str]
    """Two runs: show only these metrics (and the primary one). Three or more: rank on
    these too (the primary metric's leaderboard comes first). Default: none."""
    directions: dict[str, bool] | None
    """``{metric: lower_is_better}`` overrides of the direction rule
    (:func:`noveval.compare.metrics.lower_is_better`)."""
    n_resamples: int
    """Paired bootstrap resamples (10,000)."""
    n_permutations: int
    """Random swaps of the permutation test, exact when ``2**n`` is fewer (10,000)."""
    confidence: float
    """CI coverage (0.95)."""
    ci_method: str
    """``"percentile"`` (default) or ``"bca"``."""
    alpha: float
    """Level of the significance marks on leaderboards, after Holm (0.05)."""
    seed: int
    """Seed of every resampling (0)."""


def compare_runs(
    paths: Sequence[str | Path],
    *,
    labels: Sequence[str] | None = None,
    **options: Unpack[CompareOptions],
) -> Comparison:
    """Compare runs of one system on their common items (see the module docstring).

    Args:
        paths: Two or more run folders.
        labels: One label per run, in the order of ``paths`` (None: each run's model name,
            with what tells runs of one model apart, :func:`noveval.labels.model_labels`);
            e.g. the prompt variants' names.
        **options: :class:`CompareOptions` (metrics, directions, resamples, permutations,
            confidence, CI method, alpha, seed).

    Returns:
        A :class:`Comparison`.

    Raises:
        InputError: fewer than two runs, the same folder twice, labels that are not one
            distinct non-empty name per run, different systems or tasks,
            different gold for a matched item, no item in common, or an unknown /
            not comparable leaderboard metric. Nothing is written.
    """
    if len(paths) < 2:
        raise InputError(None, None, None, "give at least two run folders to compare")
    resolved = [Path(p).resolve() for p in paths]
    for i, p in enumerate(resolved):
        if p in resolved[:i]:
            raise InputError(paths[i], None, None, "given twice: compare distinct run folders")
    if labels is not None and (len(labels) != len(paths) or len(set(labels)) != len(labels) or not all(labels)):
        raise InputError(None, None, "labels", f"need one distinct, non-empty label per run ({len(paths)}), got {list(labels)}")
    run_labels = list(labels) if labels is not None else [f"run {i + 1}" for i in range(len(paths))]
    runs = [load_compare_run(p, lab) for p, lab in zip(paths, run_labels, strict=True)]
    if labels is None:
        _model_labels(runs)
    return compare_loaded(runs, **options)


def compare_loaded(
    runs: Sequence[CompareRun],
    *,
    metrics: Sequence[str] = (),
    directions: dict[str, bool] | None = None,
    n_resamples: int = 10_000,
    n_permutations: int = 10_000,
    confidence: float = 0.95,
    ci_method: str = "percentile",
    alpha: float = 0.05,
    seed: int = 0,
) -> Comparison:
    """:func:`compare_runs` on runs already read (each carries its label).

    For callers that read runs another way, e.g. the answers of runs without gold
    (:func:`noveval.compare.variants.answers_run`): such runs plan no metric, so only
    the answer agreement is computed.

    Args:
        runs: Two or more runs (:func:`load_compare_run` or another reader), distinct labels.
        metrics, directions, n_resamples, n_permutations, confidence, ci_method, alpha, seed:
            As :func:`compare_runs`.

    Returns:
        A :class:`Comparison`.

    Raises:
        InputError: fewer than two runs, and as :func:`compare_runs`.
    """
    runs = list(runs)
    if len(runs) < 2:
        raise InputError(None, None, None, "give at least two run folders to compare")
    _check_same_system(runs)
    _check_same_embedder(runs)
    first = runs[0]
    common = [i for i in first.rows if all(i in r.rows for r in runs[1:])]
    in_all = set(common)
    only = {r.label: [i for i in r.rows if i not in in_all] for r in runs}
    if not common:
        raise InputError(None, None, None, "the runs have no item id in common: "
                         + "; ".join(f"{r.label} ({r.path}) ids start {list(r.rows)[:3]}" for r in runs))
    _check_same_gold(runs, common)
    dirs = dict(directions or {})
    primary = first.scores.get("primary_metric")
    settings = {"n_resamples": n_resamples, "n_permutations": n_permutations, "confidence": confidence,
                "ci_method": ci_method, "alpha": alpha, "seed": seed,
                "correction": "holm over each leaderboard's comparisons with the best run" if len(runs) > 2 else "none"}
    shared, skipped = _shared_metrics(runs, primary)
    notes = _notes(runs, primary)

    def direction(name: str) -> bool:
        return dirs[name] if name in dirs else lower_is_better(name, first.scores)

    opts = {"n_resamples": n_resamples, "n_permutations": n_permutations, "confidence": confidence,
            "ci_method": ci_method, "seed": seed}
    by_name = {m.name: m for m in shared}
    for name in metrics:
        if name not in by_name:
            problem = f"{name} is not compared item by item ({skipped[name]})" if name in skipped else f"no metric {name!r} in these runs"
            raise InputError(None, None, "metric", f"{problem}; comparable: {', '.join(by_name) or 'none'}")
    pairs: list[MetricComparison] = []
    boards: list[Leaderboard] = []
    if len(runs) == 2:
        pairs = _pair_table(runs, shared, common, metrics, primary, direction, opts)
    else:
        for name in dict.fromkeys([*([primary] if isinstance(primary, str) else []), *metrics]):
            if name not in by_name:
                reason = skipped.get(name, "not in scores.json")
                notes.append(f"no leaderboard on the primary metric {name}: not compared item by item ({reason}); choose one with --metric")
                continue
            boards.append(_leaderboard(by_name[name], runs, common, direction(name), alpha, opts))
    return Comparison(system=first.system, task=first.task, runs=runs, common=common, only=only,
                      metrics=pairs, skipped=skipped, leaderboards=boards,
                      differs=config_differences(runs), notes=notes, settings=settings,
                      agreement=_agreement(runs, common, n_resamples, seed),
                      spread=_spread(runs, shared, common) if len(runs) > 2 else {})


def _shared_metrics(runs: list[CompareRun], primary: Any) -> tuple[list[ItemMetric], dict[str, str]]:
    """Metrics comparable in every run and defined the same way (primary first), and why others are not."""
    first = runs[0]
    skipped: dict[str, str] = {}
    shared: list[ItemMetric] = []
    names = list(dict.fromkeys(n for r in runs for n in (r.scores.get("metrics") or {})))
    for name in names:
        why = [f"{r.label}: {r.skipped[name]}" for r in runs if name in r.skipped]
        missing = [r.label for r in runs if name not in r.compared and name not in r.skipped]
        if why or missing:
            skipped[name] = "; ".join(why + ([f"not in scores.json of {', '.join(missing)}"] if missing else []))
            continue
        hows = {r.compared[name].how for r in runs}
        if len(hows) > 1:
            skipped[name] = "defined differently in the runs: " + " | ".join(f"{r.label}: {r.compared[name].how}" for r in runs)
            continue
        shared.append(first.compared[name])
    if primary in {m.name for m in shared}:
        shared.sort(key=lambda m: m.name != primary)
    return shared, skipped


def _notes(runs: list[CompareRun], primary: Any) -> list[str]:
    """What the reader must know: incomplete runs, repeated rows per item, differing primary metrics."""
    notes = [f"{r.label} is incomplete (model calls failed): its numbers are not a result" for r in runs if not r.complete]
    if any(r.repeats > 1 for r in runs):
        notes.append("repeats: " + ", ".join(f"{r.label} has up to {r.repeats} rows (seeds) per item" for r in runs if r.repeats > 1)
                     + "; each metric pools an item's rows, and the bootstrap and the swaps move an item's rows together")
    if len({r.scores.get("primary_metric") for r in runs}) > 1:
        notes.append("the runs name different primary metrics; using " + str(primary))
    return notes


def _pair_table(runs: list[CompareRun], shared: list[ItemMetric], common: list[str], metrics: Sequence[str],
                primary: Any, direction: Any, opts: dict[str, Any]) -> list[MetricComparison]:
    """Two runs: the paired difference of every shared metric (or the chosen ones and the primary)."""
    a, b = runs
    out = []
    for m in shared:
        if metrics and m.name not in metrics and m.name != primary:
            continue
        xa, xb = _data(m, a, common), _data(m, b, common)
        ok = finite_rows(xa) & finite_rows(xb)
        res = m.paired(xa[ok], xb[ok], **opts)
        out.append(MetricComparison(m.name, m.how, m.kind, m.name == primary, direction(m.name), res))
    return out


def _agreement(runs: list[CompareRun], common: list[str], n_resamples: int, seed: int) -> Agreement | None:
    """Agreement of the runs' answers on the common items, for a system that declares its answer."""
    declared = declared_answer(runs[0].system)
    if declared is None or any(r.repeats != 1 for r in runs):
        return None
    answer, level, _ = declared
    return answer_agreement([[r.rows[i][0].get(answer) for i in common] for r in runs],
                            [r.label for r in runs], common, answer=answer, level=level,
                            n_resamples=n_resamples, seed=seed)


def _spread(runs: list[CompareRun], shared: list[ItemMetric], common: list[str]) -> dict[str, Any]:
    """Each shared metric's value in every run and its spread (three or more runs)."""
    spread = {}
    for m in shared:
        vals = {}
        for r in runs:
            x = _data(m, r, common)
            x = x[finite_rows(x)]
            vals[r.label] = m.of(x)
        spread[m.name] = metric_spread(vals)
    return spread


def _leaderboard(metric: ItemMetric, runs: list[CompareRun], common: list[str], lower: bool, alpha: float,
                 opts: dict[str, Any]) -> Leaderboard:
    data = [_data(metric, r, common) for r in runs]
    ok = np.logical_and.reduce([finite_rows(x) for x in data])
    data = [x[ok] for x in data]
    values = [metric.of(x) for x in data]
    order = sorted(range(len(runs)), key=lambda i: (math.isnan(values[i]), values[i] if lower else -values[i]))
    best = order[0]
    tests: dict[int, PairedDifference] = {}
    for i in order[1:]:
        tests[i] = metric.paired(data[best], data[i], **opts)
    adjusted = dict(zip(tests, holm([t.p_value for t in tests.values()]), strict=True))
    rows = [LeaderRow(rank=1, label=runs[best].label, value=values[best])]
    for rank, i in enumerate(order[1:], start=2):
        t = tests[i]
        rows.append(LeaderRow(rank=rank, label=runs[i].label, value=values[i], difference=t.difference,
                              ci_low=t.ci_low, ci_high=t.ci_high, p_value=t.p_value, p_holm=adjusted[i],
                              significant=bool(adjusted[i] < alpha)))
    return Leaderboard(metric=metric.name, how=metric.how, lower_is_better=lower, n=int(ok.sum()),
                       best=runs[best].label, rows=rows, exact=any(t.exact for t in tests.values()))
