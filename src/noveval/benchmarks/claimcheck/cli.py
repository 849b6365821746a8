"""CLI of CLAIMCHECK: ``noveval run claimcheck``, ``noveval score claimcheck`` and
``noveval claimcheck agreement|wle-export|wle-import``. Thin shell over the library;
nothing heavy is imported at module level."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, cast

import typer

from noveval.cli import options as opt  # the shared option definitions (one CLI vocabulary)
from noveval.cli.common import cli_errors
from noveval.cli.outcome import run_command

app = typer.Typer(help="CLAIMCHECK utilities: annotator agreement, WLE human judging.",
                  no_args_is_help=True)

TASK_HELP = "extract | wi | ca | wl | cv | wle"


@run_command
def run(
    task: Annotated[str, typer.Option("--task", help=TASK_HELP)],
    out: opt.OutOpt,
    model: opt.ModelOpt = "local",
    judge: opt.JudgeOpt = None,
    annotations: Annotated[Path | None, typer.Option(
        "--annotations", "-a", help="Annotation file (gold or converted WI output).")] = None,
    papers: Annotated[Path | None, typer.Option(
        "--papers", help="Papers file (id, title, abstract, fulltext, reviews) instead of shared data.")] = None,
    data_dir: opt.DataDirOpt = None,
    paper_id: Annotated[list[str] | None, typer.Option("--paper-id", help="Only this paper (repeatable).")] = None,
    limit: Annotated[int | None, typer.Option("--limit", "-n", min=1, help="At most N papers.")] = None,
    limit_items: Annotated[int | None, typer.Option("--limit-items", help="At most N task items.")] = None,
    max_chunks: Annotated[int | None, typer.Option("--max-chunks", help="extract: chunks per paper.")] = None,
    chunk_chars: Annotated[int, typer.Option("--chunk-chars", help="extract: chunk size.")] = 3000,
    context_chars: Annotated[int, typer.Option(
        "--context-chars", help="Paper characters per prompt (0 = whole paper).")] = 6000,
    max_tokens: Annotated[int, typer.Option("--max-tokens")] = 512,
    temperature: Annotated[float | None, typer.Option(
        "--temperature", help="Default: 0.9 for ca, 0.3 otherwise (Appendix C.1).")] = None,
    seed: opt.SeedOpt = 0,
    protocol: Annotated[str, typer.Option(
        "--protocol", help="noveval (default) | paper: WL on weaknesses with targets, one WLE call that "
        "labels and rewrites, cited related works (needs --corpus), seeds 0/42/2025 averaged. "
        "See docs/fidelity.md.")] = "noveval",
    seeds: Annotated[list[int] | None, typer.Option(
        "--seeds", help="Sampling seeds, repeatable; scores average them (default: --seed; "
        "0, 42, 2025 under --protocol paper).")] = None,
    corpus: Annotated[Path | None, typer.Option(
        "--corpus", help="Corpus (id, title, abstract; e.g. corpus/papers.jsonl.gz) to match the "
        "paper's references against: ca/wl/cv/wle then see the related works a weakness or claim cites.")] = None,
    concurrency: opt.ConcurrencyOpt = None,
    timeout: opt.TimeoutOpt = 120.0,
    no_cache: opt.NoCacheOpt = False,
    refresh: opt.RefreshOpt = False,
    overwrite: opt.OverwriteOpt = False,
    samples: Annotated[int, typer.Option(
        "--samples", min=1, help="wl: label each weakness N times (seeds seed..seed+N-1, temperature > 0) and take "
        "each label by plurality vote; records self-consistency.")] = 1,
) -> Path:
    """Run one CLAIMCHECK task (resumable) into OUT."""
    from noveval.benchmarks.claimcheck._common import PROTOCOLS, TaskOptions
    from noveval.benchmarks.claimcheck.generate import TASKS, run_task
    from noveval.errors import InputError

    if task not in TASKS:
        raise InputError(None, None, "--task", f"unknown task {task!r}; choose {TASK_HELP}")
    if protocol not in PROTOCOLS:
        raise InputError(None, None, "--protocol", f"unknown protocol {protocol!r}; choose {' or '.join(PROTOCOLS)}")
    options = TaskOptions(temperature=temperature, seed=seed, max_tokens=max_tokens,
                          context_chars=context_chars, chunk_chars=chunk_chars, max_chunks=max_chunks,
                          protocol=protocol, samples=samples)
    path = run_task(cast(Any, task), out=out, model=model, judge=judge, data_dir=data_dir, papers_file=papers,
                    annotations=annotations, paper_ids=paper_id or None, limit=limit,
                    limit_items=limit_items, options=options, cache=None if no_cache else "default",
                    refresh=refresh, concurrency=concurrency, timeout_s=timeout,
                    overwrite=overwrite, seeds=seeds or None, corpus=corpus)
    return Path(path)


@run_command
def score(
    run_dir: Annotated[Path, typer.Argument(help="Run directory (or folder with predictions.jsonl).")],
    annotations: Annotated[Path | None, typer.Option("--annotations", "-a", help="Gold annotation file.")] = None,
    papers: Annotated[Path | None, typer.Option("--papers", help="Papers file.")] = None,
    data_dir: Annotated[Path | None, typer.Option("--data-dir")] = None,
    judgments: Annotated[Path | None, typer.Option(
        "--judgments", help="Judgments to use instead of the run's (e.g. human WLE choices).")] = None,
    task: Annotated[str | None, typer.Option("--task", help="Task, when there is no config.json.")] = None,
    no_bertscore: Annotated[bool, typer.Option("--no-bertscore")] = False,
) -> Path:
    """Score a CLAIMCHECK run: writes per_item.jsonl and scores.json."""
    from noveval.benchmarks.claimcheck.score import score_run
    from noveval.errors import InputError

    if not run_dir.exists():
        raise InputError(run_dir, None, None, "no such run folder")
    if not run_dir.is_dir():
        raise InputError(run_dir, None, None, "is a file, expected a run folder")
    score_run(run_dir, annotations=annotations, papers_file=papers, data_dir=data_dir,
              judgments=judgments, task=task, bertscore=not no_bertscore)
    return run_dir


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


def demo(out_dir: Path, model: str = "local", embedder: str = "local", real: bool = False,
         data_dir: Path | None = None) -> list[Path]:
    """Run every task tiny on the shipped sample (or, with ``real``, one shared paper).

    Returns:
        The run directories, each scored.
    """
    from noveval.benchmarks.claimcheck._common import TaskOptions
    from noveval.benchmarks.claimcheck.data import sample_dir
    from noveval.benchmarks.claimcheck.generate import TASKS, run_task
    from noveval.benchmarks.claimcheck.score import score_run

    sample = sample_dir()
    options = TaskOptions(max_tokens=160, chunk_chars=1500, max_chunks=1, context_chars=1500)
    runs = []
    for task in TASKS:
        kwargs: dict[str, Any] = {"papers_file": sample / "papers.json"}
        if real and data_dir is not None and task in ("extract", "wi"):
            kwargs = {"data_dir": data_dir, "limit": 1}
        ann = None if task == "extract" or (real and task == "wi") else sample / "annotations.jsonl"
        path = run_task(cast(Any, task), out=Path(out_dir) / f"claimcheck-{task}", model=model, annotations=ann,
                        options=options, limit_items=2, **kwargs)
        if task != "extract" and ann is None:
            runs.append(path)
            continue
        score_run(path, bertscore=embedder == "local")
        runs.append(path)
    return runs
