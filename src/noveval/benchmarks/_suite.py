"""``noveval eval``: every system on its data in its published protocol, one model, one budget, one table.

What a system runs in an eval is declared with the system (``Benchmark.suite``: its
``eval_plan(data_dir, *, limit, judge, protocol) -> EvalPlan``); this module knows no system
by name. :func:`plan_eval` asks each system for its plan and validates every run's options
before anything runs; :func:`run_eval` runs them into one folder, one sub-folder per run,
through the one run path (:func:`~noveval.benchmarks._runner.run_benchmark`) inside one call
ledger, so ``max_cost`` is one budget across the systems and every remote model is checked
once. The eval folder's ``eval.json`` holds the settings and the table (each run's metric
with its CI, beside the yardsticks and published rows its ``scores.json`` carries), and
``eval.csv`` the same table in long form. A killed eval resumes: the same command runs
what is missing (finished runs make no model call) and rewrites the table.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import math
import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from noveval._version import __version__
from noveval.benchmarks._benchmark import Benchmark, EvalPlan, EvalRun, load
from noveval.errors import InputError
from noveval.io import make_dir, read_json, to_jsonable, write_json, write_text
from noveval.models.spec import parse_spec
from noveval.options import GENERATION_FIELDS, RunOptions, flags_of, parse_extra_body

__all__ = ["CSV_FILE", "EVAL_FILE", "PROTOCOLS", "EvalResult", "EvalRow", "EvalSettings", "Planned", "csv_rows",
           "eval_data", "evaluate", "plan_eval", "plan_work", "read_eval", "run_eval", "table_row"]

log = logging.getLogger("noveval")

EVAL_FILE = "eval.json"
"""The eval folder's settings and table."""
CSV_FILE = "eval.csv"
"""The same table, one row per value (the model's, each yardstick's, each published row's)."""
PROTOCOLS = ("paper", "noveval")
"""``paper``: each system's published protocol; ``noveval``: this toolkit's defaults."""
_FORMAT = 1


@dataclass(frozen=True)
class EvalSettings:
    """What makes an eval folder's results what they are (a re-run with other settings is refused).

    Attributes:
        model: The model spec under test.
        judge: The judge spec given to the systems that have a judge role (None: none).
        protocol: ``paper`` or ``noveval``.
        limit: Items per system (None: all).
        data: The real data folder, or ``"sample"`` for the shipped samples.
        embedder: The embedder given to the systems that embed (None: each system's default).
        max_tokens: Max new tokens of every call to the model under test (None: each call's own).
        temperature: Temperature of every call to the model under test (None: each call's own).
        timeout: Seconds per request (None: the run default); recorded, not compared on resume
            (it changes no answer).
        extra_body: Further request-body fields of every call to the model under test.
    """

    model: str
    judge: str | None
    protocol: str
    limit: int | None
    data: str
    embedder: str | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    timeout: float | None = None
    extra_body: dict[str, Any] | None = None

    def run_options(self) -> dict[str, Any]:
        """The run options these settings give every run (the generation controls and the timeout that are set)."""
        return {k: getattr(self, k) for k in (*GENERATION_FIELDS, "timeout") if getattr(self, k) is not None}


_NOT_COMPARED = ("timeout",)
"""Settings recorded in ``eval.json`` that a resumed eval may change (they change no answer)."""


@dataclass
class Planned:
    """One system's plan with its runs' options validated."""

    bench: Benchmark
    plan: EvalPlan
    options: dict[str, RunOptions] = field(default_factory=dict)
    departures: dict[str, str] = field(default_factory=dict)
    """Run name -> the generation controls that depart from its paper protocol (``--protocol paper``)."""


@dataclass
class EvalRow:
    """One run of the eval table (``eval.json`` ``rows``)."""

    system: str
    title: str
    run: str
    status: str
    """``complete``, ``incomplete`` (calls failed or answers unusable), ``budget``, ``error``, ``not run``."""
    message: str = ""
    metric: str | None = None
    greater_is_better: bool | None = None
    mean: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    n: int | None = None
    model_id: str | None = None
    yardsticks: list[dict[str, Any]] = field(default_factory=list)
    published: list[dict[str, Any]] = field(default_factory=list)
    data: str = ""
    note: str | None = None


