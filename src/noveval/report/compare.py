"""The report's comparison tables and its "where the runs disagree" view: runs of one system (and
task) that share items, tested and compared item by item.

The section appears on its own whenever a benchmark has two or more scored runs whose
``per_item.jsonl`` share item ids (the same :func:`noveval.compare.compare_runs` as
``noveval compare``, same defaults, so the page and the terminal agree). Two runs: one
row per metric with B - A, its paired bootstrap 95% CI and the permutation p. Three or
more: the leaderboard on the primary metric with Holm-corrected marks against the best.

:func:`disagreement_groups` names, per task, the runs whose per-item answers the page
sets side by side (the page computes which items differ, for any two runs the reader
picks): the system's declared answer (:func:`noveval.compare.agreement.declared_answer`),
else the per-item value of its primary metric.
"""

from __future__ import annotations

import logging
from typing import Any

from noveval.errors import InputError
from noveval.report.fmt import num
from noveval.report.model import Cell, RunData, Table

__all__ = ["answer_spec", "comparison_tables", "disagreement_groups"]

log = logging.getLogger(__name__)


def _cell(v: Any, lo: Any = None, hi: Any = None, signed: bool = False, title: str = "") -> Cell:
    if not isinstance(v, (int, float)) or v != v:
        return Cell("–", title=title or "not available")
    text = num(float(v)) if not signed else f"{float(v):+.3f}"
    fmt = "{:+.3f}" if signed else "{:.3f}"
    ok = isinstance(lo, float) and isinstance(hi, float) and lo == lo and hi == hi
    ci = f"[{fmt.format(lo)}, {fmt.format(hi)}]" if ok else ""
    return Cell(text, ci=ci, value=float(v), title=title)


def _p(v: Any) -> Cell:
    if not isinstance(v, float) or v != v:
        return Cell("–")
    return Cell(f"{v:.4f}" if v < 0.001 else f"{v:.3f}", value=v)


def _task(r: RunData) -> str:
    t = r.scores.get("task")  # as noveval compare: config.json's "task" may be a step
    return str(t) if t else ""


def comparison_tables(runs: list[RunData]) -> tuple[list[Table], list[str]]:
    """Comparison tables of one benchmark's runs (see the module docstring).

    Args:
        runs: The benchmark's runs, already labelled by the report.

    Returns:
        ``(tables, gaps)``: gaps say why a group of runs was not compared.
    """
    from noveval.compare import compare_runs

    groups: dict[str, list[RunData]] = {}
    for r in runs:
        if r.per_item:
            groups.setdefault(_task(r), []).append(r)
    tables: list[Table] = []
    gaps: list[str] = []
    for task, group in groups.items():
        if len(group) < 2:
            continue
        ids = [{str(x.get("id")) for x in r.per_item} for r in group]
        if not set.intersection(*ids):
            gaps.append(f"comparison{' of ' + task if task else ''}: the runs share no item id")
            continue
        try:
            comp = compare_runs([r.path for r in group], labels=[r.label for r in group])
        except InputError as e:
            gaps.append(f"comparison{' of ' + task if task else ''}: {e}")
            continue
        except Exception as e:  # a damaged run must not sink the page
            log.warning("report: comparison failed: %s", e)
            gaps.append(f"comparison failed: {type(e).__name__}: {e}")
            continue
        name = {c.label: g.label for c, g in zip(comp.runs, group, strict=True)}
        tables += _tables(comp, name, task)
    return tables, gaps


def _caption(comp: Any, name: dict[str, str]) -> str:
    from noveval.compare.text import short

    s = comp.settings
    bits = [f"{len(comp.common)} items matched by id"]
    for lab, only in comp.only.items():
        if only:
            bits.append(f"{len(only)} only in {name[lab]} left out")
    how = (f"Paired bootstrap over items ({s['n_resamples']:,} resamples, {s['ci_method']} 95% CI); two-sided "
           f"paired permutation p (item-wise swaps; exact when 2^n ≤ {s['n_permutations']:,}, else (k+1)/(R+1)).")
    if len(comp.runs) == 2:
        a, b = (r.label for r in comp.runs)
        differ = "; ".join(f"{k}: {short(vals[a], 36)} → {short(vals[b], 36)}" for k, vals in list(comp.differs.items())[:6])
    else:
        differ = ", ".join(comp.differs) + " (each run's configuration is listed below)" if comp.differs else ""
    skipped = ", ".join(comp.skipped)
    return (", ".join(bits) + ". " + how + (f" Settings that differ: {differ}." if differ else "")
            + (f" Not compared item by item: {skipped} (noveval compare says why)." if skipped else "")
            + " " + " ".join(comp.notes)).strip()


def _prompt_variants(comp: Any) -> bool:
    """True when the runs differ only in their prompts (``run rinobench --prompt-variants``, say)."""
    return bool(comp.differs) and all(k.startswith("prompts.") for k in comp.differs)


