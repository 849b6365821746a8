"""The one run path: every system's run goes through :func:`run_benchmark`.

Around the system's own ``run(model, out, options)`` it gives every system the same
guarantees, from Python and from the CLI alike:

- a call ledger (:func:`~noveval.models.calls.ledger_scope`): every remote model the run
  makes is checked with one short call before its first real call, every call is counted,
  and ``options.max_cost`` caps the spending;
- ``options.batch``: the uncached requests go through the provider's batch API
  (:func:`~noveval.models.batch.run_batched`);
- each run folder gets ``complete``, ``calls`` and ``cost`` in its ``scores.json``;
- nothing is left behind: a run that stops before its first item (bad input, an endpoint
  that fails its check) removes the output folder it created;
- a run whose calls failed raises :class:`IncompleteRun` unless ``options.allow_failures``;
  a budget stop raises :class:`BudgetStopped` (both carry the :class:`~noveval.runs.Run`).

When a ledger is already active (the CLI opens one for its progress line; ``noveval eval``
one for its shared budget) the run books into it.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel

from noveval.benchmarks._benchmark import Benchmark
from noveval.errors import InputError, NovevalError
from noveval.io import read_json
from noveval.models.calls import (
    CALLS_FILE,
    RECOVER,
    EndpointError,
    active_ledger,
    ledger_scope,
    unusable_line,
)
from noveval.models.chat import ChatClientProtocol, ChatRequest, GenerationParams
from noveval.models.costs import BudgetExceeded
from noveval.models.types import ModelLike
from noveval.options import RunOptions, as_options, model_specs
from noveval.runs import Run, RunGroup, run_settings
from noveval.scores import Scores, read_scores

__all__ = [
    "BudgetStopped",
    "IncompleteRun",
    "RunFunction",
    "RunStopped",
    "ScoreFunction",
    "entry_points",
    "parse_options",
    "preflight",
    "run_benchmark",
    "run_task",
    "score_benchmark",
]


OptionsT = TypeVar("OptionsT", bound=RunOptions)
ScoreT = TypeVar("ScoreT", bound=BaseModel)
OptionsT_contra = TypeVar("OptionsT_contra", bound=RunOptions, contravariant=True)
ScoreT_contra = TypeVar("ScoreT_contra", bound=BaseModel, contravariant=True)


class RunFunction(Protocol[OptionsT_contra]):
    """A system's ``run``: :func:`noveval.run` without the system's name (``options``: its options class or a mapping)."""

    def __call__(self, model: str | ChatClientProtocol = "local", out: str | os.PathLike[str] = "runs/noveval", *,
                 data: str | os.PathLike[str] | None = None,
                 options: OptionsT_contra | Mapping[str, Any] | None = None) -> Run:
        """Run the system with ``model`` into ``out`` (see :func:`run_benchmark`)."""
        ...


class ScoreFunction(Protocol[ScoreT_contra]):
    """A system's ``score``: :func:`noveval.score` for one system's run folders (``options``: its scoring options or a mapping)."""

    def __call__(self, run: str | os.PathLike[str], *, options: ScoreT_contra | Mapping[str, Any] | None = None) -> Scores:
        """Scores of a run folder from its saved outputs alone."""
        ...


class RunStopped(NovevalError):
    """A run that ended without a whole result; :attr:`run` says what was saved."""

    def __init__(self, message: str, run: Run) -> None:
        super().__init__(message)
        self.run = run


class IncompleteRun(RunStopped):
    """Model calls failed for good (after retries): the run is saved but incomplete (CLI exit 3)."""


class BudgetStopped(RunStopped):
    """``max_cost`` stopped the run cleanly; the same run with a higher budget finishes it (CLI exit 4)."""


def parse_options(bench: Benchmark[OptionsT, Any], options: OptionsT | Mapping[str, Any] | None = None, *,
                  data: str | os.PathLike[str] | None = None) -> OptionsT:
    """The system's options object from ``options`` (object, dict or None) and ``data``.

    Raises:
        InputError: an unknown field or bad value (``options.<field>``), or ``data`` for a
            system that takes no data option.
    """
    if data is not None and bench.data_option is None:
        raise InputError(None, None, "data", f"{bench.name} takes its inputs as options, not data=")
    fill = {bench.data_option: data} if bench.data_option and data is not None else {}
    return as_options(bench.options, options, **fill)


@contextlib.contextmanager
def _ledger(max_cost: float | None) -> Iterator[Any]:
    outer = active_ledger()
    if outer is not None:
        yield outer
        return
    with ledger_scope(max_cost=max_cost) as ledger:
        yield ledger


def _is_remote(spec: str) -> bool:
    return spec.lower() not in ("none", "") and not spec.startswith("local")


def _already_complete(out: Path) -> bool:
    """True when the folder's last invocation finished with every call answered (a re-run makes no call).

    A folder of sub-runs (prompt variants) is complete when each of its run folders is.
    """
    if out.is_dir() and not (out / "config.json").is_file():
        subs = [d for d in out.iterdir() if (d / "config.json").is_file()]
        return bool(subs) and all(_folder_complete(d) for d in subs)
    return _folder_complete(out)


def _folder_complete(out: Path) -> bool:
    try:
        calls = read_json(out / CALLS_FILE) if (out / CALLS_FILE).is_file() else {}
        scores = read_json(out / "scores.json") if (out / "scores.json").is_file() else {}
    except InputError:
        return False
    last = calls.get("last") if isinstance(calls, dict) else None
    done = isinstance(last, dict) and last.get("complete") is True and not calls.get("unresolved")
    return bool(done or (isinstance(scores, dict) and scores.get("complete") is True))


def preflight(model: ModelLike, opts: RunOptions, out: Path) -> None:
    """Check every remote model, judge and embedder the run names with one short call, before any work.

    A run folder that is already complete is not checked (its re-run makes no model call);
    otherwise an endpoint that cannot work stops the run here, with nothing written.

    Raises:
        EndpointError: unreachable, key refused, model not found, timeout.
    """
    ledger = active_ledger()
    if ledger is None or opts.batch or _already_complete(out):  # a batch run talks to the batch API, not live
        return
    if ledger.budget is not None and out.exists():  # resuming under a budget: the first real request's own
        return  # admission decides, before its endpoint check, whether anything is sent at all
    specs = [("model", "chat", model)] if isinstance(model, str) else []
    for _field, kind, spec in [*specs, *model_specs(opts)]:
        if not _is_remote(spec):
            continue
        if kind == "embed":
            from noveval.models.embed import get_embedder

            get_embedder(spec, cache=not opts.no_cache)  # registers with the ledger
        else:
            from noveval.models.client import get_client
            from noveval.models.openai_compat import PROBE_PROMPT

            client = get_client(spec, **opts.client_kwargs())
            probe = ChatRequest(messages=[{"role": "user", "content": PROBE_PROMPT}], params=GenerationParams(max_tokens=1))
            ledger.admit(client, probe, reserve=False)  # a budget that cannot pay for the check stops here
    ledger.ensure_checked()


def _system_run(bench: Benchmark[OptionsT, Any], opts: OptionsT) -> Callable[[ModelLike, Path, OptionsT], Any]:
    """The system's run (:meth:`Benchmark.run_fn`), or once per prompt variant when ``opts.prompt_variants``."""
    if getattr(opts, "prompt_variants", None):  # once per prompt variant, then compared
        from noveval.benchmarks._variants import run_variants

        return functools.partial(run_variants, bench)
    return bench.run_fn()


