"""CLI of the axiomatic benchmark beyond the generated ``noveval run axioms`` / ``score axioms``.

``noveval axioms run`` and ``noveval axioms score`` are the same generated commands
(:func:`noveval.cli.generate.make_run_command` of the declaration); ``combine``, ``table``
and ``compare`` work on run folders. Heavy imports happen inside the commands
(``noveval novelty score`` is :mod:`noveval.cli.novelty`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from noveval.benchmarks.axioms import BENCHMARK
from noveval.benchmarks.axioms.options import AxiomsOptions
from noveval.cli.common import cli_errors
from noveval.cli.generate import flag_errors, make_run_command, make_score_command

app = typer.Typer(help="Axiomatic benchmark of novelty metrics (Liu & Zhai 2026).", no_args_is_help=True)

MetricsOpt = Annotated[list[str] | None, typer.Option(
    "--metric", help="Metric (repeatable): Yin, RND, SemNovel, FastTextLOF. Default: all four.")]
_FLAGS = {"metric": "--metric"}
"""Library fields these commands fill from flags of other names (errors name the flag)."""

app.command("run")(make_run_command(BENCHMARK))
app.command("score")(make_score_command(BENCHMARK))


@app.command("combine")
@cli_errors
def combine_cmd(
    run_dir: Annotated[Path, typer.Argument(help="An axioms run directory.")],
    step: Annotated[float, typer.Option("--step", min=0.01, max=0.5, help="Simplex grid step (paper: 0.05).")] = 0.05,
    metric: MetricsOpt = None,
) -> None:
    """Weighted metric combination (Section 6.2): global and per-axiom weights, LODO CV,
    leave-one-metric-out ablation, Pearson table -> combine.json."""
    import json

    from noveval.benchmarks.axioms.combine import combine
    from noveval.benchmarks.axioms.contract import metric_names
    from noveval.io import read_jsonl, write_json

    rows = read_jsonl(run_dir / "per_item.jsonl")
    with flag_errors(AxiomsOptions, _FLAGS):
        metrics = metric_names(metric) if metric else json.loads((run_dir / "config.json").read_text())["config"]["metrics"]
    res = combine(rows, metrics, step=step)
    write_json(run_dir / "combine.json", res)
    typer.echo(format_combine(res))


@app.command("table")
@cli_errors
def table_cmd(
    runs: Annotated[list[Path], typer.Argument(help="Axioms run folders of one benchmark (e.g. the tasks split "
                                                    "over folders run side by side).")],
    metric: MetricsOpt = None,
    json_out: Annotated[Path | None, typer.Option("--json", help="Also write the table (and which run gave "
                                                                 "which tasks) to this JSON file.")] = None,
) -> None:
    """Table 2 over the focal papers of several runs (pass rates per field and overall; mean ± SD over seeds)."""
    from noveval.benchmarks.axioms.contract import combined_table
    from noveval.benchmarks.axioms.runner import format_table
    from noveval.io import write_json

    with flag_errors(AxiomsOptions, _FLAGS):
        res = combined_table(runs, metrics=metric)
    for r in res["runs"]:
        typer.echo(f"{r['path']}: {r['items']} focal papers ({', '.join(r['tasks']) or 'none'})")
    typer.echo(format_table(res["table"], res["metrics"]))
    if json_out is not None:
        write_json(json_out, res)
        typer.echo(f"table: {json_out}", err=True)


@app.command("compare")
@cli_errors
def compare_cmd(
    run_a: Annotated[Path, typer.Argument(help="An axioms run directory.")],
    run_b: Annotated[Path, typer.Argument(help="Another run of the same focal papers (e.g. --semnovel approx, "
                                                  "another embedder).")],
) -> None:
    """How often two runs reach the same pass/fail decision, per metric and axiom."""
    from noveval.benchmarks.axioms.axioms import AXIOMS, compare_runs
    from noveval.errors import InputError
    from noveval.io import read_jsonl

    res = compare_runs(read_jsonl(run_a / "per_item.jsonl"), read_jsonl(run_b / "per_item.jsonl"))
    if not res:
        raise InputError(str(run_b / "per_item.jsonl"), None, "id", f"no focal paper or metric in common with {run_a}")
    for m, agr in res.items():
        frac, n = agr["all"]
        cells = " ".join(f"{ax}={_pct0(agr[ax][0])}" for ax in AXIOMS)
        typer.echo(f"{m}: {_p(None if frac is None else 100 * frac)} of {n} checks agree; {cells}")


def format_combine(res: dict) -> str:
    """Short text summary of :func:`combine.combine` results."""
    lines = [f"global LODO test avg: {_p(res['global']['test_avg'])}"]
    for f in res["global"]["folds"]:
        lines.append(f"  held out {f['held_out']}: weights {f['weights']} test {_p(f['test_avg'])}")
    lines.append(f"per-axiom LODO test avg: {_p(res['per_axiom']['test_avg'])}")
    for f in res["per_axiom"]["folds"]:
        if f.get("untrained"):
            lines.append(f"  held out {f['held_out']}: {', '.join(f['untrained'])} never apply in training "
                         "(global weights used)")
    lines.append("ablation (dropped -> test avg): " + ", ".join(
        f"{k}: {_p(v['test_avg'])}" for k, v in res["ablation"].items()))
    return "\n".join(lines)


def _pct0(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.0f}"


def _p(x: float | None) -> str:
    return "–" if x is None else f"{x:.1f}%"