def _agreement_tables(comp: Any, name: dict[str, str], suffix: str) -> list[Table]:
    """Answer agreement across the runs, and (3+ runs) each metric's spread."""
    out = []
    g = comp.agreement
    variants = _prompt_variants(comp)
    runs = "prompt variants" if variants else "runs"
    if g is not None:
        row = [_cell(g.flip_rate, g.flip_ci[0], g.flip_ci[1]), Cell(str(g.n_flips)), _cell(g.pairwise),
               _cell(g.modal_share), _cell(g.alpha), Cell(str(g.n))]
        out.append(Table(f"Agreement of the {runs}' answers{suffix} ({g.answer})",
                         ["flip rate [95% CI]", "items flipped", "pairwise agreement", "self-consistency",
                          f"Krippendorff α ({g.level})", "items"], [(", ".join(name.values()), row)],
                         caption="Flip rate: share of items not answered alike by every run (unparseable counts as an "
                                 "answer); pairwise agreement: mean share of items two runs answer alike; "
                                 "self-consistency: mean share of runs giving an item's most common answer. "
                                 "For seeds of one setting these measure sampling noise; for prompt variants, "
                                 "sensitivity to wording (noveval compare lists the flipped items)."
                                 + (" These runs differ only in their prompts (" + ", ".join(k.split(".", 1)[1] for k in comp.differs)
                                    + "): a flip is the wording changing the verdict." if variants else ""),
                         kind="comparison"))
    if comp.spread:
        rows = [(metric, [_cell(v["min"]), _cell(v["max"]), _cell(v["range"]), _cell(v["sd"])])
                for metric, v in comp.spread.items()]
        out.append(Table(f"Spread of each metric across the {runs}{suffix}", ["min", "max", "range", "SD"], rows,
                         caption=f"On the {len(comp.common)} items every run has; SD with ddof 1.", kind="comparison"))
    return out


def _tables(comp: Any, name: dict[str, str], task: str) -> list[Table]:
    suffix = f" — {task}" if task else ""
    return _pair_or_board(comp, name, task, suffix) + _agreement_tables(comp, name, suffix)


def _pair_or_board(comp: Any, name: dict[str, str], task: str, suffix: str) -> list[Table]:
    if len(comp.runs) == 2:
        a, b = (name[r.label] for r in comp.runs)
        rows = []
        for m in comp.metrics:
            r = m.result
            rows.append((m.name + (" *" if m.primary else ""), [
                _cell(r.a), _cell(r.b), _cell(r.difference, r.ci_low, r.ci_high, signed=True, title=m.how),
                _p(r.p_value), Cell(str(r.n))]))
        if not rows:
            return []
        return [Table(f"Comparison{suffix}: {b} − {a}", [a, b, "difference [95% CI]", "p", "n"], rows,
                      caption=_caption(comp, name) + " p-values are per metric (not corrected); * primary metric.",
                      kind="comparison")]
    out = []
    for lb in comp.leaderboards:
        rows = []
        for r in lb.rows:
            best = r.difference is None
            rows.append((f"{r.rank}. {name[r.label]}", [
                Cell(_cell(r.value).text, value=r.value, best=best),
                Cell("best") if best else _cell(r.difference, r.ci_low, r.ci_high, signed=True),
                Cell("") if best else _p(r.p_holm),
                Cell("") if best else Cell("below the best" if r.significant else "not distinguishable")]))
        better = "lower" if lb.lower_is_better else "higher"
        out.append(Table(f"Leaderboard{suffix}: {lb.metric} ({better} is better)",
                         [lb.metric, "Δ vs best [95% CI]", "p (Holm)", f"at α = {comp.settings['alpha']:g}"], rows,
                         caption=_caption(comp, name) + f" Leaderboard on the {lb.n} items every run has; each run "
                                 f"tested against the best, Holm's correction over the {len(lb.rows) - 1} tests "
                                 "(the CIs are each test's own, not adjusted).",
                         kind="comparison"))
    return out


def answer_spec(system: str, runs: list[RunData]) -> tuple[str, str | None, str] | None:
    """What "the runs' answer to an item" is for ``system``: ``(per-item field, predictions field, how)``.

    The system's declared answer (RINoBench: ``predicted_score``, read from
    ``predictions.jsonl`` ``novelty_score`` for runs without per-item rows); else the
    per-item value of the primary metric (``f1_overall``, or ``x`` for ``mean_x``) when
    the first run with per-item rows has it as a number; else None.
    """
    from noveval.compare.agreement import declared_answer

    declared = declared_answer(system)
    if declared is not None:
        return declared[0], declared[2], "the system's declared per-item answer"
    for r in runs:
        if not r.per_item:
            continue
        primary = str(r.typed.primary_metric or "")
        for name in (primary, primary.removeprefix("mean_")):
            vals = [row.get(name) for row in r.per_item]
            if name and any(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
                return name, None, f"the per-item {name} (the primary metric; the system declares no answer)"
        return None
    return None


def disagreement_groups(runs: list[RunData], items: dict[str, dict[str, Any]],
                        spec: tuple[str, str | None, str] | None) -> tuple[list[dict[str, Any]], list[str]]:
    """The run groups of the "where the runs disagree" view, and why a group has none.

    Args:
        runs: The benchmark's runs (labelled, with slugs).
        items: Slug -> the run's item table data (:func:`noveval.report.items.item_table`).
        spec: :func:`answer_spec` of the benchmark.

    Returns:
        ``(groups, gaps)``: each group ``{"title", "runs": [slug, ...], "answer", "how"}``
        holds two or more runs of one task that share item ids and have the answer column.
    """
    groups: dict[str, list[RunData]] = {}
    for r in runs:
        groups.setdefault(_task(r), []).append(r)
    out: list[dict[str, Any]] = []
    gaps: list[str] = []
    for task, group in groups.items():
        if len(group) < 2:
            continue
        where = f"where the runs disagree{' (' + task + ')' if task else ''}"
        if spec is None:
            gaps.append(f"{where}: the system declares no per-item answer and its primary metric has no per-item value")
            continue
        have = [r for r in group if any(c["role"] == "answer" for c in items[r.slug]["cols"])]
        if len(have) < 2:
            gaps.append(f"{where}: fewer than two runs have the per-item answer {spec[0]}")
            continue
        ids = [{row[0] for row in items[r.slug]["rows"]} for r in have]
        if not set.intersection(*ids):
            gaps.append(f"{where}: the runs share no item id")
            continue
        out.append({"title": task, "runs": [r.slug for r in have], "answer": spec[0], "how": spec[2]})
    return out, gaps
