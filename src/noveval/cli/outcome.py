"""How a command that calls models ends: endpoint checks, completeness, summary, exit code.

:func:`run_command` wraps every ``run <benchmark>`` and ``score <benchmark>`` command (and
``check``). It is the one place that turns a run's call outcomes into what the user sees:

- it opens a :func:`~noveval.models.calls.ledger_scope`, so every model the command makes
  is checked with one short call before its first real call, and every call is counted;
- an endpoint that fails its check ends the command with one line naming the model spec
  and the cause, exit code 2, before any item is recorded as failed;
- when the command returns its run folder(s), each gets ``"complete"`` and ``"calls"`` in
  its ``scores.json`` (the failed calls not yet redone are kept in ``calls.json``), and
  the shared summary (:mod:`noveval.cli.summary`) is printed, or ``scores.json`` itself
  with ``--json``; a command that returns a :class:`RunGroup` (several run folders shown
  as one, e.g. prompt variants) gets its folders marked the same way and its own view
  printed;
- if any call failed for good (after retries), the exit code is 3 — ``--allow-failures``
  makes it 0; the run is marked incomplete either way. An endpoint that stops answering
  mid-run stops the run (finished items are saved; exit 3, whatever the flag).

Commands made with ``run_command(budget=True)`` take ``--max-cost USD``: the run stops
cleanly before a request could take the run folder's spending past the budget (the
items in flight finish and are saved; exit 4); the same command with a higher budget
finishes it. Commands made with ``run_command(batch=True)`` take ``--batch``: the
uncached requests go through the provider's batch API (:mod:`noveval.models.batch`).
Every summary and ``scores.json`` (``"cost"``) show what the model calls cost.

Exit codes: 0 complete, 2 bad input or an endpoint that cannot work, 3 incomplete
(model calls failed), 4 stopped by ``--max-cost`` (resumable), 130 interrupted.
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, TypeVar, overload, runtime_checkable

import typer

from noveval.cli.common import fail, user_errors
from noveval.cli.options import AllowFailuresOpt, AllowUnparseableOpt, BatchOpt, JsonOpt, MaxCostOpt
from noveval.errors import ConfigError, InputError

F = TypeVar("F", bound=Callable[..., Any])

EXIT_INCOMPLETE = 3
EXIT_BUDGET = 4

__all__ = ["run_command", "finish", "EXIT_INCOMPLETE", "EXIT_BUDGET", "mark_complete", "RunGroup"]


def mark_complete(run_dir: Path, ledger: Any) -> dict[str, Any]:
    """The run folder's yardsticks and published rows, then :func:`noveval.runs.mark_complete`.

    (:func:`noveval.benchmarks._yardsticks.mark_folder`, imported when first used: the CLI starts fast.)
    """
    from noveval.benchmarks._yardsticks import mark_folder

    return mark_folder(run_dir, ledger)


def _scores_of(run_dir: Path) -> dict[str, Any]:
    """scores.json, or (a run without scores yet) its benchmark and model from config.json."""
    from noveval.io import read_json

    for name in ("scores.json", "config.json"):
        f = run_dir / name
        obj = read_json(f) if f.is_file() else None
        if isinstance(obj, dict):
            if name == "scores.json":
                return obj
            model = obj.get("model")
            model = model.get("model_id") if isinstance(model, dict) else model
            return {k: v for k, v in (("benchmark", obj.get("benchmark")), ("model", model)) if v}
    return {}


@runtime_checkable
class RunGroup(Protocol):
    """Run folders a command made together and shows as one (``run rinobench --prompt-variants``).

    :func:`finish` marks each folder complete or incomplete like any run folder, then
    prints ``summary()`` (``--json``: ``to_dict()``) instead of one summary per folder.
    """

    @property
    def run_dirs(self) -> list[Path]:
        """The run folders."""
        ...

    def summary(self) -> str:
        """The terminal view of the whole group."""
        ...

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` view of the whole group."""
        ...


def _command_cost(ledger: Any) -> None:
    """Print what the command's model calls cost (stderr), when any model was billed."""
    totals = ledger.totals()
    if totals["cost"].get("models"):
        from noveval.models.costs import cost_lines

        for line in cost_lines({**totals["cost"], "this_invocation_usd": None}, scope="this command"):
            typer.echo(line, err=True)


