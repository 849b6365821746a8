"""The one terminal summary every benchmark prints at the end of ``run`` / ``score``.

A table of the run's metrics (mean, 95% bootstrap CI, n) from ``scores.json``, each metric
beside its yardsticks and the paper's rows (:func:`reference_lines`), then one
line on the items (how many, how many the model answered unparseably, how many failed),
one on the model calls (how many of how many failed, the first error), one on what they
cost (:func:`format_cost`), and the run folder. ``--json`` prints ``scores.json`` instead. Nothing here computes a metric: it
only shows what the run wrote, so the terminal and the report never disagree.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from noveval.scores import Scores, read_scores
from noveval.yardstick_text import published_summary, reference_text

__all__ = ["format_summary", "item_counts", "format_calls", "format_cost", "reference_lines"]

_STREAMS = ("predictions", "judgments")


def _num(v: Any) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return f"{v:.3f}" if abs(v) < 1000 else f"{v:.0f}"
    return str(v)


def _rows(path: Path, kind: str) -> list[dict[str, Any]]:
    f = path / f"{kind}.jsonl"
    if not f.is_file():
        return []
    from noveval.io import complete_rows

    return complete_rows(f.read_text(encoding="utf-8", errors="replace"))


def _config(run_dir: str | Path | None) -> dict[str, Any]:
    if run_dir is None:
        return {}
    f = Path(run_dir) / "config.json"
    try:
        obj = json.loads(f.read_text(encoding="utf-8")) if f.is_file() else {}
    except (OSError, ValueError):
        return {}
    return obj if isinstance(obj, dict) else {}


def item_counts(run_dir: str | Path) -> dict[str, int]:
    """Items of a run: predictions written, recorded as failed, answered unparseably.

    A row is *failed* when its ``error`` field is set (the model call failed) and
    *unparseable* when the model answered but the answer could not be read (a
    ``parse_status`` other than ``ok``/``call_failed``, ``unparseable: 1``, or an
    ``unusable_answers`` entry: some call of the item got an answer its parser rejected).

    Args:
        run_dir: The run directory.

    Returns:
        ``{"items", "failed", "unparseable"}`` (zeros when there is no predictions.jsonl).
    """
    rows = _rows(Path(run_dir), "predictions")
    failed = sum(1 for r in rows if r.get("error"))
    unparseable = 0
    for r in rows:
        if r.get("error"):
            continue
        status = r.get("parse_status")
        if ((isinstance(status, str) and status not in ("ok", "call_failed")) or r.get("unparseable") in (1, True)
                or r.get("unusable_answers")):
            unparseable += 1
    return {"items": len(rows), "failed": failed, "unparseable": unparseable}


def format_calls(calls: dict[str, Any] | None) -> str:
    """One line on a run's model calls: ``model calls: 2 of 12 failed (first: ...)`` or ``all answered``."""
    if not calls:
        return "model calls: not recorded (run made before noveval recorded them)"
    n, failed, earlier = calls.get("requests", 0), calls.get("failed", 0), calls.get("failed_earlier", 0)
    hits = calls.get("cache_hits", 0)
    cache = f", {hits} from the cache" if hits else ""
    if not failed and not earlier:
        return f"model calls: {n}{cache}, none failed"
    parts = []
    if failed:
        parts.append(f"{failed} of {n} failed{cache}")
    if earlier:
        parts.append(f"{earlier} failed in an earlier invocation and were not redone")
    first = calls.get("first_error")
    return "model calls: " + "; ".join(parts) + (f" (first: {first})" if first else "")


def format_unusable(calls: dict[str, Any] | None) -> str | None:
    """The lines on unusable answers: the counts per role, and the roles where most were (None: none were)."""
    from noveval.models.calls import answers_line, unusable_line

    per_role = answers_line((calls or {}).get("answers"))
    line = unusable_line((calls or {}).get("unusable"))
    if line is None:
        return per_role
    if per_role is not None:
        return per_role + "\n" + (format_unusable({**(calls or {}), "answers": None}) or "")
    if (calls or {}).get("unusable_accepted"):
        return f"answers: {line} (accepted with --allow-unparseable: reported as the model's answers)"
    return (f"UNUSABLE ANSWERS: {line}: a broken endpoint configuration, not a result (a reasoning model may put "
            "its answer in another field)")


def format_cost(cost: dict[str, Any] | None) -> list[str]:
    """Lines on what a run's model calls cost (:func:`noveval.models.costs.cost_lines`)."""
    from noveval.models.costs import cost_lines

    return cost_lines(cost)


def _typed(scores: dict[str, Any]) -> Scores:
    """``scores`` as :class:`Scores` (a malformed dict: the empty scores, so the summary still prints)."""
    from noveval.errors import InputError

    try:
        return read_scores(scores)
    except InputError:
        return Scores()


def _system_lines(name: str, scores: dict[str, Any]) -> list[str] | None:
    """The metric lines a system's views module draws itself (``summary_lines(scores)``), or None."""
    from noveval.benchmarks import BENCHMARKS

    bench = BENCHMARKS.get(name)
    fn = bench.view("summary_lines") if bench is not None else None
    return list(fn(scores)) if fn is not None else None


_MOST_METRICS = 6


