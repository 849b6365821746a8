"""CLI for the axiomatic benchmark (``noveval axioms ...``, ``noveval run/score axioms``).

Heavy imports happen inside the commands (``noveval novelty score`` is :mod:`noveval.cli.novelty`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from noveval.cli.common import cli_errors
from noveval.cli.options import DataDirOpt, EmbedderOpt, OutOpt, SeedOpt
from noveval.cli.outcome import run_command

app = typer.Typer(help="Axiomatic benchmark of novelty metrics (Liu & Zhai 2026).", no_args_is_help=True)

MetricsOpt = Annotated[list[str] | None, typer.Option(
    "--metric", help="Metric (repeatable): Yin, RND, SemNovel, FastTextLOF. Default: all four.")]


def _data_dir(data_dir: Path | None) -> Path:
    import os

    if data_dir is not None:
        return data_dir
    env = os.environ.get("NOVEVAL_DATA_DIR")
    return Path(env) if env else Path("../shared/data")


@run_command
def run(
    out: OutOpt,
    model: Annotated[str, typer.Option("--model", "-m", help="Chat model for the Ax2 paraphrases ('none' skips Ax2).")] = "local",
    embedder: EmbedderOpt = "local",
    metric: MetricsOpt = None,
    data_dir: DataDirOpt = None,
    corpus: Annotated[Path | None, typer.Option("--corpus", help="Corpus JSONL(.gz) (default: <data-dir>/corpus/papers.jsonl.gz).")] = None,
    fulltext: Annotated[Path | None, typer.Option("--fulltext", help="Full texts with reference lists (default: <data-dir>/fulltext/neurips-2025-fulltext.jsonl.gz).")] = None,
    tasks: Annotated[list[str] | None, typer.Option("--task", help="Restrict to these default task names (repeatable).")] = None,
    sample: Annotated[bool, typer.Option("--sample", help="Use the shipped synthetic sample corpus and its tasks.")] = False,
    n_focal: Annotated[int, typer.Option("--focal", min=1, help="Focal papers per task (paper: 100).")] = 100,
    ax2_limit: Annotated[int | None, typer.Option("--ax2-limit", min=1, help="Paraphrase only the first N focal papers per task.")] = None,
    semnovel_mode: Annotated[str, typer.Option("--semnovel", help="exact (refit t-SNE per variant) or approx (openTSNE transform into per-pool maps).")] = "exact",
    fasttext_mode: Annotated[str, typer.Option("--fasttext", help="exact (retrain per pool content) or approx (reuse base-pool models).")] = "exact",
    ax3_position: Annotated[str, typer.Option("--ax3-position", help="append (paper) or prepend Ax3 fragments to the neighbour abstract (short-context embedders truncate appended text).")] = "append",
    jobs: Annotated[int, typer.Option("--jobs", min=1, help="Processes for t-SNE / fastText.")] = 2,
    seed: SeedOpt = 0,
    seeds: Annotated[int, typer.Option("--seeds", min=1, help="SemNovel t-SNE seeds (seed, seed+1, ...); pass rates are "
                                       "reported as mean ± SD over them.")] = 3,
    semnovel_metric: Annotated[str, typer.Option("--semnovel-metric", help="t-SNE input metric: cosine (reference "
                                                 "SemNovel code) or euclidean.")] = "cosine",
    fasttext_variant: Annotated[str, typer.Option("--fasttext-variant", help="reference (Jeon et al.'s code) or "
                                                  "normalized (noveval before issue 14).")] = "reference",
    rnd_p: Annotated[int | None, typer.Option("--rnd-p", min=1, help="RND neighbours P (Wang et al. 2025: 100; "
                                              "--sample: 20).")] = None,
    rnd_q: Annotated[int | None, typer.Option("--rnd-q", min=1, help="RND density neighbours Q (Wang et al. 2025: 50; "
                                              "--sample: 5).")] = None,
    ax56_rule: Annotated[str, typer.Option("--ax56-rule", help="Ax5/6 applicability: ours (>= 20 references, >= 5 of "
                                           "them in the pool) or paper (>= 20 references, any found).")] = "ours",
) -> Path:
    """Run the axiomatic benchmark: pass rates per metric x axiom x task (Table 2), heatmap."""
    from noveval.benchmarks.axioms.contract import AxiomsOptions, build_config
    from noveval.benchmarks.axioms.pools import AX56_RULES, sample_paths
    from noveval.benchmarks.axioms.run import run_benchmark
    from noveval.errors import InputError
    from noveval.novelty.fasttext_lof import VARIANTS
    from noveval.novelty.semnovel import TSNE_METRICS

    for name, val, allowed in (("--semnovel", semnovel_mode, ("exact", "approx")),
                               ("--fasttext", fasttext_mode, ("exact", "approx")),
                               ("--ax3-position", ax3_position, ("append", "prepend")),
                               ("--semnovel-metric", semnovel_metric, TSNE_METRICS),
                               ("--fasttext-variant", fasttext_variant, tuple(VARIANTS)),
                               ("--ax56-rule", ax56_rule, tuple(AX56_RULES))):
        if val not in allowed:
            raise InputError(None, None, name, f"must be {' or '.join(allowed)}, got {val!r}")
    if sample:
        c, f = sample_paths()
    else:
        d = _data_dir(data_dir)
        c = corpus or d / "corpus" / "papers.jsonl.gz"
        f = fulltext or d / "fulltext" / "neurips-2025-fulltext.jsonl.gz"
        if not Path(c).exists():
            raise InputError(str(c), None, None, "corpus not found (use --data-dir, --corpus or --sample)")
    opts = AxiomsOptions.model_validate(dict(
        tasks=tasks, metrics=metric, embedder=embedder, n_focal=n_focal, ax2_limit=ax2_limit,
        semnovel_mode=semnovel_mode, fasttext_mode=fasttext_mode, fasttext_variant=fasttext_variant,
        semnovel_metric=semnovel_metric, seeds=seeds, ax3_position=ax3_position, ax56_rule=ax56_rule,
        rnd_p=rnd_p, rnd_q=rnd_q, jobs=jobs, seed=seed))
    cfg = build_config(c, f, opts, paraphrase_model=None if model == "none" else model, sample=sample)
    res = run_benchmark(cfg, out)
    typer.echo((Path(out) / "table.md").read_text())
    typer.echo(f"timings (s): {res['extra']['timings_s']}")
    return Path(out)


@run_command
def score(
    run_dir: Annotated[Path, typer.Argument(help="A finished or partial axioms run directory.")],
) -> Path:
    """Recompute the pass-rate table, scores.json and heatmap of a run from its per_item.jsonl (no model calls)."""
    from noveval.benchmarks.axioms.contract import score as score_run
    from noveval.benchmarks.axioms.run import format_table

    res = score_run(run_dir)
    typer.echo(format_table(res["extra"]["table"], list(res["metrics"])))
    return run_dir


app.command("run")(run)
app.command("score")(score)


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
    from noveval.io import read_jsonl, write_json

    rows = read_jsonl(run_dir / "per_item.jsonl")
    metrics = _metrics(metric) if metric else json.loads((run_dir / "config.json").read_text())["config"]["metrics"]
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
    from noveval.benchmarks.axioms.run import format_table
    from noveval.io import write_json

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


def _metrics(names: list[str]) -> list[str]:
    from noveval.benchmarks.axioms.contract import metric_names

    return metric_names(names)


def demo(out_dir: Path, model: str = "local", embedder: str = "local", real: bool = False,
         data_dir: Path | None = None) -> list[Path]:
    """Tiny configuration: the shipped sample (or 1 real task, 10 focal papers with ``real``)."""
    from noveval.benchmarks.axioms.combine import combine
    from noveval.benchmarks.axioms.contract import AxiomsOptions, build_config
    from noveval.benchmarks.axioms.pools import DEFAULT_TASKS, sample_paths
    from noveval.benchmarks.axioms.run import run_benchmark
    from noveval.io import read_jsonl, write_json

    out = Path(out_dir) / "axioms"
    tiny = {"embedder": embedder, "semnovel_mode": "approx", "fasttext_mode": "approx"}
    if real:
        d = _data_dir(data_dir)
        opts = AxiomsOptions.model_validate({**tiny, "tasks": [DEFAULT_TASKS[3].name], "n_focal": 10,
                                             "ax2_limit": 3, "metrics": ["Yin", "RND"]})
        cfg = build_config(d / "corpus" / "papers.jsonl.gz", d / "fulltext" / "neurips-2025-fulltext.jsonl.gz",
                           opts, paraphrase_model=model)
    else:
        c, f = sample_paths()
        opts = AxiomsOptions.model_validate({**tiny, "n_focal": 6, "ax2_limit": 2})
        cfg = build_config(c, f, opts, paraphrase_model=model, sample=True)
    run_benchmark(cfg, out, progress=False)
    rows = read_jsonl(out / "per_item.jsonl")
    write_json(out / "combine.json", combine(rows, cfg.metrics))
    return [out]
