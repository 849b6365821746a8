"""``noveval eval`` (every system, one model, one budget, one table) and ``noveval leaderboard`` (models side by side).

``eval -m a -m b`` runs one eval per model, each in ``--out/<model label>`` (one ``-m``: in
``--out`` itself), then writes and prints their leaderboard (``leaderboard.json``,
``leaderboard.csv`` in ``--out``); a model that fails (a dead endpoint) is reported and the
others still run. Its exit code is the highest of the models' (a failed model: 2).

Exit codes of ``eval``: 0 every run complete; 1 a system failed with an error (the others
are in the table); 2 bad input, or a model that fails its first check; 3 a run is
incomplete (model calls failed, or its answers were mostly unusable; ``--allow-failures``:
0); 4 stopped by ``--max-cost`` (the same command with a higher budget finishes it), or refused
up front by it (the plan's prompts alone cost more: nothing run or written); 130
interrupted (the same command resumes).

``eval --plan`` prints the work plan (:mod:`noveval.cli.plan`) and stops; every eval logs the
compact plan first.
"""

from __future__ import annotations

import json
import logging
import math
import os
from pathlib import Path
from typing import Annotated, Any

import typer

from noveval.cli.common import cli_errors
from noveval.cli.options import (
    ConcurrencyOpt,
    DataDirOpt,
    ExtraBodyOpt,
    LimitOpt,
    MaxTokensOpt,
    TemperatureOpt,
)
from noveval.options import EMBEDDER_HELP

__all__ = ["eval_command", "format_eval", "leaderboard"]

JudgeOpt = Annotated[
    str | None,
    typer.Option("--judge", "-j", help="Judge model spec for the systems with a judge role (RINoBench's justification "
                                       "metrics, the focus annotator); default: none (focus: the model annotates)."),
]
MaxCostOpt = Annotated[
    float | None,
    typer.Option("--max-cost", min=0.0, help="One budget in USD for every system's model calls together: stop cleanly "
                                             "(exit 4, resumable) when the rest cannot pay for one more request. "
                                             "Several models: one such budget per model."),
]
EmbedderOpt = Annotated[
    str | None,
    typer.Option("--embedder", "-e", help="For every system that embeds (default: each system's own: local:bf16@256 "
                                          "where its numbers sit beside a paper's, else local). " + EMBEDDER_HELP),
]


def _num(v: Any, signed: bool = False) -> str:
    if not isinstance(v, (int, float)) or (isinstance(v, float) and not math.isfinite(v)):
        return "–"
    return f"{v:+.3f}" if signed else f"{v:.3f}"


def _refs(result: Any, row: Any) -> tuple[str, str, str]:
    """Yardstick, comparable published and folded ("other data") text of one eval row.

    Published rows are shown only on the run's data file and protocol, each with its table and
    dataset (:func:`noveval.benchmarks._yardsticks.comparable`); a run on the samples has none.
    """
    from noveval.benchmarks._yardsticks import (
        other_data_text,
        published_label,
        run_data,
        split_comparable,
        with_declared_data,
    )
    from noveval.io import read_json

    ys = " · ".join(f"{y.get('name')} {_num(y.get('value'))}" for y in row.yardsticks)
    f = result.path / row.run / "config.json"
    config = read_json(f) if f.is_file() else {}
    data = run_data(config if isinstance(config, dict) else {}, protocol=result.settings.protocol,
                    sample=True if result.settings.data == "sample" else None)
    same, other = split_comparable(with_declared_data(row.system, row.published), data)
    better = row.greater_is_better is not False
    same.sort(key=lambda p: -(p.get("value") or 0) if better else (p.get("value") or 0))
    ps = " · ".join(f"{published_label(p)} {_num(p.get('value'))}" for p in same[:3])
    if len(same) > 3:
        ps += f" (+{len(same) - 3} rows)"
    return ys, ps, other_data_text(other)


WIDTH = 120
"""The terminal table's width."""