def reference_lines(scores: dict[str, Any]) -> list[str]:
    """Each metric beside its yardsticks, and the paper's rows of the primary metric (issue 29).

    ``f1_macro * 0.210 vs uniform random 0.185 · class-frequency random 0.199 [0.154, 0.247] · ...``
    then ``paper (Table 3): GPT-5 0.172 · ...``; brackets hold the range 95% of random
    draws fall in (or a CI). Nothing when the scores carry neither.
    """
    from noveval.metrics.yardsticks import references_of
    from noveval.scores import lower_is_better_by_name

    got = scores.get("metrics")
    metrics: dict[str, Any] = got if isinstance(got, dict) else {}
    primary = scores.get("primary_metric")
    headline = primary if primary in metrics else None  # the paper's rows of this metric (else of every metric shown)
    names = sorted((k for k in metrics if references_of(scores, k)[0] or (k == headline and references_of(scores, k)[1])),
                   key=lambda k: k != primary)
    lines: list[str] = []
    for k in names[:_MOST_METRICS]:
        ys, pub = references_of(scores, k)
        m = metrics[k] if isinstance(metrics[k], dict) else {"mean": metrics[k]}
        label = f"{k} *" if k == primary else k
        if ys:
            lines.append(f"  {label} {_num(m.get('mean'))} vs " + " · ".join(reference_text(y) for y in ys))
        if pub and headline in (None, k):
            lower = scores.get("greater_is_better") is False if k == primary else lower_is_better_by_name(k)
            lines.append(("    " if ys else f"  {label} {_num(m.get('mean'))} vs ")
                         + published_summary(pub, greater_is_better=not lower))
    if len(names) > _MOST_METRICS:
        lines.append(f"  … yardsticks of {len(names) - _MOST_METRICS} more metric(s) in scores.json")
    if lines:
        lines.insert(0, "yardsticks (on this run's gold; [range of 95% of random draws, or CI]) and the paper's rows:")
    elif scores.get("baselines_note"):
        lines.append(f"yardsticks: none ({scores['baselines_note']})")
    return lines


def format_summary(scores: dict[str, Any], run_dir: str | Path | None = None) -> str:
    """The terminal summary of one run (see module docstring).

    Args:
        scores: The run's ``scores.json`` (may be empty: a run without gold, say).
        run_dir: The run folder (None: the scores were not saved).

    Returns:
        Multi-line text, no trailing newline.
    """
    config = _config(run_dir)
    typed = _typed(scores)
    bench = typed.benchmark or config.get("benchmark") or "run"
    head = [str(bench)]
    for key in ("task", "prompting"):
        v = scores.get(key) or config.get(key)
        if isinstance(v, str):
            head.append(v)
    for key in ("model", "judge", "annotator", "embedder"):
        v = scores.get(key) or config.get(key)
        v = v.get("model_id") if isinstance(v, dict) else v
        if isinstance(v, str) and v:
            head.append(f"{key} {v}")
    extra = typed.extra
    for key in ("protocol", "f1_labels"):  # settings that change what a number means
        v = scores.get(key) or extra.get(key) or config.get(key)
        if isinstance(v, str) and v:
            head.append(f"{key.replace('_', ' ')}: {v}")
    lines = [" · ".join(head)]
    for key, prefix in (("models_note", "Models: "), ("clarity_note", "")):  # what the numbers rest on
        if isinstance(extra.get(key), str) and extra[key]:
            lines.append(prefix + extra[key])
    if scores.get("demo"):
        lines.append("DEMO: invented sample items and a tiny model; these numbers say nothing about any model")
    metrics = typed.metrics
    primary = typed.primary_metric
    custom = _system_lines(str(bench), scores)
    if custom is not None:  # the system shows its numbers its own way (e.g. predictors beside a ceiling)
        lines.extend(custom)
    elif metrics:
        rows = []
        for name, m in metrics.items():
            lo, hi = m.ci_low, m.ci_high
            ci = f"[{_num(lo)}, {_num(hi)}]" if lo is not None and hi is not None else "–"
            label = f"{name} *" if name == primary else name
            rows.append((label, _num(m.mean), ci, _num(m.n)))
        w = [max(len(r[i]) for r in [("metric", "mean", "95% CI", "n"), *rows]) for i in range(4)]
        lines.append(f"  {'metric':<{w[0]}}  {'mean':>{w[1]}}  {'95% CI':<{w[2]}}  {'n':>{w[3]}}")
        for r in rows:
            lines.append(f"  {r[0]:<{w[0]}}  {r[1]:>{w[1]}}  {r[2]:<{w[2]}}  {r[3]:>{w[3]}}")
        if primary in metrics:
            better = "higher" if typed.greater_is_better is not False else "lower"
            lines.append(f"  * primary metric ({better} is better)")
    else:
        lines.append("  no metrics (nothing to score against: no gold, or not scored yet)")
    lines.extend(reference_lines(scores))
    if run_dir is not None:
        c = item_counts(run_dir)
        if c["items"]:
            lines.append(f"items: {c['items']} ({c['unparseable']} answered unparseably, {c['failed']} failed)")
    lines.append(format_calls(typed.calls))
    from noveval.models.calls import RECOVER
    if (unusable := format_unusable(typed.calls)) is not None:
        lines.append(unusable)
    lines.extend(format_cost(typed.cost))
    calls: dict[str, Any] = typed.calls or {}
    if calls.get("batched"):
        lines.append(f"batch: {calls['batched']} request(s) answered through the batch API in this invocation "
                     "(ids in batches.json)")
    if calls.get("stopped"):
        lines.append(f"STOPPED AT THE BUDGET: {calls['stopped']}; the items finished so far are saved: "
                     "run the same command with a higher --max-cost to finish")
    elif typed.complete is False and (typed.calls or {}).get("unusable") and not (typed.calls or {}).get("failed"):
        lines.append(f"INCOMPLETE: most answers of a role were unusable, so these numbers are not a result; {RECOVER}")
    elif typed.complete is False:
        lines.append("INCOMPLETE: some model calls failed, so these numbers are not a result; "
                     "run the same command again to redo them (answered calls come from the cache)")
    lines.append(f"run folder: {Path(run_dir).resolve()}" if run_dir is not None else "run folder: none (pass --out to save)")
    return "\n".join(lines)