def _call(fn: Callable[[ModelLike, Path, OptionsT], Any], model: ModelLike, out: Path, opts: OptionsT) -> Any:
    """``fn(model, out, opts)``, through the batch driver when ``opts.batch``."""
    if not opts.batch:
        return fn(model, out, opts)
    from noveval.models.batch import run_batched

    once = opts.model_copy(update={"overwrite": False})  # the driver discards the old run once, up front
    return run_batched(lambda d: fn(model, d, once), out, overwrite=opts.overwrite)


def _folders(result: Any, out: Path) -> tuple[list[Path], RunGroup | None]:
    if isinstance(result, RunGroup):
        return [Path(p) for p in result.run_dirs], result
    if isinstance(result, (list, tuple)):
        return [Path(p) for p in result], None
    return [Path(result) if result is not None else out], None


def _mark(ledger: Any, folders: list[Path], before: int) -> bool:
    """Write the yardsticks and the ledger's outcome into each folder this run touched; True when all are complete."""
    from noveval.benchmarks._yardsticks import mark_folder

    dirs = [(p if p.is_dir() else p.parent).resolve() for p in folders]
    complete = True
    for d in dict.fromkeys([*list(ledger.run_dirs)[before:], *dirs]):
        if d.is_dir():
            complete = mark_folder(d, ledger)["complete"] and complete
    return complete


