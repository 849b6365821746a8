"""Tables: the generic headline table and the paper-shaped tables of each benchmark.

Each paper-table builder takes the runs of one benchmark and returns tables plus a
list of *gaps* (what the paper's table needs but the runs' scores.json lack).
"""

from __future__ import annotations

from collections.abc import Callable

from noveval.report.fmt import lower_is_better, mark_best, metric_cell, pretty_name
from noveval.report.model import Cell, RunData, Table
from noveval.scores import MetricValue

__all__ = ["headline_table", "PAPER_TABLES"]


def _metrics(run: RunData) -> dict[str, MetricValue]:
    return run.metrics


def _task_headline(runs: list[RunData]) -> Table:
    rows = []
    for r in runs:
        prim = str(r.typed.primary_metric or next(iter(_metrics(r)), ""))
        cell = metric_cell(_metrics(r).get(prim))
        rows.append((r.label, [Cell(str(r.scores.get("task") or r.config.get("task") or "–")), Cell(pretty_name(prim)), cell]))
    return Table("Headline results", ["Task", "Primary metric", "Value"], rows, kind="headline",
                 caption="Runs of different tasks: each run's primary metric (mean, 95% bootstrap CI). "
                         "All metrics are in the task tables below.")


def headline_table(runs: list[RunData]) -> Table:
    """Runs side by side: one row per metric (primary first), one column per run.

    Runs of different tasks (e.g. CLAIMCHECK's six) share few metrics; then the table has
    one row per run with its task and primary metric instead.
    """
    tasks = {r.scores.get("task") or r.config.get("task") for r in runs}
    if len(tasks) > 1:
        return _task_headline(runs)
    names: list[str] = []
    primaries = {r.typed.primary_metric for r in runs if r.typed.primary_metric}
    for r in runs:
        for k in _metrics(r):
            if k not in names:
                names.append(k)
    names.sort(key=lambda k: 0 if k in primaries else 1)
    rows = []
    for k in names:
        cells = [metric_cell(_metrics(r).get(k)) for r in runs]
        gib = {r.typed.greater_is_better for r in runs if r.typed.primary_metric == k}
        mark_best(cells, (gib == {False}) if len(gib) == 1 and None not in gib else lower_is_better(k))
        label = pretty_name(k) + (" ★" if k in primaries else "")
        rows.append((label, cells))
    caption = "Mean with 95% bootstrap CI in brackets; hover a value for n. ★ primary metric; best run in bold."
    return Table("Headline results", [r.label for r in runs], rows, caption=caption, kind="headline")


def _by_run(runs: list[RunData], columns: list[tuple[str, str]], title: str, caption: str,
            row_label: Callable[[RunData], str] | None = None, scale: float = 1.0) -> Table:
    rows = []
    for r in runs:
        m = _metrics(r)
        rows.append(((row_label or (lambda x: x.label))(r), [metric_cell(m.get(key), scale=scale) for key, _ in columns]))
    for j, (key, _) in enumerate(columns):
        mark_best([cells[j] for _, cells in rows], lower_is_better(key))
    return Table(title, [h for _, h in columns], rows, caption=caption, kind="paper")


def _missing(runs: list[RunData], keys: list[str], what: str) -> list[str]:
    gaps = []
    for k in keys:
        if not any(k in _metrics(r) for r in runs):
            gaps.append(f"{what}: no run reports `{k}`")
    return gaps


def novbench_tables(runs: list[RunData]) -> tuple[list[Table], list[str]]:
    """NovBench Table 2: Relevance, Coverage, Clarity, DistAcc per model and prompting."""
    cols = [("relevance", "Rel."), ("coverage", "Cov."), ("clarity", "Clarity"),
            ("clarity_reference", "Clarity (ref.)"), ("dist_acc", "DistAcc")]

    def label(r: RunData) -> str:
        p = r.config.get("prompting") or r.scores.get("prompting") or r.extra.get("prompting")
        return f"{r.model} · {p}" if p else r.label

    notes = list(dict.fromkeys(str(x) for r in runs if (x := r.extra.get("models_note"))))
    t = _by_run(runs, cols, "Table 2 — novelty-evaluation quality",
                "Rows: model · prompting (zero-shot, few-shot, RAG); “Human” scores the gold evaluations "
                "as if they were predictions, so Coverage and DistAcc are undefined (–) there. "
                "Clarity is Eq. 7, the variant comparable with the paper's Table 2 (its result files fit it); "
                "Clarity (ref.) is the released comment_evaluate.py formula. "
                + (" ".join(f"Models: {n}." for n in notes) if notes else "Models: not recorded in scores.json."),
                row_label=label)
    human = next((h for r in runs if isinstance(h := r.extra.get("human"), dict) and h), None)
    if human:
        t.rows.insert(0, ("Human", [metric_cell(human.get(k)) for k, _ in cols]))
    return [t], _missing(runs, ["relevance", "coverage", "dist_acc"], "NovBench Table 2")