def _fit(text: str) -> str:
    return text if len(text) <= WIDTH else text[: WIDTH - 1] + "…"


def format_eval(result: Any) -> str:
    """The eval table as terminal text (at most :data:`WIDTH` columns): a row per run, its metric with CI,
    then its yardsticks and the published rows on the same data and protocol; a run on the shipped
    samples opens with :data:`noveval.benchmarks._yardsticks.INVENTED` and shows no published row."""
    from noveval.benchmarks._yardsticks import INVENTED
    from noveval.compare.text import _table, wrap_lines
    from noveval.labels import model_name

    s = result.settings
    data = "the shipped samples" if s.data == "sample" else ", ".join(s.data.split(os.pathsep))
    head = [f"{INVENTED} (the shipped samples: the numbers show the pipelines run, not how good the model is)"
            ] if s.data == "sample" else []
    head.append(f"eval · {model_name(result.model_id or s.model)} ({s.model}) · protocol {s.protocol} · data {data}"
                + (f" · limit {s.limit}" if s.limit is not None else "") + (f" · judge {s.judge}" if s.judge else ""))
    lines = wrap_lines(head, WIDTH)
    rows, refs = [], []
    for r in result.rows:
        way = "↑" if r.greater_is_better else "↓" if r.greater_is_better is False else ""
        ci = f"[{_num(r.ci_low)}, {_num(r.ci_high)}]" if r.ci_low is not None else ""
        rows.append((r.run, f"{r.metric or '–'} {way}".strip(), _num(r.mean), ci, "" if r.n is None else str(r.n),
                     r.status))
        refs.append(_refs(result, r))
    table = _table(("run", "metric", "value", "95% CI", "n", "status"), rows, right={2, 4})
    lines.append(table[0])
    for line, (ys, ps, _) in zip(table[1:], refs, strict=True):
        lines.append(line)
        lines += [_fit(f"      {what}: {text}") for what, text in (("yardsticks", ys), ("published", ps)) if text]
    notes = [f"  other data (not comparable, not shown): {r.run}: {other}"
             for r, (_, _, other) in zip(result.rows, refs, strict=True) if other]
    lines += wrap_lines(notes, WIDTH)
    for r in result.rows:
        if r.status != "complete" and r.message:
            lines.append(f"  {r.run}: {r.status}: {r.message}")
    notes = [f"  not run: {name}: {why}" for name, why in result.skipped]
    notes += [f"  data: {r.run}: {r.data}" + (f"; {r.note}" if r.note else "") for r in result.rows]
    lines += wrap_lines(notes, WIDTH)
    cost = result.budget.get("usd")
    if result.budget.get("max_cost") is not None or cost:
        lines.append(f"  cost of this invocation: {'unknown' if cost is None else f'${cost:.4f}'}"
                     + (f" (budget ${result.budget['max_cost']:g})" if result.budget.get("max_cost") is not None else ""))
    lines.append(f"eval folder: {result.path} (eval.json, eval.csv; one run folder per row)")
    return "\n".join(lines)


def _nothing_runs(planned: list[Any], data_dir: Path | None) -> None:
    """Exit 2 when no planned system runs: name the folders searched and what each system needs."""
    from noveval.cli.common import fail
    from noveval.data.folders import searched_text

    if any(p.plan.runs for p in planned):
        return
    lines = [f"no system can run on the data found ({searched_text(data_dir)}); what each needs:"]
    lines += [f"  {p.bench.name}: {p.plan.skip}" for p in planned]
    lines.append("noveval data list --details shows each dataset's files (noveval data get NAME fetches one); "
                 "--sample runs the shipped samples instead")
    fail("\n".join(lines))


def _only(values: list[str] | None) -> list[str] | None:
    names = [n.strip() for v in values or [] for n in v.split(",") if n.strip()]
    return names or None


def _exit_code(result: Any, allow_failures: bool) -> int:
    statuses = {r.status for r in result.rows}
    if "budget" in statuses:
        return 4
    if "error" in statuses:
        return 1
    if statuses & {"incomplete", "not run"} and not allow_failures:
        return 3
    return 0