def finish(result: Any, ledger: Any, *, json_out: bool = False) -> bool:
    """Mark completeness, print the summary (or JSON) of what a command returned.

    Args:
        result: A run folder, a list of them, a :class:`RunGroup`, a scores dict
            (nothing saved), or None.
        ledger: The command's :class:`~noveval.models.calls.CallLedger`.
        json_out: Print scores.json instead of the summary.

    Returns:
        True when every model call of the command was answered (the run is complete).
    """
    from noveval.cli.summary import format_calls, format_summary

    paths: list[Path] = []
    group = result if isinstance(result, RunGroup) else None
    if group is not None:
        paths = [Path(p) for p in group.run_dirs]
    elif isinstance(result, (str, Path)):
        paths = [Path(result)]
    elif isinstance(result, (list, tuple)):
        paths = [Path(p) for p in result if isinstance(p, (str, Path))]
    dirs = [(p if p.is_dir() else p.parent).resolve() for p in paths]
    dirs = list(dict.fromkeys(dirs))
    complete = True
    outcomes: dict[Path, dict[str, Any]] = {}
    for d in list(dict.fromkeys([*ledger.run_dirs, *dirs])):
        if d.is_dir():
            outcomes[d] = mark_complete(d, ledger)
            complete = complete and outcomes[d]["complete"]
    if group is not None:
        typer.echo(json.dumps(group.to_dict(), indent=2, ensure_ascii=False) if json_out else group.summary())
        _command_cost(ledger)
        return complete
    docs: list[tuple[dict[str, Any], Path | None]] = [(_scores_of(d), d) for d in dirs]
    if isinstance(result, dict):
        from noveval.benchmarks._yardsticks import with_references

        o = ledger.outcome(None)
        result = {**with_references(result), "complete": o["complete"], "cost": o["cost"],
                  "calls": {k: v for k, v in o.items() if k not in ("complete", "cost")}}
        complete = complete and o["complete"]
        docs.append((result, None))
    if not docs:
        totals = ledger.totals()
        if totals["failed"]:
            complete = False
            typer.echo(format_calls({**totals, "failed_earlier": 0}), err=True)
        got = ledger.outcome(None)  # answers no parser could read, per role (the one rule, in every command)
        if got["unusable"] and not got["unusable_accepted"]:
            from noveval.models.calls import RECOVER, unusable_line

            complete = False
            typer.echo(f"error: {unusable_line(got['unusable'])}: a broken endpoint configuration, not a result; "
                       f"{RECOVER}", err=True)
        _command_cost(ledger)  # commands without a summary still say what they cost
        return complete
    for scores, d in docs:
        if "calls" not in scores and d is not None and d in outcomes:  # no scores.json: show the outcome anyway
            scores = {**scores, "complete": outcomes[d]["complete"], "cost": outcomes[d]["cost"],
                      "calls": {k: v for k, v in outcomes[d].items() if k not in ("complete", "cost")}}
        if json_out:
            typer.echo(json.dumps(scores, indent=2, ensure_ascii=False))
            if scores.get("complete") is False:
                typer.echo(format_calls(scores.get("calls")), err=True)
        else:
            typer.echo(format_summary(scores, d))
    return complete


@overload
def run_command(fn: F) -> F: ...
@overload
def run_command(*, batch: bool = False, budget: bool = False) -> Callable[[F], F]: ...
def run_command(fn: F | None = None, *, batch: bool = False, budget: bool = False) -> F | Callable[[F], F]:
    """Decorate ``run``/``score`` commands (adds ``--json`` and ``--allow-failures``).

    The command returns its run folder (or a list of them, or a scores dict when nothing
    was saved); see the module docstring for what happens then. Use as ``@run_command``
    or ``@run_command(batch=True, budget=True)``.

    Args:
        fn: The command.
        batch: Add ``--batch`` (the command must take ``out``, its run folder).
        budget: Add ``--max-cost``.
    """
    if fn is None:
        return lambda f: _wrap(f, summary=True, batch=batch, budget=budget)
    return _wrap(fn, summary=True, batch=batch, budget=budget)


