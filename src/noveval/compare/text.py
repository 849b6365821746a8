"""The terminal view of a :class:`~noveval.compare.core.Comparison` (one table, like the run summary)."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from typing import Any

from noveval.compare.core import Comparison, Leaderboard
from noveval.metrics.yardsticks import references_of
from noveval.yardstick_text import published_summary, reference_text

__all__ = ["format_comparison", "short"]

_SHOW_IDS = 5
_SHOW_DIFFS = 8


def _num(v: Any, signed: bool = False) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    s = f"{v:+.3f}" if signed else f"{v:.3f}"
    return s.replace("-", "−") if signed else s


def _p(v: Any) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    return f"{v:.4f}" if v < 0.001 else f"{v:.3f}"


def short(v: Any, limit: int = 48) -> str:
    """``str(v)`` in at most ``limit`` characters, keeping both ends (paths differ in their file names).

    Args:
        v: Any value.
        limit: Most characters returned (>= 8).

    Returns:
        The text, with ``…`` in place of its middle when it is longer than ``limit``.
    """
    s = str(v)
    if len(s) <= limit:
        return s
    head = limit // 4
    return s[:head] + "…" + s[-(limit - head - 1):]


def _table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]], right: set[int]) -> list[str]:
    w = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def fmt(r: tuple[str, ...]) -> str:
        return "  " + "  ".join(c.rjust(w[i]) if i in right else c.ljust(w[i]) for i, c in enumerate(r)).rstrip()

    return [fmt(header), *(fmt(r) for r in rows)]


def wrap_lines(lines: Sequence[str], width: int = 120) -> list[str]:
    """``lines`` with each longer than ``width`` wrapped at spaces (its indent kept, continuations
    indented two more); a word longer than the width (a path, a URL) is never cut."""
    out: list[str] = []
    for line in lines:
        if len(line) <= width:
            out.append(line)
            continue
        indent = line[: len(line) - len(line.lstrip())]
        out += textwrap.wrap(line.strip(), width, initial_indent=indent, subsequent_indent=indent + "  ",
                             break_long_words=False, break_on_hyphens=False) or [line]
    return out


def _title(c: Comparison) -> str:
    ident = c.system + (f" · task {c.task}" if c.task else "")
    return f"compare · {ident} · {len(c.runs)} runs · {len(c.common)} items matched by id"


def _runs(c: Comparison) -> list[str]:
    """Which run is which, unmatched items, and the settings that differ (one line per setting)."""
    lines = ["runs:"]
    for r in c.runs:
        lines.append(f"  {r.label} = {r.path}  ({r.model or 'model not recorded'}, {len(r.rows)} items)")
    for label, ids in c.only.items():
        if ids:
            more = f", … ({len(ids) - _SHOW_IDS} more)" if len(ids) > _SHOW_IDS else ""
            lines.append(f"  unmatched: {len(ids)} item(s) only in {label}, left out: {', '.join(ids[:_SHOW_IDS])}{more}")
    if c.differs:
        lines.append("settings that differ:")
        for k, vals in list(c.differs.items())[:_SHOW_DIFFS]:
            lines.append(short(f"  {k}: " + " | ".join(f"{lab} {short(v, 40)}" for lab, v in vals.items()), 160))
        if len(c.differs) > _SHOW_DIFFS:
            lines.append(f"  … and {len(c.differs) - _SHOW_DIFFS} more (--json lists them all)")
    else:
        lines.append("settings that differ: none in config.json (same settings; e.g. a repeat run)")
    return lines


def _pair_table(c: Comparison) -> list[str]:
    a, b = c.runs
    rows = []
    for m in c.metrics:
        r = m.result
        ci = f"[{_num(r.ci_low, True)}, {_num(r.ci_high, True)}]"
        rows.append((f"{m.name} *" if m.primary else m.name, _num(r.a), _num(r.b), _num(r.difference, True), ci,
                     _p(r.p_value), str(r.n), "recomputed" if m.kind == "statistic" else "mean"))
    if not rows:
        return ["  no metric can be compared item by item" + (" (see 'not compared' below)" if c.skipped else "")]
    head = ("metric", a.label, b.label, "difference", "95% CI", "p", "n", "how")
    lines = _table(head, rows, right={1, 2, 3, 5, 6})
    lines.append(f"  difference = {b.label} − {a.label}")
    prim = next((m for m in c.metrics if m.primary), None)
    if prim is not None:
        lines.append(f"  * primary metric ({'lower' if prim.lower_is_better else 'higher'} is better)")
    return lines


def _board(lb: Leaderboard, alpha: float) -> list[str]:
    better = "lower" if lb.lower_is_better else "higher"
    lines = [f"leaderboard: {lb.metric} ({better} is better) on {lb.n} items every run has; {lb.how}"]
    rows = []
    for r in lb.rows:
        if r.difference is None:
            rows.append((str(r.rank), r.label, _num(r.value), "best", "", "", ""))
        else:
            ci = f"[{_num(r.ci_low, True)}, {_num(r.ci_high, True)}]"
            rows.append((str(r.rank), r.label, _num(r.value), _num(r.difference, True), ci, _p(r.p_holm),
                         "*" if r.significant else ""))
    lines += _table(("rank", "run", lb.metric, "Δ vs best", "95% CI", "p (Holm)", ""), rows, right={0, 2, 3, 5})
    k = len(lb.rows) - 1
    lines.append(f"  * below the best at α = {alpha:g} after Holm's correction over the {k} comparison(s) with the best run;")
    lines.append("    the CIs are each comparison's own (not adjusted), so a CI may exclude 0 without a mark")
    return lines


def _agreement(c: Comparison) -> list[str]:
    g = c.agreement
    lines = []
    if g is not None:
        lines.append(f"agreement of the runs' answers ({g.answer}, {g.n} items):")
        lines.append(f"  flip rate {_num(g.flip_rate)} [{_num(g.flip_ci[0])}, {_num(g.flip_ci[1])}] "
                     f"(items not answered alike by every run: {g.n_flips})  ·  pairwise agreement {_num(g.pairwise)}"
                     f"  ·  self-consistency {_num(g.modal_share)}  ·  Krippendorff α ({g.level}) {_num(g.alpha)}")
        for item, answers in g.flips:
            lines.append(f"  item {item}: " + " | ".join(f"{lab} {'unparseable' if v is None else v}" for lab, v in answers.items()))
        if g.n_flips > len(g.flips):
            lines.append(f"  … and {g.n_flips - len(g.flips)} more (--json lists the first {len(g.flips)})")
    if c.spread:
        lines.append("spread across the runs (items every run has):")
        rows = [(name, _num(v["min"]), _num(v["max"]), _num(v["range"]), _num(v["sd"])) for name, v in c.spread.items()]
        lines += _table(("metric", "min", "max", "range", "SD"), rows, right={1, 2, 3, 4})
    return lines


def _yardsticks(c: Comparison) -> list[str]:
    """One line: the yardsticks of the compared (primary or leaderboard) metric, from the first run carrying them.

    They are the runs' own (same gold) and shown for reference; their numbers are whole-run
    values, not restricted to the matched items.
    """
    metric = next((m.name for m in c.metrics if m.primary), None) or (c.leaderboards[0].metric if c.leaderboards else None)
    if metric is None:
        return []
    for r in c.runs:
        ys, pub = references_of(r.scores, metric)
        if ys or pub:
            parts = [reference_text(y) for y in ys]
            lower = next((m.lower_is_better for m in c.metrics if m.name == metric),
                         c.leaderboards[0].lower_is_better if c.leaderboards else False)
            if pub:
                parts.append(published_summary(pub, greater_is_better=not lower, most=2))
            return [f"yardsticks of {metric} (from run {r.label}'s gold; whole run, for reference): " + " · ".join(parts)]
    return []


def format_comparison(c: Comparison) -> str:
    """The comparison as terminal text (no trailing newline).

    The table comes first. Two runs: a row per metric with each run's value, their
    difference, its paired bootstrap CI, the permutation p and the items used. Three or more:
    one leaderboard per chosen metric. Then which run is which (runs are named by their
    model, :func:`noveval.labels.model_labels`), the settings that differ (one line each),
    the answer agreement, the metrics that were not compared (and why), and how the numbers
    were made.
    """
    s = c.settings
    lines = [_title(c)]
    lines += _pair_table(c) if len(c.runs) == 2 else [x for lb in c.leaderboards for x in _board(lb, s["alpha"])]
    if len(c.runs) > 2 and not c.leaderboards:
        lines.append("  no leaderboard (see the notes)")
    lines += _yardsticks(c)
    lines += _runs(c)
    lines += _agreement(c)
    if c.skipped:
        lines.append("not compared:")
        for name, why in c.skipped.items():
            lines.append(f"  {name}: {short(why, 160)}")
    exact = any(m.result.exact for m in c.metrics) or any(lb.exact for lb in c.leaderboards)
    perm = (f"exact over all 2^n swaps when 2^n ≤ {s['n_permutations']:,}, else {s['n_permutations']:,} random "
            "swaps with p = (k+1)/(R+1)")
    lines.append(f"how: paired bootstrap over matched items, {s['n_resamples']:,} resamples, {s['ci_method']} "
                 f"{s['confidence']:.0%} CI; paired permutation test (swap A/B per item), two-sided, {perm}"
                 f"{' (exact here)' if exact else ''}; seed {s['seed']}.")
    if len(c.runs) == 2:
        lines.append("  p-values are per metric, not corrected for the number of metrics: decide on the primary metric.")
    for n in c.notes:
        lines.append(f"note: {n}")
    return "\n".join(lines)