def rinobench_tables(runs: list[RunData]) -> tuple[list[Table], list[str]]:
    """RINoBench Table 3: macro-F1, MAE and the justification metrics."""
    cols = [("f1_macro", "Macro-F1"), ("mean_absolute_error", "MAE"), ("mean_alignment", "Alignment"),
            ("mean_known_aspects_recall", "Recall known"), ("mean_novelty_aspects_recall", "Recall novel"),
            ("mean_additional_known_aspects_ratio", "Additional known"),
            ("mean_additional_novelty_aspects_ratio", "Additional novel"),
            ("mean_known_aspects_hallucination_rate", "Halluc. known"),
            ("mean_novelty_aspects_hallucination_rate", "Halluc. novel")]
    def setup(r: RunData) -> str:
        extra = r.extra
        labels = extra.get("f1_labels") or "fixed"
        bits = [f"F1 labels {labels}" + (" (classes 1-5)" if labels == "fixed" else " (released eval.py)"),
                f"protocol {extra.get('protocol') or 'unknown'}"]
        jo = extra.get("judge_options")
        if isinstance(jo, dict):
            cap = jo.get("max_arguments")
            bits.append(f"arguments {'all' if cap is None else f'≤ {cap}'}, grounding {jo.get('grounding_context', 'split')}")
        return f"{r.label}: " + ", ".join(bits)

    t = _by_run(runs, cols, "Table 3 — score prediction and justification quality",
                "Macro-F1 over the novelty classes; MAE over parsed predictions; the remaining "
                "columns are judge-based justification metrics (Eqs. 1-3); Alignment is 1-5 mapped to [0, 1], "
                "not deepeval's 0-10 G-Eval scale. Set-up per run — " + "; ".join(setup(r) for r in runs) + ".")
    per_class = _by_run(runs, [(f"f1_{c}", f"F1 {c}") for c in range(1, 6)], "Per-class F1",
                        "F1 of each gold novelty score 1-5 (models tend to avoid the extremes).")
    return [t, per_class], _missing(runs, [k for k, _ in cols], "RINoBench Table 3")


def focus_tables(runs: list[RunData]) -> tuple[list[Table], list[str]]:
    """Focus-level Table 3: KL per distribution (+ mean) and multiset F1."""
    dists = ["strength/target", "weakness/target", "strength/aspect", "weakness/aspect"]
    rows, gaps = [], []
    for r in runs:
        extra = r.extra
        kl = extra.get("kl") or {}
        m = _metrics(r)
        proto = str(r.scores.get("protocol") or "noveval")
        if (extra.get("protocol") or {}).get("note"):
            proto += f" (scoring; run: {r.config.get('protocol') or 'noveval'})"
        cells = [Cell(proto, title=str((extra.get("protocol") or {}).get("note") or ""))]
        cells += [metric_cell(m.get("kl_mean") if "kl_mean" in m else kl.get("mean"))]
        cells += [metric_cell(kl.get(d)) for d in dists]
        cells += [metric_cell(m.get(k)) for k in ("f1_overall", "f1_strength", "f1_weakness")]
        rows.append((r.label, cells))
        if not kl:
            gaps.append(f"focus Table 3: run {r.label} has no `extra.kl`")
    header = ["Protocol", "KL mean", *(f"KL {d}" for d in dists), "F1 overall", "F1 strength", "F1 weakness"]
    for j in range(1, len(header)):
        mark_best([c[j] for _, c in rows], lower=j < 6)
    t = Table("Table 3 — focus alignment with expert reviews", header, rows,
              caption="KL(human ‖ model) per focus distribution (lower is better; – = left out: no "
                      "labelled point on one side) and F1 of (target, aspect) labels (higher is better): "
                      "protocol paper = rejected papers, meta-review chain, set F1; noveval = all papers, "
                      "all reviewers' points, multiset F1 (docs/fidelity.md).", kind="paper")
    return [t], gaps


