"""Runs of one system under several prompt variants, compared item by item.

:func:`compare_variants` is :func:`~noveval.compare.core.compare_runs` over the runs of
``noveval run rinobench --prompt-variants`` (or any runs that differ by their prompts),
labelled by variant: the per-item flip rate with its CI, pairwise agreement,
self-consistency and Krippendorff's alpha of the answers, and each metric's spread
across the variants (with two runs too: min, max, range and SD of the pair). It writes
the comparison as ``variants.json`` beside the runs; :class:`PromptVariants` is also the
command's terminal view (one line per variant, then the comparison).

Runs on items without gold scores have no ``per_item.jsonl`` (nothing to score); their
answers are read from ``predictions.jsonl`` (the predictions field the system declares)
and compared alone: flip rate, agreement, self-consistency and alpha need no gold, while
every metric, its spread and the leaderboard are absent. Their completeness is the call
outcome the run folder's ``calls.json`` recorded (no ``scores.json`` to hold it).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from noveval.compare.agreement import declared_answer, metric_spread
from noveval.compare.core import CompareRun, Comparison, _read_object, compare_loaded, compare_runs
from noveval.compare.text import format_comparison
from noveval.errors import InputError
from noveval.io import iter_jsonl, write_json
from noveval.models.calls import CALLS_FILE

__all__ = ["VARIANTS_FILE", "PromptVariants", "answers_run", "compare_variants"]

VARIANTS_FILE = "variants.json"
"""File (in the folder that holds the variants' runs) with the comparison."""


@dataclass
class PromptVariants:
    """The variants' runs and their comparison.

    Attributes:
        runs: ``{label: run folder}``, the baseline first.
        comparison: The comparison (:class:`~noveval.compare.core.Comparison`), its runs
            labelled by variant.
        path: Where ``variants.json`` was written (None: not written).
    """

    runs: dict[str, Path]
    comparison: Comparison
    path: Path | None = None

    @property
    def run_dirs(self) -> list[Path]:
        """The run folders, baseline first (the CLI marks each complete or incomplete)."""
        return list(self.runs.values())

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict: the variants (folder, changed prompt hashes, completeness, calls) and the comparison."""
        c = self.comparison
        base = c.runs[0].config.get("prompts") or {}
        variants = {}
        for r in c.runs:
            prompts = r.config.get("prompts") or {}
            variants[r.label] = {
                "path": str(r.path),
                "prompts_changed": {k: v for k, v in prompts.items() if base.get(k) != v},
                "complete": r.complete,
                "calls": r.scores.get("calls"),
            }
        return {"kind": "prompt_variants", "baseline": c.runs[0].label, "variants": variants, **c.to_dict()}

    def summary(self) -> str:
        """Terminal text: one line per variant (primary metric, model calls), then the comparison."""
        c = self.comparison
        primary = c.runs[0].scores.get("primary_metric")
        model = c.runs[0].model or "model not recorded"
        lines = [f"prompt variants · {c.system} · model {model} · {len(c.common)} items · baseline {c.runs[0].label}"]
        base = c.runs[0].config.get("prompts") or {}
        width = max(len(r.label) for r in c.runs)
        for r in c.runs:
            changed = {k: v for k, v in (r.config.get("prompts") or {}).items() if base.get(k) != v}
            prompts = ", ".join(f"{k} {v}" for k, v in changed.items()) or "shipped prompts"
            m = (r.scores.get("metrics") or {}).get(primary) if isinstance(primary, str) else None
            mean = m.get("mean") if isinstance(m, dict) else None
            value = (f"{primary} {mean:.3f}" if isinstance(mean, (int, float)) else
                     "no metric (no gold)" if not r.scores.get("metrics") else "no primary metric value")
            calls = r.scores.get("calls") or {}
            state = "" if r.complete else "  INCOMPLETE (model calls failed)"
            lines.append(f"  {r.label:<{width}}  {value}  · model calls {calls.get('requests', '?')} "
                         f"({calls.get('cache_hits', '?')} from the cache, {calls.get('failed', '?')} failed)"
                         f"  · {prompts}{state}")
        lines.append(format_comparison(c))
        if self.path is not None:
            lines.append(f"comparison: {self.path.resolve()}")
        return "\n".join(lines)


def _pair_spread(c: Comparison) -> dict[str, dict[str, Any]]:
    """Two runs: each compared metric's spread from the pair table (three or more: ``compare_runs`` has it)."""
    a, b = (r.label for r in c.runs)
    return {m.name: metric_spread({a: m.result.a, b: m.result.b}) for m in c.metrics
            if not (math.isnan(m.result.a) and math.isnan(m.result.b))}


def answers_run(path: str | Path, label: str) -> CompareRun:
    """A run folder without gold read for comparison: its answers from ``predictions.jsonl``.

    Each row holds the item's ``id``, its answer under the per-item answer name of
    :func:`~noveval.compare.agreement.declared_answer` (RINoBench: ``predicted_score``, read from
    the predictions' ``novelty_score``; None when unparseable or failed) and its
    ``error``. No metric is planned. ``scores`` holds the benchmark and model of
    ``config.json`` and the last call outcome of ``calls.json`` (``complete``, ``calls``);
    a row with an ``error`` makes the run incomplete too.

    Args:
        path: The run folder.
        label: Its label.

    Raises:
        InputError: not a run folder of a system with a predicted answer, no
            ``predictions.jsonl``, a row that is not an object or has no ``id``, a
            repeated id, damaged JSON.
    """
    p = Path(path)
    if not p.is_dir():
        raise InputError(p, None, None, "no such run folder" if not p.exists() else "is a file, expected a run folder")
    config = _read_object(p / "config.json")
    system = config.get("benchmark")
    declared = declared_answer(system) if isinstance(system, str) else None
    if not isinstance(system, str) or declared is None or declared[2] is None:
        raise InputError(p / "config.json", None, "benchmark", f"{system!r} runs without gold cannot be compared: its "
                         "declaration names no predicted answer")
    answer, _, field = declared
    preds = p / "predictions.jsonl"
    if not preds.is_file():
        raise InputError(preds, None, None, "missing: the run made no prediction")
    rows: dict[str, list[dict[str, Any]]] = {}
    lines: dict[str, int] = {}
    for line, obj in iter_jsonl(preds):
        if not isinstance(obj, dict):
            raise InputError(preds, line, None, f"expected a JSON object, got {type(obj).__name__}")
        rid = obj.get("id")
        if rid is None or isinstance(rid, (dict, list, bool)):
            raise InputError(preds, line, "id", "missing: compare matches items by id")
        if str(rid) in rows:
            raise InputError(preds, line, "id", f"duplicate id {str(rid)!r} (also on line {lines[str(rid)]})")
        rows[str(rid)] = [{"id": str(rid), answer: obj.get(field), "error": obj.get("error")}]
        lines[str(rid)] = line
    if not rows:
        raise InputError(preds, None, None, "file is empty: no items to compare")
    last = _read_object(p / CALLS_FILE).get("last")
    last = last if isinstance(last, dict) else {}
    failed_rows = any(r[0]["error"] for r in rows.values())
    model = config.get("model")
    model = model.get("model_id") if isinstance(model, dict) else model
    scores = {"benchmark": system, "model": model,
              "complete": last.get("complete") is not False and not failed_rows,
              "calls": {k: v for k, v in last.items() if k != "complete"} or None}
    return CompareRun(label=label, path=p, system=system, task=None, model=str(model) if model else None,
                      config=config, scores=scores, rows=rows, lines=lines)


def compare_variants(
    runs: Mapping[str, str | Path],
    *,
    out: str | Path | None = None,
    n_resamples: int = 10_000,
    n_permutations: int = 10_000,
    seed: int = 0,
) -> PromptVariants:
    """Compare the runs of several prompt variants item by item.

    The same statistics as ``noveval compare`` (and the report) with the same defaults:
    per-item flip rate (share of items not answered alike by every variant, in [0, 1];
    0 = no flip) with a 95% bootstrap CI, pairwise agreement and self-consistency (in
    [0, 1], 1 = every variant answers alike), Krippendorff's alpha (in [-1, 1], 1 = full
    agreement), and each metric's value per variant with its spread (min, max, range and
    SD across variants; 0 = the wording does not move it). With three or more runs, the
    leaderboard of the primary metric with Holm-corrected tests against the best run.
    When any run has no ``per_item.jsonl`` (items without gold), every run's answers are
    read from its predictions (:func:`answers_run`) and only the answer agreement is
    computed; a note says so.

    Args:
        runs: ``{label: run folder}`` (:func:`noveval.benchmarks.rinobench.run_prompt_variants`
            returns it), two or more, the baseline first.
        out: Write the comparison to ``out/variants.json`` (None: write nothing).
        n_resamples: Bootstrap resamples (>= 100).
        n_permutations: Random swaps of the permutation test (>= 100; exact when 2^n is fewer).
        seed: Seed of every resampling.

    Returns:
        A :class:`PromptVariants` (``.comparison.agreement.flip_rate``, ``.to_dict()``).

    Raises:
        InputError: as :func:`~noveval.compare.core.compare_runs` (e.g. runs of different
            systems or gold), or :func:`answers_run` for runs without gold.
    """
    labels = list(runs)
    paths = [Path(p) for p in runs.values()]
    if all((p / "per_item.jsonl").is_file() for p in paths):
        comp = compare_runs(paths, labels=labels, n_resamples=n_resamples, n_permutations=n_permutations, seed=seed)
    else:  # items without gold: the answers alone
        comp = compare_loaded([answers_run(p, lab) for p, lab in zip(paths, labels, strict=True)],
                              n_resamples=n_resamples, n_permutations=n_permutations, seed=seed)
        comp.notes.insert(0, "no gold scores: the variants' answers are compared from predictions.jsonl "
                          "(flip rate, agreement, self-consistency, alpha); no metric, spread or leaderboard")
    if not comp.spread and len(comp.runs) == 2:
        comp.spread = _pair_spread(comp)
    view = PromptVariants(runs={k: Path(v) for k, v in runs.items()}, comparison=comp)
    if out is not None:
        view.path = Path(out) / VARIANTS_FILE
        write_json(view.path, view.to_dict())
    return view
