"""``noveval demo``: every benchmark end to end on tiny inputs, then one report.

Each benchmark's demo hook (``Benchmark.demo``: shipped systems and plugins alike) says
what to run: a list of :class:`~noveval.benchmarks.DemoRun` (a folder, the system's
options, optionally a model and a step to run after). The demo runs each through the
runner (:func:`~noveval.benchmarks._runner.run_benchmark`: endpoint check, call ledger,
unusable-answer tally, completeness in ``scores.json``, as for ``noveval run``), the runs of
one benchmark in one call ledger and under a heartbeat (a line at least every 10 s); a run
whose calls failed is kept and marked incomplete. Its run folders then get ``"demo"`` in
``scores.json`` (what the items are, which model, which approximations are on), so
the report opens with a banner that says what the page is and is not. The terminal ends
with one line per run and the report path.

Exit codes: 0 all ran and every model call was answered; 1 a benchmark's demo failed
(the others are still reported); 2 bad options (``--only`` naming a benchmark that is not
registered or has no demo) or an endpoint that cannot work; 3 model
calls failed (``--allow-failures``: 0).
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from noveval.benchmarks import Benchmark, DemoRun
    from noveval.runs import Run

__all__ = ["run_demo", "demo_marker"]

log = logging.getLogger("noveval")

BUNDLED_CHAT = "the bundled SmolLM2-135M-Instruct (a 135M-parameter model: its outputs are poor by design)"
BUNDLED_EMBEDDER = "the bundled all-MiniLM-L6-v2"


def _approximations(run_dir: Path) -> list[str]:
    """Approximations a run's own config says are on (read, not assumed)."""
    from noveval.io import read_json

    f = run_dir / "config.json"
    try:
        cfg = read_json(f) if f.is_file() else {}
    except Exception:  # noqa: BLE001 - a damaged config is reported by the report itself
        return []
    if not isinstance(cfg, dict):
        return []
    got = cfg.get("config")
    inner: dict[str, Any] = got if isinstance(got, dict) else cfg
    out = []
    if inner.get("semnovel_mode") == "approx":
        out.append("SemNovel approximate: pool variants are placed into per-pool t-SNE maps with openTSNE's "
                   "transform instead of refitting t-SNE for each variant")
    if inner.get("fasttext_mode") == "approx":
        out.append("FastTextLOF approximate: base-pool fastText models are reused for pool variants")
    return out


def demo_marker(name: str, run_dir: Path, *, model: str, embedder: str, real: bool, seconds: float) -> dict[str, Any]:
    """The ``"demo"`` entry written into a demo run's scores.json (read by the report and the summary)."""
    from noveval.benchmarks import BENCHMARKS

    a = BENCHMARKS[name].about if name in BENCHMARKS else None
    derived = _approximations(run_dir)  # what the run's own config says, preferred to the declaration's prose
    notes = [n for n in (a.demo if (a and not real) else ()) if not (derived and "approximate" in n)] + derived
    return {
        "benchmark": name,
        "data": "a few items of the real datasets" if real else "invented sample items shipped with noveval",
        "model": BUNDLED_CHAT if model == "local" else model,
        "embedder": BUNDLED_EMBEDDER if embedder == "local" else embedder,
        "notes": notes,
        "seconds": round(seconds, 1),
    }


def _mark(run_dir: Path, complete: bool, marker: dict[str, Any]) -> dict[str, Any]:
    """Write the demo marker into a run folder's scores.json (the runner has written its outcome); the scores."""
    from noveval.io import read_json, write_json

    f = run_dir / "scores.json"
    if f.is_file():
        scores = read_json(f)
        if isinstance(scores, dict):
            scores["demo"] = marker
            write_json(f, scores)
            return scores
    return {"complete": complete, "demo": marker}


