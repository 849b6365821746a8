"""CLAIMCHECK's yardsticks, per task (issue 29).

- **WI** (weakness spans, ``f1_edit``/``f1_exact``): *shuffled pairing* — each review's
  predicted spans scored against the gold of another review (never the same review) —
  and, where a review has two or more annotators, the *human* row: one annotator's spans
  scored against another's, pooled like the metric (§3.4's inter-annotator agreement).
- **CA** (target claims): shuffled pairing *within the paper*: each weakness's predicted
  targets scored against another weakness of the same paper (a model that points at the
  paper's claims whatever the weakness says scores this); weaknesses of a paper with a
  single weakness are left out.
- **WL** (labels, Krippendorff α and exact agreement): the *majority label* of each scale
  and type answered for every weakness (exact, with the run's α).
- **WLE** (``rouge1_f1``, ``bertscore_f1`` of the revision against the original): each
  revision scored against another weakness's original (shuffled pairing).
- **CV** and **extract** have no gold in the run (an LLM judge's verdicts; claims checked
  against the paper text): no yardstick.

Span F1 is micro-averaged, and linear in the pairing (:func:`~noveval.metrics.yardsticks.
shuffled_micro_f1_yardstick`). Yardsticks use the gold the run recorded and its first seed.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from noveval.benchmarks.claimcheck.data import WEAKNESS_TYPES
from noveval.benchmarks.claimcheck.items import weakness_items
from noveval.benchmarks.claimcheck.options import ClaimcheckScoreOptions
from noveval.benchmarks.claimcheck.scoring import WL_LEVELS, _fail_kind, _gold, _index
from noveval.io import read_json, read_jsonl
from noveval.metrics.agreement import krippendorff_alpha
from noveval.metrics.spans import edit_similarity, exact_similarity, f1_edit, f1_exact, span_counts
from noveval.metrics.text import bertscore_f1, rouge_f1
from noveval.metrics.yardsticks import (
    pair_matrix,
    shuffled_matrix_yardstick,
    shuffled_micro_f1_yardstick,
    yardstick,
)

__all__ = ["baselines"]

NO_GOLD = {"cv": "CV verdicts come from an LLM judge, with no gold in the run: no yardstick",
           "extract": "extraction is checked against the paper text, with no gold claims: no yardstick"}


def _span_yardsticks(gold: list[list[str]], pred: list[list[str]], *, excluded: np.ndarray | None = None,
                     within: list[Any] | None = None, name: str, what: str) -> dict[str, list[dict[str, Any]]]:
    n = len(gold)
    out = {}
    for key, sim in (("f1_edit", edit_similarity), ("f1_exact", exact_similarity)):
        m = np.array([[span_counts(gold[j], pred[i], similarity=sim).matched for j in range(n)] for i in range(n)])
        y = shuffled_micro_f1_yardstick(m, [len(p) for p in pred], [len(g) for g in gold], excluded=excluded,
                                        within=within, name=name, what=what)
        if y is not None:
            out[key] = [y]
    return out


def _human_wi(annotations: list[Any]) -> dict[str, list[dict[str, Any]]]:
    """One annotator's spans against another's, on reviews with two or more annotators (pooled)."""
    by_review: dict[str, list[list[str]]] = {}
    for rec in annotations:
        by_review.setdefault(rec.key, []).append([w.text or "" for w in rec.weaknesses])
    gold, other = [], []
    for spans in by_review.values():
        for a in range(len(spans)):
            for b in range(a + 1, len(spans)):
                gold.append(spans[a])
                other.append(spans[b])
    if not gold:
        return {}
    how = f"exact: every pair of annotators of the same review ({len(gold)} pairs), micro-averaged"
    return {k: [yardstick("human (another annotator's spans)", "human", fn(gold, other), how)]
            for k, fn in (("f1_edit", f1_edit), ("f1_exact", f1_exact))}


def _wi(pred: dict[str, dict[str, Any]], annotations: list[Any]) -> dict[str, list[dict[str, Any]]]:
    recs = [a for a in annotations if a.key in pred]
    gold = [[w.text or "" for w in a.weaknesses] for a in recs]
    spans = [[w["text"] for w in pred[a.key].get("weaknesses", [])] for a in recs]
    keys = np.array([a.key for a in recs], dtype=object)
    out = _span_yardsticks(gold, spans, excluded=keys[:, None] == keys[None, :],
                           name="shuffled pairing (another review's gold)", what="")
    for k, ys in _human_wi(annotations).items():
        out.setdefault(k, []).extend(ys)
    return out


def _ca(pred: dict[str, dict[str, Any]], annotations: list[Any]) -> dict[str, list[dict[str, Any]]]:
    items = [it for it in weakness_items(annotations) if it.id in pred]
    sizes = Counter(it.paper_id for it in items)
    items = [it for it in items if sizes[it.paper_id] > 1]
    if len(items) < 2:
        return {}
    gold = [list(it.gold_targets) for it in items]
    spans = [[] if _fail_kind(pred[it.id]) else list(pred[it.id].get("target_texts", [])) for it in items]
    what = f"{len(items)} weaknesses of papers with two or more"
    return _span_yardsticks(gold, spans, within=[it.paper_id for it in items],
                            name="shuffled pairing (another weakness of the same paper)", what=what)


def _wl(pred: dict[str, dict[str, Any]], annotations: list[Any]) -> dict[str, list[dict[str, Any]]]:
    items = [it for it in weakness_items(annotations) if it.id in pred and it.gold_labels.get("types")]
    cols: dict[str, list[Any]] = {"agreement": [it.gold_labels.get("agreement") for it in items],
            "objectivity": [it.gold_labels.get("objectivity") for it in items],
            **{t: [t in it.gold_labels["types"] for it in items] for t in WEAKNESS_TYPES}}
    out: dict[str, list[dict[str, Any]]] = {}
    for name, vals in cols.items():
        known = [v for v in vals if v is not None]
        if not known:
            continue
        major = Counter(known).most_common(1)[0][0]
        g = np.array([np.nan if v is None else float(v) for v in vals])
        alpha = krippendorff_alpha(np.vstack([g, np.where(np.isnan(g), np.nan, float(major))]), level=WL_LEVELS[name])
        label = f"majority label (always {major})"
        out[f"alpha_{name}"] = [yardstick(label, "trivial", None if np.isnan(alpha) else alpha,
                                          f"exact: Krippendorff's alpha ({WL_LEVELS[name]}) of the constant answer")]
        if name in ("agreement", "objectivity"):
            out[f"{name}_exact"] = [yardstick(label, "trivial", sum(v == major for v in known) / len(known), "exact")]
    return out


def _wle(predictions: list[dict[str, Any]], metrics: dict[str, Any], seed: int) -> dict[str, list[dict[str, Any]]]:
    ok = [r for r in predictions if r.get("revised")]
    if len(ok) < 2:
        return {}
    revised, original = [r["revised"] for r in ok], [r["original"] for r in ok]
    fns = {"rouge1_f1": lambda p, g: rouge_f1(p, g, kind="rouge1"), "bertscore_f1": bertscore_f1}
    out = {}
    for key, fn in fns.items():
        if (metrics.get(key) or {}).get("mean") is None:
            continue
        y = shuffled_matrix_yardstick(pair_matrix(revised, original, fn), seed=seed,
                                      name="shuffled pairing (another weakness's original)")
        if y is not None:
            out[key] = [y]
    return out


def baselines(run_folder: Path | None, scores: dict[str, Any]) -> dict[str, list[dict[str, Any]]] | str:
    """CLAIMCHECK yardsticks of one task's run (see the module docstring).

    Args:
        run_folder: The run folder (predictions; its config names the gold annotations).
        scores: The run's ``scores.json`` dict (``task`` picks the yardsticks).
    """
    task = str(scores.get("task"))
    if task in NO_GOLD:
        return NO_GOLD[task]
    if run_folder is None or not (run_folder / "predictions.jsonl").is_file():
        return "the run folder is needed (its predictions and gold)"
    cfg = read_json(run_folder / "config.json") if (run_folder / "config.json").is_file() else {}
    rows = read_jsonl(run_folder / "predictions.jsonl")
    first = rows[0].get("seed") if rows else None
    rows = [r for r in rows if r.get("seed") == first]
    metrics = scores.get("metrics") or {}
    if task == "wle":
        out = _wle(rows, metrics, int((cfg.get("options") or {}).get("seed", 0)))
    else:
        anns = _gold(run_folder, task, cfg.get("inputs") or {}, ClaimcheckScoreOptions.model_validate({"task": task}))
        if not anns:
            return "the run records no gold annotations"
        fn = {"wi": _wi, "ca": _ca, "wl": _wl}[task]
        out = fn(_index(rows, "predictions.jsonl"), anns)
    return {k: v for k, v in out.items() if k in metrics}