@dataclass
class EvalResult:
    """What :func:`run_eval` (or :func:`read_eval`) gives: the folder, its settings and its table."""

    path: Path
    settings: EvalSettings
    rows: list[EvalRow]
    skipped: list[tuple[str, str]]
    """(system, why it runs nothing here)."""
    budget: dict[str, Any] = field(default_factory=dict)

    @property
    def model_id(self) -> str | None:
        """The model id the runs recorded (their ``scores.json`` ``model``), else None."""
        return next((r.model_id for r in self.rows if r.model_id), None)

    def to_dict(self) -> dict[str, Any]:
        """The ``eval.json`` object."""
        return to_jsonable({"noveval_eval": _FORMAT, "noveval_version": __version__,
                       "updated": datetime.now(UTC).isoformat(timespec="seconds"),
                       "settings": asdict(self.settings), "model_id": self.model_id,
                       "rows": [asdict(r) for r in self.rows],
                       "skipped": [{"system": s, "reason": why} for s, why in self.skipped], "budget": self.budget})


def plan_eval(settings: EvalSettings, data_dir: Path | Sequence[Path] | None, only: list[str] | None = None,
              extra: dict[str, Any] | None = None) -> list[Planned]:
    """Every system's eval plan (or the ``only`` ones), its runs' options validated.

    Args:
        settings: The eval's settings (judge, protocol, limit, embedder, and the generation
            controls and timeout every run gets: :meth:`EvalSettings.run_options`).
        data_dir: The real data folder; or the data folders to search, in order, each system
            reading the first whose plan runs (:func:`noveval.data.folders.data_folder`; when
            none does, the first folder's reason is kept); None: the shipped samples.
        only: System names to run (None: every system that declares eval settings).
        extra: Run options given to every run (``concurrency``, ``timeout``, ``overwrite``, ...).

    Raises:
        InputError: an unknown system, a system without eval settings in ``only``, a bad
            protocol, or options a system refuses (``<system>: options.<field>: ...``).
    """
    from noveval.benchmarks import BENCHMARKS
    from noveval.benchmarks._runner import parse_options

    if settings.protocol not in PROTOCOLS:
        raise InputError(None, None, "protocol", f"{settings.protocol!r}: one of {', '.join(PROTOCOLS)}")
    unknown = [n for n in only or [] if n not in BENCHMARKS]
    if unknown:
        raise InputError(None, None, "only", f"unknown system(s) {', '.join(unknown)}; registered: {', '.join(BENCHMARKS)}")
    out = []
    for name, bench in BENCHMARKS.items():
        if only and name not in only:
            continue
        make = load(bench.suite) if bench.suite is not None else None
        if make is None:
            if only:
                raise InputError(None, None, "only", f"{name} declares no eval settings (Benchmark.suite)")
            continue
        p = Planned(bench, _plan(make, data_dir, settings))
        plan = p.plan
        for run in plan.runs:
            values = {**run.options, **(extra or {}), **settings.run_options()}
            if settings.embedder and "embedder" in bench.options.model_fields:
                values["embedder"] = settings.embedder
            try:
                p.options[run.name] = parse_options(bench, values)
            except InputError as e:
                raise InputError(e.path, e.line, e.field, f"{name}: {e.message}") from e
            if settings.protocol == "paper":
                p.departures.update({run.name: d} if (d := paper_departures(bench, run, settings)) else {})
        out.append(p)
    return out


def plan_work(model: str, planned: list[Planned]) -> list[Any]:
    """What each planned run will do (:class:`noveval.plan.SystemPlan`), no model call.

    Each run's plan comes from its system's hook (``Benchmark.plan``) with the run's validated
    options; a system without one, or whose planner fails, is "not estimated" with the reason
    (never a made-up number). A local model under test adds the bundled GGUF to the local
    models of every run that calls it.
    """
    from noveval.plan import not_estimated

    local = parse_spec(model).provider == "local"
    out = []
    for p in planned:
        hook = load(p.bench.plan) if p.bench.plan is not None else None
        for run in p.plan.runs:
            if hook is None:
                sp = not_estimated(run.name, f"{p.bench.name} declares no work plan (Benchmark.plan)")
            else:
                try:
                    sp = hook(p.options[run.name])
                except Exception as e:  # a planner that fails must not stop the eval: say so
                    log.debug("traceback of the failed plan", exc_info=True)
                    sp = not_estimated(run.name, f"its planner failed: {type(e).__name__}: {str(e).splitlines()[0]}")
            sp.system = run.name
            if local and any(c.model is None for c in sp.calls):
                sp.local_models.insert(0, f"{model} (the model under test: the bundled SmolLM2-135M GGUF unless a "
                                          "path is given)")
            out.append(sp)
    return out


