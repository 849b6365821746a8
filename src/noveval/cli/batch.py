"""``noveval batch status|cancel RUN``: the batches a ``--batch`` run submitted.

The ids live in the run folder's ``batches.json`` (:mod:`noveval.models.batch`).
``status`` asks the provider about every batch not yet downloaded; ``cancel`` asks it to
cancel them. Either way, the run's own command collects what there is: run it again
(with ``--batch``); requests a cancelled batch did not answer count as failed calls and
the next run submits them again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from pydantic import BaseModel

from noveval.cli.common import cli_errors
from noveval.cli.options import option_info
from noveval.options import option

app = typer.Typer(help="Batches submitted by --batch runs: status and cancel.", no_args_is_help=True)


class BatchRunOptions(BaseModel):
    """``noveval batch status|cancel RUN``."""

    run: Path = option(..., argument=True, help="Run folder of a --batch run (it holds batches.json).")


RunArg = Annotated[Path, option_info(BatchRunOptions, "run")]


def _entries(run: Path) -> list[dict]:
    from noveval.errors import InputError
    from noveval.models.batch import BATCH_FILE, BatchStore

    entries = BatchStore(run).entries()
    if not entries:
        raise InputError(run / BATCH_FILE, None, None, "no batches recorded here (was the run made with --batch?)")
    return entries


@app.command("status")
@cli_errors
def status(run: RunArg) -> None:
    """One line per batch: id, model, requests, status (asked of the provider when not finished)."""
    from noveval.models.batch import BatchAPI

    for e in _entries(run):
        line = f"{e['id']}  {e.get('model')}  {e.get('requests')} requests  "
        if e.get("done"):
            line += f"{e.get('status')}, results stored: {e.get('answered')} answered, {e.get('failed')} without an answer"
        else:
            from noveval.models.client import make_backend

            b = BatchAPI(make_backend(str(e["model"]))).retrieve(str(e["id"]))
            c = b.request_counts
            line += f"{b.status} at the provider ({c.completed if c else '?'} done, {c.failed if c else '?'} failed); " \
                    "run the same command again to collect it"
        typer.echo(line)


@app.command("cancel")
@cli_errors
def cancel(run: RunArg) -> None:
    """Ask the provider to cancel every batch of the run not yet downloaded."""
    from noveval.models.batch import BatchAPI
    from noveval.models.client import make_backend

    pending = [e for e in _entries(run) if not e.get("done")]
    if not pending:
        typer.echo("nothing to cancel: every batch of this run has finished and been collected")
        return
    for e in pending:
        b = BatchAPI(make_backend(str(e["model"]))).cancel(str(e["id"]))
        typer.echo(f"{e['id']}: {b.status}")
    typer.echo("run the same command again (with --batch) to collect what was answered; the rest is submitted again")
