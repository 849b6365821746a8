"""``noveval export RUN... -o FILE.csv|.parquet|.jsonl``: per-item results and scores as tables."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from pydantic import BaseModel

from noveval.cli.common import cli_errors
from noveval.cli.options import option_info
from noveval.options import option


class ExportOptions(BaseModel):
    """``noveval export``."""

    runs: list[Path] = option(..., argument=True, help="Run folders (or folders that contain them).")
    out: Path = option(..., "--out", "-o", help="FILE.csv | FILE.parquet | FILE.jsonl; the scores go to "
                                                "FILE.scores.<same suffix>, the yardsticks and the papers' rows to "
                                                "FILE.references.<same suffix>.")


@cli_errors
def export(
    runs: Annotated[list[Path], option_info(ExportOptions, "runs")],
    out: Annotated[Path, option_info(ExportOptions, "out")],
) -> None:
    """Write one row per item (run, system, model, item id, every per-item metric), a scores table and a references table."""
    from noveval.export import export_runs

    items, scores, n_items, n_scores, refs, n_refs = export_runs(list(runs), out)
    typer.echo(f"items:  {n_items} rows -> {items}")
    typer.echo(f"scores: {n_scores} rows -> {scores}")
    typer.echo(f"references: {n_refs} rows (yardsticks and the papers' rows) -> {refs}")