def paper_departures(bench: Benchmark, run: EvalRun, settings: EvalSettings) -> str | None:
    """The generation controls of ``settings`` that depart from a run's paper protocol, in words (None: none).

    The paper's value of ``max_tokens`` / ``temperature`` is the one the run's plan gives, else
    the one the system's options declare (None there: each call's own, e.g. a temperature the
    protocol picks); a control equal to it is no departure. Any ``extra_body`` is one.
    """
    parts = []
    for name in ("max_tokens", "temperature"):
        mine = getattr(settings, name)
        if mine is None:
            continue
        fields = bench.options.model_fields
        paper = run.options.get(name, fields[name].default if name in fields else None)
        if paper is None or float(paper) != float(mine):
            theirs = "the protocol's own" if paper is None else f"{paper:g}"
            parts.append(f"{flags_of(bench.options, name)[0]} {mine:g} (paper protocol: {theirs})")
    if settings.extra_body:
        parts.append(f"--extra-body {json.dumps(settings.extra_body, ensure_ascii=False)}")
    return "departs from the paper protocol: " + "; ".join(parts) if parts else None


def _plan(make: Callable[..., EvalPlan], data: Path | Sequence[Path] | None, settings: EvalSettings) -> EvalPlan:
    """A system's plan on ``data`` (see :func:`plan_eval`): from the first folder where it runs."""
    from noveval.data.folders import data_folder

    def plan_of(d: Path | None) -> EvalPlan:
        return make(d, limit=settings.limit, judge=settings.judge, protocol=settings.protocol)

    if data is None or isinstance(data, Path):
        return plan_of(data)
    folders = list(data)
    if not folders:
        raise InputError(None, None, "data_dir", "no data folder to search (None: the shipped samples)")
    plans: dict[Path, EvalPlan] = {}

    def runs(d: Path) -> bool:
        plans[d] = plan_of(d)
        return bool(plans[d].runs)

    found = data_folder(runs, folders=folders)
    if found is None:  # what it needs, said for the first folder
        return plans.get(folders[0].resolve()) or plan_of(folders[0].resolve())
    plan = plans[found]
    return replace(plan, data=f"{plan.data}, in {found}") if len(folders) > 1 else plan


