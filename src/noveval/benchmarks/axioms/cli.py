"""CLI of the axiomatic benchmark beyond the generated ``noveval run axioms`` / ``score axioms``.

``noveval axioms run`` and ``noveval axioms score`` are the same generated commands
(:func:`noveval.cli.generate.make_run_command` of the declaration); ``combine``, ``table``
and ``compare`` work on run folders. Heavy imports happen inside the commands
(``noveval novelty score`` is :mod:`noveval.cli.novelty`).
"""

from __future__ import annotations

import json

import typer

from noveval.benchmarks.axioms import BENCHMARK
from noveval.benchmarks.axioms.options import (
    CombineCommand,
    CompareCommand,
    TableCommand,
)
from noveval.cli.common import cli_errors
from noveval.cli.generate import make_run_command, make_score_command, options_command
from noveval.errors import InputError
from noveval.io import read_jsonl, write_json

app = typer.Typer(help="Axiomatic benchmark of novelty metrics (Liu & Zhai 2026).", no_args_is_help=True)

app.command("run")(make_run_command(BENCHMARK))
app.command("score")(make_score_command(BENCHMARK))


@app.command("combine")
@cli_errors
@options_command(CombineCommand)
def combine_cmd(o: CombineCommand) -> None:
    """Weighted metric combination (Section 6.2): global and per-axiom weights, LODO CV,
    leave-one-metric-out ablation, Pearson table -> combine.json."""
    from noveval.benchmarks.axioms.combine import combine
    from noveval.benchmarks.axioms.contract import metric_names

    rows = read_jsonl(o.run_dir / "per_item.jsonl")
    metrics = metric_names(o.metric) if o.metric else \
        json.loads((o.run_dir / "config.json").read_text())["config"]["metrics"]
    res = combine(rows, metrics, step=o.step)
    write_json(o.run_dir / "combine.json", res)
    typer.echo(format_combine(res))


@app.command("table")
@cli_errors
@options_command(TableCommand)
def table_cmd(o: TableCommand) -> None:
    """Table 2 over the focal papers of several runs (pass rates per field and overall; mean ± SD over seeds)."""
    from noveval.benchmarks.axioms.contract import combined_table
    from noveval.benchmarks.axioms.runner import format_table

    res = combined_table(o.runs, metrics=o.metric)
    for r in res["runs"]:
        typer.echo(f"{r['path']}: {r['items']} focal papers ({', '.join(r['tasks']) or 'none'})")
    typer.echo(format_table(res["table"], res["metrics"]))
    if o.json_out is not None:
        write_json(o.json_out, res)
        typer.echo(f"table: {o.json_out}", err=True)


@app.command("compare")
@cli_errors
@options_command(CompareCommand)
def compare_cmd(o: CompareCommand) -> None:
    """How often two runs reach the same pass/fail decision, per metric and axiom."""
    from noveval.benchmarks.axioms.axioms import AXIOMS, compare_runs
    res = compare_runs(read_jsonl(o.run_a / "per_item.jsonl"), read_jsonl(o.run_b / "per_item.jsonl"))
    if not res:
        raise InputError(str(o.run_b / "per_item.jsonl"), None, "id",
                         f"no focal paper or metric in common with {o.run_a}")
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
