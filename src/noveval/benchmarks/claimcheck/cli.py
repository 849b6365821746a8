"""CLI of CLAIMCHECK beyond the generated ``noveval run claimcheck``: ``noveval score claimcheck``
and ``noveval claimcheck agreement|wle-export|wle-import``. Thin shell over the library;
nothing heavy is imported at module level."""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

from noveval.benchmarks.claimcheck import BENCHMARK
from noveval.benchmarks.claimcheck.options import (
    AgreementCommand,
    WleExportCommand,
    WleImportCommand,
)
from noveval.cli.common import cli_errors, user_errors
from noveval.cli.generate import RunFolderOption, field_option, make_score_command, options_command
from noveval.errors import InputError
from noveval.io import read_json, read_jsonl, write_json, write_jsonl

app = typer.Typer(help="CLAIMCHECK utilities: annotator agreement, WLE human judging.",
                  no_args_is_help=True)


def _score_command() -> Callable[..., None]:
    """``noveval score claimcheck RUN``: the generated score command (options from
    :class:`~noveval.benchmarks.claimcheck.options.ClaimcheckScoreOptions`), which also
    takes a folder holding only a ``predictions.jsonl`` made elsewhere (with ``--task``)
    and says when the folder is missing."""
    generated = make_score_command(BENCHMARK)

    def score(**kwargs: Any) -> None:
        run_dir: Path | None = kwargs["run_dir"]
        with user_errors():
            if run_dir is not None and not run_dir.exists():
                raise InputError(run_dir, None, None, "no such run folder")
            if run_dir is not None and not run_dir.is_dir():
                raise InputError(run_dir, None, None, "is a file, expected a run folder")
        generated(**kwargs)

    sig = inspect.signature(generated)
    run_dir = field_option(RunFolderOption, "run_dir", help="Run directory (or folder with predictions.jsonl).")
    params = [p.replace(annotation=run_dir) if p.name == "run_dir" else p for p in sig.parameters.values()]
    score.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    score.__wrapped__ = generated  # type: ignore[attr-defined]  # its errors are handled there
    score.__doc__ = "Score a CLAIMCHECK run: writes per_item.jsonl and scores.json."
    return score


score = _score_command()


@app.command("agreement")
@cli_errors
@options_command(AgreementCommand)
def agreement(o: AgreementCommand) -> None:
    """Inter-annotator agreement: WI span F1, CA target F1, WL alpha (§3.4, §4.1)."""
    from noveval.benchmarks.claimcheck.agreement import agreement_report
    from noveval.benchmarks.claimcheck.data import load_annotations, load_papers_file

    paper_map = load_papers_file(o.papers) if o.papers else None
    records = [r for f in o.files for r in load_annotations(f, data_dir=o.data_dir, papers=paper_map)]
    model_records = load_annotations(o.model_file, data_dir=o.data_dir, papers=paper_map) if o.model_file else None
    report = agreement_report(records, model_records=model_records)
    if o.out:
        write_json(o.out, report)
    typer.echo(json.dumps(report, indent=1))


@app.command("wle-export")
@cli_errors
@options_command(WleExportCommand)
def wle_export(o: WleExportCommand) -> None:
    """Export blinded (A, B) weakness pairs as CSV (+ a private .key.csv)."""
    from noveval.benchmarks.claimcheck.wle import export_pairs_csv

    seed = int(((read_json(o.run_dir / "config.json").get("options")) or {}).get("seed", 0))
    csv_path, key = export_pairs_csv(read_jsonl(o.run_dir / "predictions.jsonl"), o.out, seed=seed)
    typer.echo(f"{csv_path}\n{key} (keep this from the judges)")


@app.command("wle-import")
@cli_errors
@options_command(WleImportCommand)
def wle_import(o: WleImportCommand) -> None:
    """Import human A/B/tie choices as WLE judgments (score with --judgments)."""
    from noveval.benchmarks.claimcheck.wle import import_human_choices

    rows = import_human_choices(o.csv_path, o.key)
    write_jsonl(o.out, rows)
    typer.echo(f"{len(rows)} choices -> {o.out}")

