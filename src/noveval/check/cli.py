"""``noveval check INPUT --corpus CORPUS``: mounted by :func:`noveval.cli.main._mount_extras`.

The command's options are the fields of :class:`~noveval.check.run.CheckRunOptions` (every run
option too) and it runs :func:`~noveval.check.run.run_check` through the runner."""

from __future__ import annotations

from pathlib import Path

import typer

from noveval.benchmarks._runner import run_task
from noveval.check.run import CheckRunOptions, run_check
from noveval.cli.common import cli_errors
from noveval.cli.generate import options_command, run_in_cli
from noveval.io import read_json
from noveval.options import ModelOption, narrow, option

__all__ = ["CheckCommand", "register", "check"]


class CheckCommand(CheckRunOptions, ModelOption):
    """``noveval check``: the check's options, the judging model and the output folder."""

    out: Path = option(Path("noveval-check"), "--out", "-o", help="Folder for check.md, check.html, check.json.")


@cli_errors
@options_command(CheckCommand)
def check(o: CheckCommand) -> None:
    """A grounded novelty opinion on your idea or paper against a corpus of prior work."""
    opts = narrow(o, CheckRunOptions)
    model = "none" if o.no_judge else o.model  # --no-judge: no model to check or call
    run_in_cli("check", opts, lambda: run_task("check", run_check, model, o.out, opts), summary=False)
    typer.echo(read_json(o.out / "check.json")["verdict"]["summary"])
    for kind, name in (("json", "check.json"), ("markdown", "check.md"), ("html", "check.html")):
        typer.echo(f"{kind}: {o.out / name}")


def register(app: typer.Typer) -> None:
    """Add ``check`` to the top-level ``noveval`` app."""
    app.command("check", help="A grounded novelty opinion on your idea or paper against a corpus.")(check)