ModelsOpt = Annotated[
    list[str] | None,
    typer.Option("--model", "-m", help="Model spec: local | local:/path.gguf | openai/<model> | "
                                       "openai-compatible/<model>@<url>. Repeat for several models: one eval folder "
                                       "each (--out/<model>) and the leaderboard of them at the end."),
]


def _model_folders(models: list[str], out: Path) -> list[Path]:
    """The eval folder of each model: ``out`` itself for one model; ``out/<model label>`` for several."""
    import re

    from noveval.benchmarks._suite import EVAL_FILE
    from noveval.errors import InputError
    from noveval.labels import model_labels

    if len(models) == 1:
        return [out]
    twice = sorted({m for m in models if models.count(m) > 1})
    if twice:
        raise InputError(None, None, "--model", f"given twice: {', '.join(twice)}")
    if (out / EVAL_FILE).is_file():
        raise InputError(out / EVAL_FILE, None, "--out", "holds the eval of one model: give a new folder for several "
                                                         "models (each gets a sub-folder of it)")
    folders: list[Path] = []
    for label in model_labels(models):
        slug = re.sub(r"[^A-Za-z0-9._-]+", "-", label).strip("-.") or "model"
        while out / slug in folders:
            slug += "-2"
        folders.append(out / slug)
    return folders


def _extra_body(text: str | None) -> dict[str, Any] | None:
    """``--extra-body`` parsed (exit 2 naming the option on bad JSON, before anything is planned or written)."""
    from noveval.errors import InputError
    from noveval.options import parse_extra_body

    try:
        return parse_extra_body(text)
    except ValueError as e:
        raise InputError(None, None, "--extra-body", str(e)) from None


def _show_plan(model: str, planned: list[Any], kw: dict[str, Any], plan_only: bool, json_out: bool) -> None:
    """Print the work plan (``--plan``: in full on stdout, then exit 0; else compact, logged on stderr) and refuse a
    plan that cannot fit ``--max-cost`` (exit 4, nothing written: the budget's code; a higher budget runs it).

    Only ``--plan`` times an HTTP endpoint's check call (the one request a plan sends); before a run the
    plan states default rates (the run makes its own check).
    """
    from noveval.cli.plan import format_plan, over_budget, plan_view

    timeout = (kw.get("options") or {}).get("timeout") or 30.0
    view = plan_view(model, planned, timeout_s=min(float(timeout), 30.0), check=plan_only)
    if plan_only:
        typer.echo(json.dumps(view.to_dict(), indent=2, ensure_ascii=False) if json_out else format_plan(view))
    else:  # a log line: -q leaves it out
        logging.getLogger("noveval").info("%s", format_plan(view, compact=True))
    why = over_budget(view, kw["max_cost"]) if kw.get("max_cost") is not None else None
    if why:
        typer.echo(f"error: {why}; nothing was run or written (a higher --max-cost, or --limit, lets it run)", err=True)
        raise typer.Exit(4)
    if plan_only:
        raise typer.Exit(0)


def _one_eval(model: str, out: Path, only: list[str] | None, data_dir: Path | None, kw: dict[str, Any],
              plan_only: bool = False, json_out: bool = False) -> Any:
    """One model's eval through the one eval path (:func:`noveval.benchmarks._suite.evaluate`)."""
    from noveval.benchmarks._suite import evaluate
    from noveval.cli.generate import renamed_field

    def on_plan(planned: list[Any], ddir: Any) -> None:
        _nothing_runs(planned, data_dir)
        if ddir is None:
            typer.echo("eval on the shipped samples (invented items: the numbers show the pipelines run, not how good "
                       "the model is)", err=True)
        _show_plan(model, planned, kw, plan_only, json_out)

    with (renamed_field("only", "--only"), renamed_field("protocol", "--protocol"), renamed_field("out", "--out"),
          renamed_field("data_dir", "--data-dir")):
        return evaluate(model, out, only=only, data_dir=data_dir, on_plan=on_plan, **kw)


