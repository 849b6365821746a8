"""``noveval export RUN... -o FILE.csv|.parquet|.jsonl``: per-item results and scores as tables."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from noveval.cli.common import cli_errors


@cli_errors
def export(
    runs: Annotated[list[Path], typer.Argument(help="Run folders (or folders that contain them).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="FILE.csv | FILE.parquet | FILE.jsonl; the scores go to FILE.scores.<same suffix>.")],
) -> None:
    """Write one row per item (run, system, model, item id, every per-item metric) and a scores table."""
    from noveval.export import export_runs

    items, scores, n_items, n_scores = export_runs(list(runs), out)
    typer.echo(f"items:  {n_items} rows -> {items}")
    typer.echo(f"scores: {n_scores} rows -> {scores}")
