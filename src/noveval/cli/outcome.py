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
  with ``--json``;
- if any call failed for good (after retries), the exit code is 3 — ``--allow-failures``
  makes it 0; the run is marked incomplete either way. An endpoint that stops answering
  mid-run stops the run (finished items are saved; exit 3, whatever the flag).

Exit codes: 0 complete, 2 bad input or an endpoint that cannot work, 3 incomplete
(model calls failed), 130 interrupted.
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from noveval.cli.common import fail, path_error
from noveval.errors import ConfigError, InputError

F = TypeVar("F", bound=Callable[..., Any])

EXIT_INCOMPLETE = 3

JsonOpt = Annotated[bool, typer.Option("--json", help="Print scores.json instead of the summary table.")]
AllowFailuresOpt = Annotated[
    bool,
    typer.Option("--allow-failures", help="Exit 0 even when model calls failed (the run is still marked incomplete)."),
]

__all__ = ["run_command", "model_command", "finish", "EXIT_INCOMPLETE", "mark_complete"]


def mark_complete(run_dir: Path, ledger: Any) -> dict[str, Any]:
    """Write the ledger's outcome for ``run_dir`` into its scores.json (when there is one).

    Returns:
        The outcome (``complete``, ``requests``, ``failed``, ``failed_earlier``, ``first_error``).
    """
    from noveval.io import read_json, write_json

    out: dict[str, Any] = ledger.outcome(run_dir)
    f = Path(run_dir) / "scores.json"
    if f.is_file():
        scores = read_json(f)
        if isinstance(scores, dict):
            scores["complete"] = out["complete"]
            scores["calls"] = {k: v for k, v in out.items() if k != "complete"}
            write_json(f, scores)
    return out


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


def finish(result: Any, ledger: Any, *, json_out: bool = False) -> bool:
    """Mark completeness, print the summary (or JSON) of what a command returned.

    Args:
        result: A run folder, a list of them, a scores dict (nothing saved), or None.
        ledger: The command's :class:`~noveval.models.calls.CallLedger`.
        json_out: Print scores.json instead of the summary.

    Returns:
        True when every model call of the command was answered (the run is complete).
    """
    from noveval.cli.summary import format_calls, format_summary

    paths: list[Path] = []
    if isinstance(result, (str, Path)):
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
    docs: list[tuple[dict[str, Any], Path | None]] = [(_scores_of(d), d) for d in dirs]
    if isinstance(result, dict):
        o = ledger.outcome(None)
        result = {**result, "complete": o["complete"], "calls": {k: v for k, v in o.items() if k != "complete"}}
        complete = complete and o["complete"]
        docs.append((result, None))
    if not docs:
        totals = ledger.totals()
        if totals["failed"]:
            complete = False
            typer.echo(format_calls({**totals, "failed_earlier": 0}), err=True)
        return complete
    for scores, d in docs:
        if "calls" not in scores and d is not None and d in outcomes:  # no scores.json: show the outcome anyway
            scores = {**scores, "complete": outcomes[d]["complete"],
                      "calls": {k: v for k, v in outcomes[d].items() if k != "complete"}}
        if json_out:
            typer.echo(json.dumps(scores, indent=2, ensure_ascii=False))
            if scores.get("complete") is False:
                typer.echo(format_calls(scores.get("calls")), err=True)
        else:
            typer.echo(format_summary(scores, d))
    return complete


def run_command(fn: F) -> F:
    """Decorate ``run``/``score`` commands (adds ``--json`` and ``--allow-failures``).

    The command returns its run folder (or a list of them, or a scores dict when nothing
    was saved); see the module docstring for what happens then.
    """
    return _wrap(fn, summary=True)


def model_command(fn: F) -> F:
    """Decorate other commands that call models (adds ``--allow-failures``).

    Same endpoint checks, accounting and exit codes as :func:`run_command`; the command
    prints its own output and returns None (or a run folder to mark complete/incomplete).
    """
    return _wrap(fn, summary=False)


def _wrap(fn: F, *, summary: bool) -> F:
    from noveval.models.calls import EndpointError, ledger_scope
    from noveval.progress import heartbeat

    parts = fn.__module__.split(".")
    label = f"{parts[2] if len(parts) > 3 and parts[1] == 'benchmarks' else parts[-2]} {fn.__name__}"

    @functools.wraps(fn)
    def wrapper(*args: Any, json_out: bool = False, allow_failures: bool = False, **kwargs: Any) -> Any:
        with ledger_scope() as ledger, heartbeat(label, status=ledger.progress_line):
            try:
                result = fn(*args, **kwargs)
            except EndpointError as e:
                if not e.midrun:
                    fail(str(e))
                for d in ledger.run_dirs:
                    if d.is_dir():
                        mark_complete(d, ledger)
                typer.echo(f"error: {e}; finished items are saved: run the same command again to resume", err=True)
                raise typer.Exit(EXIT_INCOMPLETE) from None
            except (InputError, ConfigError) as e:
                fail(str(e))
            except OSError as e:
                if e.filename is None:
                    raise
                fail(path_error(e))
            except KeyboardInterrupt:
                typer.echo("interrupted: finished items are saved; run the same command again to resume", err=True)
                raise typer.Exit(130) from None
            complete = finish(result if summary else None, ledger, json_out=json_out)
        if not complete and not allow_failures:
            raise typer.Exit(EXIT_INCOMPLETE)
        return None

    sig = inspect.signature(fn, eval_str=True)
    extra = [inspect.Parameter("allow_failures", inspect.Parameter.KEYWORD_ONLY, default=False, annotation=AllowFailuresOpt)]
    if summary:
        extra.insert(0, inspect.Parameter("json_out", inspect.Parameter.KEYWORD_ONLY, default=False, annotation=JsonOpt))
    wrapper.__signature__ = sig.replace(parameters=[*sig.parameters.values(), *extra])  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]