_BOOKKEEPING = {"config.json", "calls.json"}  # batches.json: a submitted batch is work in flight


def _leave_nothing(out: Path, existed: bool) -> None:
    """Remove ``out`` when this run created it and it holds no result yet (stopped before its first item)."""
    if existed or not out.is_dir():
        return
    files = [p for p in out.rglob("*") if p.is_file()]
    if all(p.name in _BOOKKEEPING for p in files):
        shutil.rmtree(out, ignore_errors=True)


def run_benchmark(bench: Benchmark[OptionsT, Any], model: ModelLike, out: str | os.PathLike[str], *,
                  data: str | os.PathLike[str] | None = None, options: OptionsT | Mapping[str, Any] | None = None) -> Run:
    """Run ``bench`` with ``model`` into ``out`` under the guarantees of this module.

    Args:
        bench: The system's declaration.
        model: A model spec or a chat client.
        out: The run folder (created; a run with the same settings is resumed).
        data: Fills the system's data option (``Benchmark.data_option``).
        options: The system's options object, a dict of its fields, or None.

    Returns:
        The :class:`~noveval.runs.Run`.

    Raises:
        InputError: bad options or input (nothing written).
        EndpointError: a model that fails its check before the first item (nothing written).
        IncompleteRun: model calls failed (unless ``options.allow_failures``).
        BudgetStopped: ``options.max_cost`` reached.
    """
    opts = parse_options(bench, options, data=data)
    return run_task(bench.name, _system_run(bench, opts), model, out, opts)


def run_task(name: str, fn: Callable[[ModelLike, Path, OptionsT], Any], model: ModelLike,
             out: str | os.PathLike[str], opts: OptionsT, *, one_file: bool = False) -> Run:
    """``fn(model, out, opts)`` under the guarantees of this module: what :func:`run_benchmark` does
    for a system's run, and the path of the other model-calling tasks (``rinobench construct``,
    ``focus expert``, ``check``, NovBench's stages, ``index search --rerank``), so every model call
    goes through one runner.

    Args:
        name: What runs (a system's name, or ``<system> <task>``), for messages and the :class:`Run`.
        fn: ``fn(model, out, opts)``: does the work into the folder ``out`` (resumable) and returns
            it (or its folders, or a :class:`~noveval.runs.RunGroup`).
        model: A model spec or a chat client.
        out: The output folder (``one_file``: the one file the task writes).
        opts: The task's options (a :class:`~noveval.options.RunOptions`: budget, batch,
            allow_failures, allow_unparseable, the models it names).
        one_file: The task writes the one file ``out`` rather than a run folder (NovBench's
            dataset-construction stages, ``index search``): the same checks and outcome, kept in no
            folder (no calls.json beside the file; the ledger's calls of this invocation are the
            task's, so run it in a ledger of its own, as the CLI does); ``batch`` needs a run
            folder and is refused.

    Raises:
        The same as :func:`run_benchmark`.
    """
    out = Path(out)
    if one_file:
        return _run_one_file(name, fn, model, out, opts)
    existed = out.exists()
    with _ledger(opts.max_cost) as ledger:
        ledger.accept_unusable = opts.allow_unparseable
        ledger.refresh = bool(getattr(opts, "refresh", False))
        before = len(ledger.run_dirs)
        try:
            preflight(model, opts, out)
            with run_settings(generation=opts.generation() or None, timeout_s=opts.timeout):  # in config.json
                result = _call(fn, model, out, opts)
        except BudgetExceeded as e:
            complete = _mark(ledger, [out], before)
            _leave_nothing(out, existed)
            raise BudgetStopped(str(e), Run(out, name, complete, (out,), stopped="budget")) from e
        except (InputError, EndpointError) as e:
            if isinstance(e, EndpointError) and e.midrun:
                _mark(ledger, [out], before)
            else:
                _leave_nothing(out, existed)
            raise
        folders, group = _folders(result, out)
        complete = _mark(ledger, folders, before)
        unusable = _unusable_answers(folders)
    path = out if group is not None else folders[0]
    run = Run(path, name, complete, tuple(folders), group=group)
    if unusable is not None and not opts.allow_unparseable:
        raise IncompleteRun(f"{name}: {unusable}: a broken endpoint configuration, not a result; {RECOVER}", run)
    if not complete and not opts.allow_failures:
        raise IncompleteRun(f"{name}: model calls failed; the run in {path} is incomplete "
                            "(run it again to redo them, or allow failures)", run)
    return run


