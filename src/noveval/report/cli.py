"""``noveval report RUN_DIR... -o report.html`` (mounted by :func:`register`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from pydantic import BaseModel

from noveval.cli.common import cli_errors
from noveval.cli.options import option_info
from noveval.errors import InputError
from noveval.options import option
from noveval.report import write_report


class ReportOptions(BaseModel):
    """``noveval report``."""

    run_dirs: list[Path] = option(..., argument=True,
                                  help="Run directories (or folders holding them, searched 3 levels deep).")
    out: Path = option(Path("report.html"), "--out", "-o", help="HTML file to write.")


@cli_errors
def report(
    run_dirs: Annotated[list[Path], option_info(ReportOptions, "run_dirs")],
    out: Annotated[Path, option_info(ReportOptions, "out")] = Path("report.html"),
) -> None:
    """Write one self-contained HTML report (tables, figures, drill-down) of run directories."""
    from noveval.report.load import find_runs

    for p in run_dirs:
        if not p.exists():
            raise InputError(p, None, None, "no such run directory")
        if not p.is_dir():
            raise InputError(p, None, None, "is a file; give run folders (or folders that hold them)")
    if out.is_dir():
        raise InputError(out, None, "--out", "is a folder, expected an HTML file name (e.g. report.html)")
    if not find_runs(run_dirs):
        raise InputError(run_dirs[0], None, None, "no run directories (config.json / scores.json / per_item.jsonl) found")
    path = write_report(run_dirs, out)
    typer.echo(f"report: {path.resolve()}")


def register(app: typer.Typer) -> None:
    """Add the ``report`` command to the root CLI."""
    app.command("report")(report)