def _several(models: list[str], folders: list[Path], run_one: Any, json_out: bool, allow_failures: bool) -> int:
    """Run each model's eval in turn (a model that fails is reported, the others run), then the leaderboard."""
    from noveval.api import leaderboard
    from noveval.compare.leaderboard import format_leaderboard
    from noveval.errors import ConfigError
    from noveval.io import write_json

    codes, done, failed, shown = [], [], [], []
    for i, (model, folder) in enumerate(zip(models, folders, strict=True), 1):
        typer.echo(f"== model {i}/{len(models)}: {model} -> {folder}", err=True)
        try:
            result = run_one(model, folder)
        except (ConfigError, OSError) as e:  # a dead endpoint, a model that cannot load: the others still run
            failed.append((model, str(e)))
            codes.append(2)
            typer.echo(f"error: {e} (model {i}/{len(models)}; the other models still run)", err=True)
            continue
        codes.append(_exit_code(result, allow_failures))
        done.append(folder)
        shown.append(result.to_dict() if json_out else format_eval(result))
    board = leaderboard(done) if done else None
    if board is not None:
        write_json(folders[0].parent / "leaderboard.json", board.to_dict())
        write_csv(board, folders[0].parent / "leaderboard.csv")
    fails = [f"model failed: {m}: {why}" for m, why in failed]
    if json_out:
        typer.echo(json.dumps({"evals": shown, "failed": [{"model": m, "error": why} for m, why in failed],
                               "leaderboard": board.to_dict() if board else None}, indent=2, ensure_ascii=False))
    else:
        where = [f"leaderboard: {folders[0].parent / 'leaderboard.csv'} (and leaderboard.json)"] if board else []
        typer.echo("\n\n".join([*map(str, shown), *([format_leaderboard(board)] if board else []),
                                 "\n".join([*where, *fails])]))
    return max(codes)


@cli_errors
def eval_command(
    out: Annotated[Path, typer.Option("--out", "-o", help="Eval folder (created; an eval with the same settings resumes). "
                                                          "Several models: one sub-folder per model, and "
                                                          "leaderboard.json / leaderboard.csv.")],
    model: ModelsOpt = None,
    judge: JudgeOpt = None,
    embedder: EmbedderOpt = None,
    only: Annotated[list[str] | None, typer.Option("--only", help="Only these systems (comma-separated or repeated).")] = None,
    limit: LimitOpt = None,
    data_dir: DataDirOpt = None,
    sample: Annotated[bool, typer.Option("--sample", help="Use the shipped samples even when the real data are found.")] = False,
    protocol: Annotated[str | None, typer.Option("--protocol", help="paper (each system's published protocol; the default on real data) | noveval (this toolkit's; the default on the shipped samples, where a tiny model cannot follow the papers' free-text set-ups).")] = None,
    max_cost: MaxCostOpt = None,
    concurrency: ConcurrencyOpt = None,
    max_tokens: MaxTokensOpt = None,
    temperature: TemperatureOpt = None,
    timeout: Annotated[float | None, typer.Option("--timeout", min=0.001, help="Per-request timeout in seconds (default: each run's, 120).")] = None,
    extra_body: ExtraBodyOpt = None,
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace an eval (and runs) in --out made with other settings.")] = False,
    allow_failures: Annotated[bool, typer.Option("--allow-failures", help="Exit 0 even when a run is incomplete (it is still marked so).")] = False,
    allow_unparseable: Annotated[bool, typer.Option("--allow-unparseable", help="Accept runs whose answers are mostly empty or unparseable as results.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print eval.json instead of the table.")] = False,
    plan: Annotated[bool, typer.Option("--plan", help="Print what the eval would do (items, model calls by role, prompt and "
                                                      "completion tokens, embedding, local models, dollars, time) and "
                                                      "stop: no model call but an HTTP endpoint's one check call; "
                                                      "nothing written.")] = False,
) -> None:
    """Run every system on its data in its published protocol with one model (or each of several); end with one table."""
    models = model or ["local"]
    folders = _model_folders(models, out)
    options: dict[str, Any] = {k: v for k, v in (("concurrency", concurrency),
                                                 ("allow_unparseable", allow_unparseable or None),
                                                 ("max_tokens", max_tokens), ("temperature", temperature),
                                                 ("timeout", timeout), ("extra_body", _extra_body(extra_body)))
                               if v is not None}
    kw = {"judge": judge, "embedder": embedder, "limit": limit, "sample": sample, "protocol": protocol,
          "max_cost": max_cost, "options": options, "overwrite": overwrite}

    def run_one(m: str, folder: Path) -> Any:
        return _one_eval(m, folder, _only(only), data_dir, kw, plan_only=plan, json_out=json_out)

    if plan:  # each model's plan, nothing run
        codes = []
        for m, folder in zip(models, folders, strict=True):
            try:
                run_one(m, folder)
            except typer.Exit as e:
                codes.append(e.exit_code)
        code = max(codes, default=0)
    elif len(models) > 1:
        code = _several(models, folders, run_one, json_out, allow_failures)
    else:
        result = run_one(models[0], out)
        typer.echo(json.dumps(result.to_dict(), indent=2, ensure_ascii=False) if json_out else format_eval(result))
        code = _exit_code(result, allow_failures)
    if code:
        raise typer.Exit(code)