def _line(name: str, run_dir: Path, scores: dict[str, Any]) -> str:
    from noveval.cli.summary import _num

    metrics = scores.get("metrics") or {}
    primary = scores.get("primary_metric")
    key = primary if primary in metrics else next(iter(metrics), None)
    if key is None:
        value = "no metrics"
    else:
        m = metrics[key] if isinstance(metrics[key], dict) else {"mean": metrics[key]}
        ci = f" [{_num(m.get('ci_low'))}, {_num(m.get('ci_high'))}]" if m.get("ci_low") is not None else ""
        value = f"{key} {_num(m.get('mean'))}{ci} n={_num(m.get('n'))}"
    calls = scores.get("calls") or {}
    state = "complete" if scores.get("complete", True) else f"INCOMPLETE ({calls.get('failed', '?')} of {calls.get('requests', '?')} calls failed)"
    return f"  {name:<10} {run_dir.name:<22} {value:<48} {state}"


def cpu_seconds() -> float:
    """CPU seconds used so far by this process (all threads) and its finished child processes."""
    import resource

    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


class _Tally:
    """What the demos left for the summary: run folders, failures, summary lines, times."""

    def __init__(self) -> None:
        self.runs: list[Path] = []
        self.failures: list[tuple[str, str]] = []
        self.lines: list[str] = []
        self.times: list[str] = []
        self.complete = True


def _run(bench: Benchmark[Any, Any], demo: DemoRun, out: Path, model: str) -> Run:
    """One demo run through the runner (an incomplete run is kept and said so, not raised), then its ``after`` step."""
    from noveval.benchmarks._runner import IncompleteRun, run_benchmark

    try:
        run = run_benchmark(bench, demo.model or model, out / demo.folder, options=demo.options)
    except IncompleteRun as e:  # failed or mostly unusable calls: the run is marked incomplete and shown
        run = e.run
    if demo.after is not None:
        demo.after(Path(run.path))
    return run


def _run_one(bench: Benchmark[Any, Any], out: Path, tally: _Tally, *, model: str, embedder: str, real: bool,
             data_dir: Path | None) -> None:
    """One benchmark's demo: the runs its hook returns, each through the runner in one call ledger; marked in ``tally``."""
    from noveval.benchmarks import load
    from noveval.cli.common import fail
    from noveval.models.calls import EndpointError, ledger_scope
    from noveval.progress import heartbeat

    name, hook = bench.name, bench.demo
    if hook is None:  # _todo keeps only benchmarks with a demo
        return
    t0, c0 = time.perf_counter(), cpu_seconds()
    with ledger_scope() as ledger, heartbeat(f"demo {name}", status=ledger.progress_line):
        try:
            todo = load(hook)(model=model, embedder=embedder, real=real, data_dir=data_dir)
            runs = [_run(bench, d, out / name, model) for d in todo]
        except EndpointError as e:
            fail(str(e))
        except Exception as e:  # one broken benchmark must not take the others' report down
            tally.failures.append((name, f"{type(e).__name__}: {e}"))
            log.error("== demo %s FAILED after %.0fs: %s: %s", name, time.perf_counter() - t0, type(e).__name__, e)
            log.debug("traceback of the failed demo", exc_info=True)
            return
    seconds = time.perf_counter() - t0
    for d in dict.fromkeys(Path(f) for run in runs for f in (run.folders or (run.path,))):
        marker = demo_marker(name, d, model=model, embedder=embedder, real=real, seconds=seconds)
        scores = _mark(d, all(r.complete for r in runs if d in r.folders or d == r.path), marker)
        tally.complete = tally.complete and scores.get("complete", True) is not False
        tally.lines.append(_line(name, d, scores))
        tally.runs.append(d)
    cpu = cpu_seconds() - c0
    tally.times.append(f"{name} {seconds:.0f} s, {cpu:.0f} CPU-s")
    log.info("== demo %s done in %.0f s (%.0f CPU-s)", name, seconds, cpu)