def _float(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else None


def table_row(folder: Path, row: EvalRow) -> EvalRow:
    """``row`` with its numbers read from the run folder's ``scores.json`` (metric, CI, yardsticks, published).

    A row recorded ``complete`` whose folder is not (no ``scores.json``, or one that says
    ``"complete": false``: a run killed midway, or re-run into the folder since) becomes
    ``incomplete``: its numbers are not a result.
    """
    f = folder / "scores.json"
    try:
        scores = read_json(f) if f.is_file() else {}
    except InputError as e:
        row.message = row.message or str(e)
        return row
    if not isinstance(scores, dict):
        return row
    if row.status == "complete" and (not scores or scores.get("complete") is False):
        row.status = "incomplete"
        why = "no scores.json" if not scores else "its scores.json says complete: false"
        row.message = (f"{folder} is half-done: {why} (the same eval command resumes it)" if folder.is_dir()
                       else f"its run folder {folder} is missing")
    metric = row.metric or scores.get("primary_metric")
    row.metric = metric if isinstance(metric, str) else None
    model = scores.get("model")
    row.model_id = str(model.get("model_id") if isinstance(model, dict) else model) if model else row.model_id
    if isinstance(scores.get("greater_is_better"), bool):
        row.greater_is_better = scores["greater_is_better"]
    m = (scores.get("metrics") or {}).get(row.metric) if row.metric else None
    m = m if isinstance(m, dict) else {"mean": m}
    row.mean, row.ci_low, row.ci_high = _float(m.get("mean")), _float(m.get("ci_low")), _float(m.get("ci_high"))
    row.n = int(m["n"]) if isinstance(m.get("n"), int) else None
    base = scores.get("baselines")
    got = base.get(row.metric) if isinstance(base, dict) and row.metric else None
    row.yardsticks = [y for y in got if isinstance(y, dict)] if isinstance(got, list) else []
    pub = scores.get("published")
    row.published = [p for p in pub if isinstance(p, dict) and p.get("metric") == row.metric] if isinstance(pub, list) else []
    return row


def _status(complete: bool, stopped: str | None = None) -> str:
    return stopped or ("complete" if complete else "incomplete")


def _one_run(bench: Benchmark, run: EvalRun, opts: RunOptions, model: str, folder: Path) -> tuple[EvalRow, bool]:
    """Run one planned run; its table row and whether the eval goes on (False: budget or endpoint gone)."""
    from noveval.benchmarks._runner import BudgetStopped, IncompleteRun, run_benchmark
    from noveval.models.calls import EndpointError

    row = EvalRow(bench.name, bench.title, run.name, "complete", metric=run.metric)
    go_on = True
    try:
        done = run_benchmark(bench, model, folder, options=opts)
        row.status = _status(done.complete)
    except BudgetStopped as e:
        row.status, row.message, go_on = "budget", str(e), False
    except IncompleteRun as e:
        row.status, row.message = "incomplete", str(e)
    except EndpointError as e:
        if not e.midrun:
            raise
        row.status, row.message, go_on = "incomplete", str(e), False
    except InputError as e:
        row.status, row.message = "error", str(e)
    except Exception as e:  # one broken system must not take the others' table down
        log.debug("traceback of the failed eval run", exc_info=True)
        row.status, row.message = "error", f"{type(e).__name__}: {e}"
    return table_row(folder, row), go_on


def _check_folder(out: Path, settings: EvalSettings, overwrite: bool) -> dict[str, Any]:
    """The folder's earlier ``eval.json`` (empty when none); refuses one made with other settings."""
    f = out / EVAL_FILE
    if not f.is_file():
        return {}
    old = read_json(f)
    if not isinstance(old, dict) or not isinstance(old.get("settings"), dict):
        raise InputError(f, None, "settings", "not an eval.json written by noveval eval")
    mine = {k: v for k, v in asdict(settings).items() if k not in _NOT_COMPARED}
    for k, v in mine.items():
        if old["settings"].get(k) != v and not overwrite:
            raise InputError(f, None, f"settings.{k}", f"this folder holds an eval with {k} {old['settings'].get(k)!r}, "
                             f"not {v!r}: give another output folder (or overwrite)")
    return old if all(old["settings"].get(k) == v for k, v in mine.items()) else {}


def _earlier_rows(old: dict[str, Any], out: Path, redo: set[str], *, not_run: bool = False) -> dict[str, EvalRow]:
    """Rows of an earlier invocation for the systems this one does not plan (re-read from their folders).

    Args:
        redo: The systems (and run names) this invocation plans: their earlier rows are dropped.
        not_run: Keep the earlier "not run" rows too.
    """
    rows = {}
    for r in old.get("rows") or []:
        if (isinstance(r, dict) and r.get("run") not in redo and r.get("system") not in redo
                and (not_run or r.get("status") != "not run")):
            fields = {k: v for k, v in r.items() if k in EvalRow.__dataclass_fields__}
            try:
                row = EvalRow(**fields)
            except TypeError:
                continue
            rows[row.run] = table_row(out / row.run, row)
    return rows


def _earlier_skipped(old: dict[str, Any], redo: set[str]) -> list[tuple[str, str]]:
    """The "not run" reasons of an earlier invocation for the systems this one does not plan."""
    return [(str(x.get("system")), str(x.get("reason"))) for x in old.get("skipped") or []
            if isinstance(x, dict) and x.get("system") not in redo]


def _nothing_runs(settings: EvalSettings, planned: list[Planned]) -> InputError:
    """The error of an eval in which no system runs: the data searched and what each system needs."""
    where = ("the shipped samples" if settings.data == "sample"
             else f"data folder(s) searched: {', '.join(settings.data.split(os.pathsep))}")
    why = "".join(f"\n  {p.bench.name}: {p.plan.skip}" for p in planned if p.plan.skip)
    return InputError(None, None, "data", f"no system can run ({where}); what each needs:{why}")


STARTED = "started, not finished (interrupted or killed): the same command resumes it"
"""The message of a run's row while it runs: a half-done run stays marked incomplete."""


def run_eval(model: str, out: Path, settings: EvalSettings, planned: list[Planned], *, max_cost: float | None = None,
             overwrite: bool = False, on_row: Callable[[EvalRow], None] | None = None) -> EvalResult:
    """Run the planned systems with ``model`` into ``out`` (see the module docstring).

    Rows and "not run" reasons of systems an earlier invocation ran into ``out`` (with the same
    settings) and this one does not plan (``--only``) are kept. A run's row is written as
    ``incomplete`` before it starts, so an eval killed midway shows it so. An eval that fails
    before any run ends (e.g. a dead endpoint) leaves no folder it made.

    Args:
        model: The model spec under test.
        out: The eval folder (created; an eval with the same settings resumes).
        settings: The eval's settings (recorded in ``eval.json``; must match an earlier one).
        planned: :func:`plan_eval`'s plans.
        max_cost: One budget in US dollars for every system's model calls (None: none).
        overwrite: Replace an eval with other settings (the runs' own ``overwrite`` is in
            their options).
        on_row: Called with each run's row when it ends (progress).

    Returns:
        The :class:`EvalResult` (also written to ``eval.json`` and ``eval.csv``).

    Raises:
        InputError: no planned system has a run (nothing is written), the folder holds an
            eval with other settings, or cannot be written.
        EndpointError: a model fails its first check (before any run of this invocation).
    """
    todo = [(p, run) for p in planned for run in p.plan.runs]
    if not todo:
        raise _nothing_runs(settings, planned)
    old = _check_folder(out, settings, overwrite)
    made = not out.exists()
    make_dir(out, "out")
    redo = {p.bench.name for p in planned} | {run.name for _, run in todo}
    rows = _earlier_rows(old, out, redo, not_run=True)
    skipped = _earlier_skipped(old, redo) + [(p.bench.name, p.plan.skip) for p in planned if p.plan.skip]
    result = EvalResult(out, settings, [], skipped)
    try:
        _run_all(model, out, todo, rows, result, max_cost, on_row)
    except Exception:
        if made and all(r.message == STARTED for r in result.rows):  # nothing ran: leave no folder behind
            shutil.rmtree(out, ignore_errors=True)
        raise
    return result


def eval_data(sample: bool, data_dir: str | os.PathLike[str] | None) -> Path | list[Path] | None:
    """The data an eval reads: ``data_dir`` (resolved), else the data folders to search (each system
    reads the first that holds its data); None: the shipped samples (``sample``, or no data folder exists).

    Raises:
        InputError: ``sample`` and ``data_dir`` both given (field ``data_dir``), or ``data_dir`` is no folder.
    """
    from noveval.settings import data_dirs

    if sample:
        if data_dir is not None:
            raise InputError(Path(data_dir), None, "data_dir", "give the samples or a data folder, not both")
        return None
    if data_dir is not None:
        if not Path(data_dir).is_dir():
            raise InputError(Path(data_dir), None, "data_dir", "no such folder")
        return Path(data_dir).resolve()
    return data_dirs() or None


def evaluate(model: str, out: str | os.PathLike[str], *, judge: str | None = None, embedder: str | None = None,
             only: Sequence[str] | None = None, limit: int | None = None, data_dir: str | os.PathLike[str] | None = None,
             sample: bool = False, protocol: str | None = None, max_cost: float | None = None,
             options: Mapping[str, Any] | None = None, overwrite: bool = False,
             on_plan: Callable[[list[Planned], Path | list[Path] | None], None] | None = None) -> EvalResult:
    """One model's eval, from its arguments to its table: the one path of ``noveval eval`` and :func:`noveval.eval`.

    Resolves the data (:func:`eval_data`), plans every system (:func:`plan_eval`, options
    validated before any call), then runs them (:func:`run_eval`). Arguments as in
    :func:`noveval.api.eval`; ``on_plan`` is called with the plans and the data before any run
    (the CLI says there what runs, or exits when nothing does).
    """
    from noveval.models.costs import Budget, load_prices

    ddir = eval_data(sample, data_dir)
    data = "sample" if ddir is None else str(ddir) if isinstance(ddir, Path) else os.pathsep.join(map(str, ddir))
    extra = {**(options or {}), **({"overwrite": True} if overwrite else {})}
    controls = {k: extra.pop(k) for k in (*GENERATION_FIELDS, "timeout") if extra.get(k) is not None}
    if "extra_body" in controls:
        try:
            controls["extra_body"] = parse_extra_body(controls["extra_body"])
        except ValueError as e:
            raise InputError(None, None, "options.extra_body", str(e)) from None
    settings = EvalSettings(model=model, judge=judge, protocol=protocol or ("paper" if ddir is not None else "noveval"),
                            limit=limit, data=data, embedder=embedder, **controls)
    load_prices()
    if max_cost is not None:
        Budget(max_cost)
    planned = plan_eval(settings, ddir, list(only) if only else None, extra)
    if on_plan is not None:
        on_plan(planned, ddir)
    return run_eval(model, Path(out), settings, planned, max_cost=max_cost, overwrite=overwrite)


def _run_all(model: str, out: Path, todo: list[tuple[Planned, EvalRun]], rows: dict[str, EvalRow],
             result: EvalResult, max_cost: float | None, on_row: Callable[[EvalRow], None] | None) -> None:
    """Run ``todo`` in one call ledger, writing the table after each run (see :func:`run_eval`)."""
    from noveval.models.calls import ledger_scope
    from noveval.progress import heartbeat

    go_on = True
    with ledger_scope(max_cost=max_cost) as ledger:
        for i, (p, run) in enumerate(todo, 1):
            if not go_on:
                rows[run.name] = EvalRow(p.bench.name, p.bench.title, run.name, "not run", "the eval stopped before it")
                continue
            log.info("== eval %d/%d: %s", i, len(todo), run.name)
            before, saved = rows.pop(run.name, None), _saved(out / run.name, out / EVAL_FILE, out / CSV_FILE)
            rows[run.name] = EvalRow(p.bench.name, p.bench.title, run.name, "incomplete", STARTED, metric=run.metric)
            _write(result, rows)  # killed from here on, the run shows as half-done
            try:
                with heartbeat(f"eval {run.name}", status=ledger.progress_line):
                    row, go_on = _one_run(p.bench, run, p.options[run.name], model, out / run.name)
            except Exception:  # a model failing its first check: the folder and its table are as they were
                rows.pop(run.name)
                rows.update({run.name: before} if before is not None else {})
                result.rows = _ordered(rows)
                _restore(out / run.name, saved)
                raise
            row.data, row.note = p.plan.data, "; ".join(n for n in (p.plan.note, p.departures.get(run.name)) if n) or None
            rows[run.name] = row
            result.budget = _budget(ledger, max_cost)
            _write(result, rows)
            if on_row is not None:
                on_row(row)
    _write(result, rows)


def _saved(folder: Path, *files: Path) -> tuple[bool, dict[Path, str | None]]:
    """Whether ``folder`` exists and each file's text (None: absent), for :func:`_restore`."""
    return folder.exists(), {f: (f.read_text(encoding="utf-8") if f.is_file() else None) for f in files}


def _restore(folder: Path, saved: tuple[bool, dict[Path, str | None]]) -> None:
    """Put back what :func:`_saved` saw: ``folder`` removed when it was absent, the files as they were."""
    existed, files = saved
    if not existed:
        shutil.rmtree(folder, ignore_errors=True)
    for f, text in files.items():
        if text is None:
            f.unlink(missing_ok=True)
        else:
            write_text(f, text)


def _write(result: EvalResult, rows: dict[str, EvalRow]) -> None:
    result.rows = _ordered(rows)
    write_eval(result)


def _ordered(rows: dict[str, EvalRow]) -> list[EvalRow]:
    from noveval.benchmarks import BENCHMARKS

    rank = {name: i for i, name in enumerate(BENCHMARKS)}
    return sorted(rows.values(), key=lambda r: (rank.get(r.system, len(rank)), r.run))


def _budget(ledger: Any, max_cost: float | None) -> dict[str, Any]:
    cost = ledger.totals().get("cost") or {}
    return {"max_cost": max_cost, "usd": cost.get("usd"), "stopped": ledger.budget.stopped if ledger.budget else None}


def write_eval(result: EvalResult) -> None:
    """Write ``eval.json`` and ``eval.csv`` of ``result`` (atomically)."""
    write_json(result.path / EVAL_FILE, result.to_dict())
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(CSV_COLUMNS), lineterminator="\n")
    w.writeheader()
    label = result.model_id or result.settings.model
    for row in csv_rows(result.rows, label=label, model=result.settings.model):
        w.writerow(row)
    write_text(result.path / CSV_FILE, buf.getvalue())


