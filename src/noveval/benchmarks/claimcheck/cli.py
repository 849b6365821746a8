"""CLI of CLAIMCHECK beyond the generated ``noveval run claimcheck``: ``noveval score claimcheck``
and ``noveval claimcheck agreement|wle-export|wle-import``. Thin shell over the library;
nothing heavy is imported at module level."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from noveval.cli.common import cli_errors, user_errors

app = typer.Typer(help="CLAIMCHECK utilities: annotator agreement, WLE human judging.",
                  no_args_is_help=True)


def _score_command() -> Callable[..., None]:
    """``noveval score claimcheck RUN``: the generated score command (options from
    :class:`~noveval.benchmarks.claimcheck.options.ClaimcheckScoreOptions`), which also
    takes a folder holding only a ``predictions.jsonl`` made elsewhere (with ``--task``)
    and says when the folder is missing."""
    from noveval.benchmarks.claimcheck import BENCHMARK
    from noveval.cli.generate import make_score_command

    generated = make_score_command(BENCHMARK)

    def score(**kwargs: Any) -> None:
        from noveval.errors import InputError

        run_dir: Path = kwargs["run_dir"]
        with user_errors():
            if not run_dir.exists():
                raise InputError(run_dir, None, None, "no such run folder")
            if not run_dir.is_dir():
                raise InputError(run_dir, None, None, "is a file, expected a run folder")
        generated(**kwargs)

    sig = inspect.signature(generated)
    params = [p.replace(annotation=Annotated[Path, typer.Argument(
        help="Run directory (or folder with predictions.jsonl).")]) if p.name == "run_dir" else p
        for p in sig.parameters.values()]
    score.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    score.__wrapped__ = generated  # type: ignore[attr-defined]  # its errors are handled there
    score.__doc__ = "Score a CLAIMCHECK run: writes per_item.jsonl and scores.json."
    return score


score = _score_command()


@app.command("agreement")
@cli_errors
def agreement(
    files: Annotated[list[Path], typer.Argument(help="Annotation files (any number of annotators).")],
    model: Annotated[Path | None, typer.Option(
        "--model-file", help="Annotation file of a model, added as one more annotator.")] = None,
    papers: Annotated[Path | None, typer.Option("--papers")] = None,
    data_dir: Annotated[Path | None, typer.Option("--data-dir")] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write the JSON here.")] = None,
) -> None:
    """Inter-annotator agreement: WI span F1, CA target F1, WL alpha (§3.4, §4.1)."""
    import json

    from noveval.benchmarks.claimcheck.agreement import agreement_report
    from noveval.benchmarks.claimcheck.data import load_annotations, load_papers_file
    from noveval.io import write_json

    paper_map = load_papers_file(papers) if papers else None
    records = [r for f in files for r in load_annotations(f, data_dir=data_dir, papers=paper_map)]
    model_records = load_annotations(model, data_dir=data_dir, papers=paper_map) if model else None
    report = agreement_report(records, model_records=model_records)
    if out:
        write_json(out, report)
    typer.echo(json.dumps(report, indent=1))


@app.command("wle-export")
@cli_errors
def wle_export(
    run_dir: Annotated[Path, typer.Argument(help="A WLE run directory.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="CSV for the human judges.")],
) -> None:
    """Export blinded (A, B) weakness pairs as CSV (+ a private .key.csv)."""
    from noveval.benchmarks.claimcheck.wle import export_pairs_csv
    from noveval.io import read_json, read_jsonl

    seed = int(((read_json(run_dir / "config.json").get("options")) or {}).get("seed", 0))
    csv_path, key = export_pairs_csv(read_jsonl(run_dir / "predictions.jsonl"), out, seed=seed)
    typer.echo(f"{csv_path}\n{key} (keep this from the judges)")


@app.command("wle-import")
@cli_errors
def wle_import(
    csv_path: Annotated[Path, typer.Argument(help="The CSV with the 'choice' column filled.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Judgments JSONL to write.")],
    key: Annotated[Path | None, typer.Option("--key", help="Key file (default <csv>.key.csv).")] = None,
) -> None:
    """Import human A/B/tie choices as WLE judgments (score with --judgments)."""
    from noveval.benchmarks.claimcheck.wle import import_human_choices
    from noveval.io import write_jsonl

    rows = import_human_choices(csv_path, key)
    write_jsonl(out, rows)
    typer.echo(f"{len(rows)} choices -> {out}")