def _run_one_file(name: str, fn: Callable[[ModelLike, Path, OptionsT], Any], model: ModelLike, out: Path,
                  opts: OptionsT) -> Run:
    """:func:`run_task` for a task that writes the one file ``out``: its outcome is the ledger's, written nowhere."""
    if opts.batch:
        raise InputError(None, None, "options.batch", f"{name} writes one file ({out.name}), not a run folder: "
                         "a batch run needs a run folder to keep its batch ids")
    with _ledger(opts.max_cost) as ledger:
        ledger.accept_unusable = opts.allow_unparseable
        ledger.refresh = opts.refresh
        preflight(model, opts, out)
        try:
            with run_settings(generation=opts.generation() or None, timeout_s=opts.timeout):
                fn(model, out, opts)
        except BudgetExceeded as e:
            raise BudgetStopped(str(e), Run(out, name, False, (out,), stopped="budget")) from e
        outcome = ledger.outcome(None)
    run = Run(out, name, bool(outcome["complete"]), (out,))
    unusable = unusable_line(outcome.get("unusable"))
    if unusable is not None and not opts.allow_unparseable:
        raise IncompleteRun(f"{name}: {unusable}: a broken endpoint configuration, not a result; {RECOVER}", run)
    if not run.complete and not opts.allow_failures:
        raise IncompleteRun(f"{name}: model calls failed; {out} is incomplete (run it again to redo them, or allow "
                            "failures)", run)
    return run


def _unusable_answers(folders: list[Path]) -> str | None:
    """The line on mostly unusable answers of any folder of the run (from its calls.json), or None."""
    for d in folders:
        f = (d if d.is_dir() else d.parent) / CALLS_FILE
        last = read_json(f).get("last") if f.is_file() else None
        line = unusable_line(last.get("unusable")) if isinstance(last, dict) else None
        if line is not None:
            return line
    return None


def score_benchmark(bench: Benchmark[Any, ScoreT], run: str | os.PathLike[str],
                    options: ScoreT | Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Scores of a run folder of ``bench`` from its saved outputs alone (the scores.json dict).

    With the yardsticks and published rows of :mod:`noveval.benchmarks._yardsticks`.

    Raises:
        InputError: not a run folder of this system, or a bad scoring option.
    """
    from noveval.benchmarks._yardsticks import attach_references, with_references

    fn = bench.score_fn()
    if bench.score_options is None:
        if options:
            raise InputError(None, None, "options", f"{bench.name} has no scoring options")
        got = dict(fn(Path(run), None))
    else:
        got = dict(fn(Path(run), as_options(bench.score_options, options)))
    attach_references(Path(run))  # the folder's scores.json, when the system (re)wrote it
    return with_references(got, Path(run))


def entry_points(bench: Benchmark[OptionsT, ScoreT]) -> tuple[RunFunction[OptionsT], ScoreFunction[ScoreT]]:
    """The ``run`` and ``score`` a system package exports (the same for every system).

    ``run, score = entry_points(BENCHMARK)`` in the package's ``__init__``; mypy checks their
    ``options`` against the system's options classes (or a mapping of their fields).
    """

    def run(model: str | ChatClientProtocol = "local", out: str | os.PathLike[str] = "runs/noveval", *,
            data: str | os.PathLike[str] | None = None, options: OptionsT | Mapping[str, Any] | None = None) -> Run:
        return run_benchmark(bench, model, out, data=data, options=options)

    def score(run: str | os.PathLike[str], *, options: ScoreT | Mapping[str, Any] | None = None) -> Scores:
        return read_scores(score_benchmark(bench, run, options))

    run.__doc__ = f"Run {bench.title} with ``model`` into ``out`` (:func:`noveval.run` for ``{bench.name}``)."
    score.__doc__ = f"Scores of a {bench.title} run folder (:func:`noveval.score` for ``{bench.name}``)."
    return run, score