CSV_COLUMNS = ("kind", "label", "model", "system", "run", "metric", "greater_is_better", "value", "ci_low", "ci_high",
               "n", "status", "source")
"""Columns of ``eval.csv``: ``kind`` is ``model``, ``yardstick`` or ``published``."""


def csv_rows(rows: list[EvalRow], *, label: str, model: str) -> list[dict[str, Any]]:
    """The table in long form: the model's value per run, then each yardstick and published row."""
    out: list[dict[str, Any]] = []
    for r in rows:
        base = {"system": r.system, "run": r.run, "metric": r.metric, "greater_is_better": r.greater_is_better}
        out.append({"kind": "model", "label": label, "model": model, **base, "value": r.mean, "ci_low": r.ci_low,
                    "ci_high": r.ci_high, "n": r.n, "status": r.status, "source": r.message})
        for y in r.yardsticks:
            out.append({"kind": "yardstick", "label": y.get("name"), "model": None, **base, "value": y.get("value"),
                        "ci_low": y.get("ci_low"), "ci_high": y.get("ci_high"), "n": None, "status": y.get("kind"),
                        "source": y.get("how")})
        for pub in r.published:
            name = " · ".join(str(x) for x in (pub.get("model"), pub.get("setting")) if x)
            src = ", ".join(str(x) for x in (pub.get("source"), pub.get("table")) if x)
            out.append({"kind": "published", "label": name, "model": None, **base, "value": pub.get("value"),
                        "ci_low": None, "ci_high": None, "n": pub.get("n"), "status": "published", "source": src})
    return out