def _call(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], batch: bool) -> Any:
    """Run the command, through the batch driver when ``--batch`` was given."""
    if not batch:
        return fn(*args, **kwargs)
    from noveval.models.batch import run_batched

    out = kwargs.get("out")
    if out is None:
        raise InputError(None, None, "--batch", "needs --out: the run folder keeps the batch ids")
    overwrite = bool(kwargs.get("overwrite"))  # done once, up front: later passes must keep batches.json
    kw = {**kwargs, "overwrite": False} if "overwrite" in kwargs else kwargs
    return run_batched(lambda d: fn(*args, **{**kw, "out": d}), out, overwrite=overwrite)


def _stopped_by_budget(e: Exception, ledger: Any, json_out: bool) -> None:
    """Save the outcome of every run folder, show it, and exit 4."""
    finish(list(ledger.run_dirs), ledger, json_out=json_out)
    typer.echo(f"stopped: {e}; finished items are saved: run the same command with a higher --max-cost to finish",
               err=True)
    raise typer.Exit(EXIT_BUDGET)


def _wrap(fn: F, *, summary: bool, batch: bool = False, budget: bool = False) -> F:
    from noveval.models.calls import EndpointError, ledger_scope
    from noveval.models.costs import BudgetExceeded
    from noveval.progress import heartbeat

    parts = fn.__module__.split(".")
    label = f"{parts[2] if len(parts) > 3 and parts[1] == 'benchmarks' else parts[-2]} {fn.__name__}"

    @functools.wraps(fn)
    def wrapper(
        *args: Any,
        json_out: bool = False,
        allow_failures: bool = False,
        batch: bool = False,
        max_cost: float | None = None,
        allow_unparseable_extra: bool = False,
        **kwargs: Any,
    ) -> Any:
        from noveval.models.costs import Budget, load_prices

        try:  # a bad price file or --max-cost: one line, before anything runs
            load_prices()
            if max_cost is not None:
                Budget(max_cost)
        except (InputError, ConfigError) as e:
            fail(str(e))
        with ledger_scope(max_cost=max_cost) as ledger, heartbeat(label, status=ledger.progress_line):
            # a command's own --allow-unparseable / --refresh (a run's options object sets them in the runner)
            ledger.accept_unusable = bool(allow_unparseable_extra or kwargs.get("allow_unparseable"))
            ledger.refresh = bool(kwargs.get("refresh"))
            note = " (a submitted batch keeps running at the provider: the same command collects it)" if batch else ""
            with user_errors(note):  # outermost: EndpointError is a ConfigError, handled first below
                try:
                    result = _call(fn, args, kwargs, batch)
                except BudgetExceeded as e:
                    _stopped_by_budget(e, ledger, json_out)
                except EndpointError as e:
                    if not e.midrun:
                        fail(str(e))
                    for d in ledger.run_dirs:
                        if d.is_dir():
                            mark_complete(d, ledger)
                    typer.echo(f"error: {e}; finished items are saved: run the same command again to resume", err=True)
                    raise typer.Exit(EXIT_INCOMPLETE) from None
            complete = finish(result if summary else None, ledger, json_out=json_out)
        if not complete and not allow_failures:
            raise typer.Exit(EXIT_INCOMPLETE)
        return None

    sig = inspect.signature(fn, eval_str=True)
    kw = inspect.Parameter.KEYWORD_ONLY
    extra = [inspect.Parameter("allow_failures", kw, default=False, annotation=AllowFailuresOpt)]
    if summary:
        extra.insert(0, inspect.Parameter("json_out", kw, default=False, annotation=JsonOpt))
    if batch:
        extra.append(inspect.Parameter("batch", kw, default=False, annotation=BatchOpt))
    if budget:
        extra.append(inspect.Parameter("max_cost", kw, default=None, annotation=MaxCostOpt))
    if "allow_unparseable" not in sig.parameters and "options" not in sig.parameters:
        extra.append(inspect.Parameter("allow_unparseable_extra", kw, default=False, annotation=AllowUnparseableOpt))
    wrapper.__signature__ = sig.replace(parameters=[*sig.parameters.values(), *extra])  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]