@cli_errors
def leaderboard(
    evals: Annotated[list[Path], typer.Argument(help="Eval folders (noveval eval -o DIR), one per model.")],
    baseline: Annotated[str | None, typer.Option("--baseline", help="The model the others are tested against: its label, spec, model name or eval folder (default: the first folder's).")] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Also write the table as CSV (long form: one row per value).")] = None,
    report: Annotated[Path | None, typer.Option("--report", help="Also write the HTML report of the folders, the leaderboard first.")] = None,
    resamples: Annotated[int, typer.Option("--resamples", min=100, help="Paired bootstrap resamples per comparison.")] = 10_000,
    alpha: Annotated[float, typer.Option("--alpha", min=0.0001, max=0.5, help="Family-wise level of the marks (Holm over the table's comparisons).")] = 0.05,
    json_out: Annotated[bool, typer.Option("--json", help="Print the table as JSON.")] = False,
) -> None:
    """Join models' eval folders into one model × system table, with paired tests against a baseline model."""
    from noveval.api import leaderboard as api_leaderboard
    from noveval.compare.leaderboard import format_leaderboard
    from noveval.errors import InputError

    if out is not None and out.suffix != ".csv":
        raise InputError(out, None, "--out", "expected a .csv file name")
    if report is not None and report.is_dir():
        raise InputError(report, None, "--report", "is a folder, expected an HTML file name (e.g. report.html)")
    from noveval.cli.generate import renamed_field

    with renamed_field("baseline", "--baseline"):
        board = api_leaderboard(evals, baseline=baseline, alpha=alpha, n_resamples=resamples)
    typer.echo(json.dumps(board.to_dict(), indent=2, ensure_ascii=False) if json_out else format_leaderboard(board))
    if out is not None:
        write_csv(board, out)
        typer.echo(f"table: {out.resolve()}")
    if report is not None:
        from noveval.report import write_report

        path = write_report(list(evals), report, leaderboard=board)
        typer.echo(f"report: {path.resolve()}")


def write_csv(board: Any, out: Path) -> None:
    """Write the leaderboard's long-form table to ``out`` (atomically)."""
    import csv
    import io

    from noveval.compare.leaderboard import CSV_COLUMNS
    from noveval.io import write_text

    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(CSV_COLUMNS), lineterminator="\n")
    w.writeheader()
    for row in board.csv_rows():
        w.writerow({k: row.get(k) for k in CSV_COLUMNS})
    write_text(out, buf.getvalue())