def read_eval(path: str | Path) -> EvalResult:
    """An eval folder's :class:`EvalResult` from its ``eval.json`` (rows re-read from the run folders).

    Raises:
        InputError: no ``eval.json`` in the folder, or not one noveval wrote.
    """
    p = Path(path)
    f = p / EVAL_FILE
    if not f.is_file():
        raise InputError(p, None, None, "not an eval folder (no eval.json; make one with noveval eval)")
    obj = read_json(f)
    s = obj.get("settings") if isinstance(obj, dict) else None
    if not isinstance(s, dict) or not isinstance(s.get("model"), str):
        raise InputError(f, None, "settings.model", "missing: not an eval.json written by noveval eval")
    limit = s.get("limit")
    settings = EvalSettings(model=s["model"], judge=s.get("judge"), protocol=str(s.get("protocol") or "?"),
                            limit=limit if isinstance(limit, int) else None, data=str(s.get("data") or "?"),
                            embedder=s.get("embedder"), max_tokens=s.get("max_tokens"),
                            temperature=s.get("temperature"), timeout=s.get("timeout"), extra_body=s.get("extra_body"))
    rows = list(_earlier_rows(obj, p, set(), not_run=True).values())
    skipped = [(str(x.get("system")), str(x.get("reason"))) for x in obj.get("skipped") or [] if isinstance(x, dict)]
    return EvalResult(p, settings, _ordered({r.run: r for r in rows}), skipped, dict(obj.get("budget") or {}))