def axioms_tables(runs: list[RunData]) -> tuple[list[Table], list[str]]:
    """Axioms Table 2: pass rates (%) per metric × axiom, by field and overall."""
    tables, gaps = [], []
    for r in runs:
        tab = r.extra.get("table")
        if not isinstance(tab, dict) or "overall" not in tab:
            gaps.append(f"axioms Table 2: run {r.label} has no `extra.table`")
            continue
        cols = list(tab.get("columns") or [])
        rows = []
        blocks = [*(tab.get("by_field") or {}).items(), ("All", tab["overall"])]
        sd = tab.get("sd") or {}
        for field, res in blocks:
            spread = sd.get("overall", {}) if field == "All" else (sd.get("by_field") or {}).get(field, {})
            for metric, cell in res.items():
                cells = [metric_cell(cell.get(c), digits=1, scale=_pct_scale(tab)) for c in cols]
                for c, col in zip(cells, cols, strict=True):  # several seeds: mean ± SD
                    e = (spread.get(metric) or {}).get(col)
                    if e is not None and c.value is not None:
                        c.ci = f"± {e * _pct_scale(tab):.1f} (SD, {len(tab['seeds'][metric])} seeds)"
                rows.append((f"{field} · {metric}", cells))
        for field, _res in blocks:  # best metric per field (and overall) for each check, as in the paper
            group = [c for name, c in rows if name.startswith(f"{field} · ")]
            for j in range(len(cols)):
                mark_best([c[j] for c in group], lower=False)
        caption = ("Rows: field · novelty metric; Avg = mean over applicable checks; "
                   "– = check not applicable or no items; best metric per field in bold.")
        for metric, agree in (tab.get("seed_agreement") or {}).items():
            share, n = agree["all"]
            if share is not None:
                caption += (f" {metric}: all {len(tab['seeds'][metric])} seeds make the same pass/fail "
                            f"decision on {100 * share:.1f}% of {n} checks.")
        tables.append(Table(f"Table 2 — axiom pass rates (%), {r.label}", cols, rows, caption=caption, kind="paper"))
    return tables, gaps


def _pct_scale(tab: dict) -> float:
    vals = [v for res in tab["overall"].values() for v in res.values() if isinstance(v, (int, float))]
    return 100.0 if vals and max(vals) <= 1.0 else 1.0


def claimcheck_tables(runs: list[RunData]) -> tuple[list[Table], list[str]]:
    """CLAIMCHECK Tables 5-6 (WL alpha; WLE win/tie/loss) and the other tasks' metrics."""
    by_task: dict[str, list[RunData]] = {}
    for r in runs:
        by_task.setdefault(str(r.scores.get("task") or r.config.get("task") or "?"), []).append(r)
    tables: list[Table] = []
    gaps: list[str] = []
    titles = {"wl": "Table 5 — weakness labeling (Krippendorff α)", "wle": "Table 6 — weakness rewriting (WLE)",
              "wi": "Weakness identification (span F1)", "ca": "Claim association (span F1)",
              "cv": "Claim verification", "extract": "Claim extraction"}
    for task in ("wl", "wle", "wi", "ca", "cv", "extract"):
        trs = by_task.pop(task, [])
        if not trs:
            if task in ("wl", "wle"):
                gaps.append(f"CLAIMCHECK {titles[task].split(' —')[0]}: no `{task}` run in the report")
            continue
        keys: list[str] = []
        for r in trs:
            keys += [k for k in _metrics(r) if k not in keys]
        tables.append(_by_run(trs, [(k, pretty_name(k)) for k in keys], titles[task],
                              f"Task `{task}`. " + _claimcheck_setup(trs)))
    for task, trs in by_task.items():
        keys = list(dict.fromkeys(k for r in trs for k in _metrics(r)))
        tables.append(_by_run(trs, [(k, pretty_name(k)) for k in keys], f"Task {task}", ""))
    return tables, gaps


def _claimcheck_setup(runs: list[RunData]) -> str:
    """Protocol, seeds and judge of each CLAIMCHECK run, for a table caption."""
    parts = []
    for r in runs:
        sc = r.scores
        seeds = sc.get("seeds") or r.config.get("seeds")
        bits = [f"protocol {sc.get('protocol') or r.config.get('protocol') or 'noveval'}"]
        if seeds:
            bits.append(("seeds " if len(seeds) > 1 else "seed ") + ", ".join(str(x) for x in seeds)
                        + (" (mean over seeds)" if len(seeds) > 1 else ""))
        if sc.get("judge_note"):
            bits.append(str(sc["judge_note"]))
        parts.append(f"{r.label}: " + "; ".join(b.rstrip(".") for b in bits) + ".")
    return " ".join(parts)


PAPER_TABLES: dict[str, Callable[[list[RunData]], tuple[list[Table], list[str]]]] = {
    "novbench": novbench_tables,
    "rinobench": rinobench_tables,
    "focus": focus_tables,
    "axioms": axioms_tables,
    "claimcheck": claimcheck_tables,
}


def _validity_tables(runs: list[RunData]) -> tuple[list[Table], list[str]]:
    from noveval.report.validity import validity_tables

    return validity_tables(runs)


PAPER_TABLES["validate"] = _validity_tables