def _todo(only: list[str] | None) -> list[Benchmark[Any, Any]]:
    """The benchmarks to run, in registry order (plugins' included), each with a demo hook.

    Raises:
        InputError: ``only`` names a benchmark that is not registered, or one whose
            declaration names no demo hook (``Benchmark.demo``).
    """
    from noveval.benchmarks import BENCHMARKS
    from noveval.errors import InputError

    unknown = sorted(set(only or []) - set(BENCHMARKS))
    if unknown:
        raise InputError(None, None, "--only", f"unknown benchmark(s): {', '.join(unknown)}; registered: {', '.join(BENCHMARKS)}")
    chosen = [b for n, b in BENCHMARKS.items() if not only or n in only]
    none = [b.name for b in chosen if b.demo is None]
    if none and only:
        with_demo = [n for n, b in BENCHMARKS.items() if b.demo is not None]
        raise InputError(None, None, "--only", f"{', '.join(none)}: no demo (the declaration names no demo hook); "
                         f"benchmarks with a demo: {', '.join(with_demo) or 'none'}")
    if none:
        log.info("== no demo: %s (the declaration names no demo hook)", ", ".join(none))
    return [b for b in chosen if b.demo is not None]


def run_demo(
    out: Path,
    *,
    model: str,
    embedder: str,
    real: bool,
    data_dir: Path | None,
    only: list[str] | None,
    allow_failures: bool = False,
) -> None:
    """Run the demos and write the report (see module docstring). Exits via ``typer.Exit``.

    The last lines give the wall time and the CPU seconds (this process and its worker
    processes), in all and per benchmark.
    """
    from noveval.data.folders import default_folder, searched_text
    from noveval.errors import InputError
    from noveval.io import make_dir

    ddir = None
    if real:  # the folder noveval data dir prints: the one holding the most datasets
        ddir = default_folder(data_dir)
        if ddir is None:
            raise InputError(data_dir, None, "--data-dir", f"no data folder holds a dataset ({searched_text(data_dir)}): "
                             "noveval data get NAME, or give --data-dir")
    todo = _todo(only)
    make_dir(out, "--out")
    tally = _Tally()
    t_all, c_all = time.perf_counter(), cpu_seconds()
    for i, bench in enumerate(todo, 1):
        log.info("== demo %d/%d: %s", i, len(todo), bench.name)
        _run_one(bench, out, tally, model=model, embedder=embedder, real=real, data_dir=ddir)
    report_path = None
    if tally.runs or tally.failures:
        from noveval.report import write_report

        log.info("== writing the report")
        report_path = write_report(tally.runs, out / "report.html", failures=tally.failures)
    _finish(tally, report_path, real=real, allow_failures=allow_failures,
            wall=time.perf_counter() - t_all, cpu=cpu_seconds() - c_all)


def _finish(tally: _Tally, report_path: Path | None, *, real: bool, allow_failures: bool, wall: float,
            cpu: float) -> None:
    """Print the summary, the times and the report path; exit 1 or 3 as the module docstring says."""
    if tally.lines:
        typer.echo("demo summary (invented items and a tiny model: these numbers show the pipelines run, "
                   "not how good any model is)" if not real else "demo summary (a few real items, tiny model)")
        typer.echo("\n".join(tally.lines))
        typer.echo(f"time: {wall:.0f} s wall, {cpu:.0f} CPU-s ({'; '.join(tally.times)})")
    if report_path is not None:
        typer.echo(f"report: {report_path.resolve()}")
    elif not tally.runs:
        typer.echo("no benchmark demos are installed yet", err=True)
    if tally.failures:
        typer.echo(f"WARNING: {len(tally.failures)} demo(s) failed: {', '.join(n for n, _ in tally.failures)} "
                   "(listed in the report)", err=True)
        raise typer.Exit(1)
    if not tally.complete:
        typer.echo("WARNING: some model calls failed; those runs are marked incomplete in the report", err=True)
        if not allow_failures:
            raise typer.Exit(3)
