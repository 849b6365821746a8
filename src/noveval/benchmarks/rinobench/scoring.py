"""Score RINoBench predictions against gold items, with or without a judge (Section 4.2).

Output (``scores.json``, the toolkit's shape): ``metrics`` holds each metric's mean and
95% bootstrap CI: ``f1_macro`` (primary), ``f1_1``..``f1_5``, ``mean_absolute_error``,
``unparseable_rate`` and, with a judge, the ``mean_*`` justification metrics.
``extra.evaluation`` is the paper's published evaluation-file format
(``f1_scores{1..5,macro}``, ``mean_absolute_error``, ``mean_alignment``, ...), also
written as ``evaluation.json``. ``extra`` also holds the confusion matrix (with an
``unparseable`` column), the predicted and gold score distributions (Section 5: models
avoid 1 and 5), the unparseable count and rule, alignment modes and judge failures.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from noveval.benchmarks.rinobench import BENCHMARK
from noveval.benchmarks.rinobench.data import Prediction, RINoBenchItem
from noveval.benchmarks.rinobench.judge import JUSTIFICATION_METRICS, JudgeOptions, ajudge_item
from noveval.errors import InputError
from noveval.io import write_json
from noveval.metrics import rinobench as M
from noveval.metrics.bootstrap import bootstrap_ci, summarize
from noveval.models.chat import ChatClientProtocol
from noveval.runs import run_items, text_sha

__all__ = ["UNPARSEABLE_RULE", "align_predictions", "per_item_rows", "aggregate", "ascore"]

UNPARSEABLE_RULE = (
    "An unparseable prediction (no score in 1..5) is kept: it counts as wrong for F1 (a false "
    "negative of its gold class, a false positive of none). mean_absolute_error averages over "
    "parsed predictions only; mean_absolute_error_unparseable_worst charges each unparseable "
    "prediction the largest possible error max(g-1, 5-g). n_unparseable is reported."
)


def align_predictions(
    items: Sequence[RINoBenchItem], predictions: Sequence[Prediction], *, path: str | Path | None = None
) -> list[tuple[RINoBenchItem, Prediction]]:
    """Pair gold items with predictions: by id when every prediction has one, else by order.

    Raises:
        InputError: counts differ (order alignment), or an id is missing / unknown.
    """
    if predictions and all(p.id is not None for p in predictions):
        by_id = {p.id: p for p in predictions}
        gold_ids = {it.id for it in items}
        unknown = [i for i in by_id if i not in gold_ids]
        if unknown:
            raise InputError(path, None, "id", f"prediction id {unknown[0]!r} is not in the gold file")
        missing = [it.id for it in items if it.id not in by_id]
        if missing:
            raise InputError(path, None, "id", f"no prediction for gold item {missing[0]!r} ({len(missing)} missing)")
        return [(it, by_id[it.id]) for it in items]
    if len(items) != len(predictions):
        raise InputError(
            path, None, None,
            f"{len(predictions)} predictions for {len(items)} gold items; files without ids are aligned by order and must have the same length",
        )
    return list(zip(items, predictions, strict=True))


def per_item_rows(pairs: Sequence[tuple[RINoBenchItem, Prediction]], judgments: dict[str, dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """One row per item: gold/predicted score, parse status, error, correctness, judge metrics."""
    rows = []
    for it, p in pairs:
        g = it.novelty_score
        row: dict[str, Any] = {
            "id": it.id,
            "gold_score": g,
            "predicted_score": p.novelty_score,
            "parse_status": "ok" if p.novelty_score is not None else (p.parse_status if p.parse_status != "ok" else "unparseable"),
            "correct": float(p.novelty_score == g),
            "absolute_error": None if p.novelty_score is None or g is None else float(abs(p.novelty_score - g)),
            "unparseable": float(p.novelty_score is None),
        }
        sc = (p.model_extra or {}).get("self_consistency")
        if isinstance(sc, (int, float)) and not isinstance(sc, bool):  # --samples N: share of samples agreeing
            row["self_consistency"] = float(sc)
        if judgments is not None:
            j = judgments.get(str(it.id)) or {}
            m = j.get("metrics") or {}
            for name in JUSTIFICATION_METRICS:
                row[name] = m.get(name)
            row["alignment_mode"] = j.get("alignment_mode")
            row["judge_failures"] = len(j.get("failures") or [])
        rows.append(row)
    return rows


def _ci(n: int, stat: Any, *, n_resamples: int, seed: int) -> tuple[float | None, float | None]:
    if n == 0:
        return None, None
    lo, hi = bootstrap_ci(np.arange(n, dtype=float), statistic=lambda idx: stat(idx.astype(int)), n_resamples=n_resamples, seed=seed)
    return (None if np.isnan(lo) else lo), (None if np.isnan(hi) else hi)


def aggregate(
    rows: Sequence[dict[str, Any]],
    *,
    judged: bool,
    f1_labels: M.F1Labels = "fixed",
    n_resamples: int = 1000,
    seed: int = 0,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Aggregate per-item rows into ``(metrics, extra)`` for ``scores.json``.

    Args:
        rows: Rows of :func:`per_item_rows`.
        judged: Whether the rows carry justification metrics.
        f1_labels: ``"fixed"`` (classes 1..5) or ``"present"`` (the released
            ``eval.py``: macro over the classes in gold or predictions, per-class F1
            only for the gold classes); see :func:`noveval.metrics.rinobench.f1_labels`.
            In ``"present"`` mode each bootstrap resample uses the classes present in it.
        n_resamples: Bootstrap resamples.
        seed: Bootstrap seed.
    """
    gold = [int(r["gold_score"]) for r in rows]
    pred = [r["predicted_score"] for r in rows]
    n = len(rows)
    g_arr = np.array(gold)
    p_arr = np.array(pred, dtype=object)
    metrics: dict[str, Any] = {}

    def add(name: str, value: float, stat: Any) -> None:
        lo, hi = _ci(n, stat, n_resamples=n_resamples, seed=seed)
        metrics[name] = {"mean": None if np.isnan(value) else float(value), "ci_low": lo, "ci_high": hi, "n": n}

    f1 = M.f1_scores(gold, pred, labels=f1_labels)
    add("f1_macro", f1["macro"], lambda ix: M.macro_f1(g_arr[ix].tolist(), p_arr[ix].tolist(), labels=f1_labels))
    for c in M.SCORE_LABELS:
        if str(c) in f1:
            add(f"f1_{c}", f1[str(c)], lambda ix, c=c: M.per_class_f1(g_arr[ix].tolist(), p_arr[ix].tolist(), labels=(c,))[c])
    metrics.update(summarize(rows, ["absolute_error", "unparseable"], n_resamples=n_resamples, seed=seed))
    metrics["mean_absolute_error"] = metrics.pop("absolute_error")
    metrics["unparseable_rate"] = metrics.pop("unparseable")
    if any("self_consistency" in r for r in rows):  # --samples N (issue 18)
        metrics.update(summarize(rows, ["self_consistency"], n_resamples=n_resamples, seed=seed))
    mae_worst = M.mean_absolute_error(gold, pred, unparseable="worst")
    add("mean_absolute_error_unparseable_worst", mae_worst, lambda ix: M.mean_absolute_error(g_arr[ix].tolist(), p_arr[ix].tolist(), unparseable="worst"))
    evaluation: dict[str, Any] = {"f1_scores": f1, "mean_absolute_error": metrics["mean_absolute_error"]["mean"]}
    macro_labels, _ = M.f1_labels(gold, pred, mode=f1_labels)
    extra: dict[str, Any] = {
        "f1_labels": f1_labels,
        "f1_macro_labels": macro_labels,
        "n_items": n,
        "n_unparseable": int(sum(p is None for p in pred)),
        "unparseable_rule": UNPARSEABLE_RULE,
        "parse_status_counts": dict(Counter(r["parse_status"] for r in rows)),
        "confusion_matrix": M.confusion_matrix(gold, pred),
        "confusion_matrix_axes": "rows: gold score; columns: predicted score (+ unparseable)",
        "predicted_score_distribution": M.score_distribution(pred),
        "gold_score_distribution": M.score_distribution(gold),
        "extreme_scores_share": {
            "predicted": (sum(p in (1, 5) for p in pred) / n) if n else None,
            "gold": (sum(g in (1, 5) for g in gold) / n) if n else None,
        },
    }
    if judged:
        just = summarize(rows, list(JUSTIFICATION_METRICS), n_resamples=n_resamples, seed=seed)
        for name in JUSTIFICATION_METRICS:
            metrics[f"mean_{name}"] = just[name]
            evaluation[f"mean_{name}"] = just[name]["mean"]
        extra["alignment_modes"] = dict(Counter(str(r.get("alignment_mode")) for r in rows))
        extra["items_with_judge_failures"] = int(sum(1 for r in rows if r.get("judge_failures")))
    extra["evaluation"] = evaluation
    return metrics, extra


async def _judgments(pairs: list[tuple[RINoBenchItem, Prediction]], judge: ChatClientProtocol, opts: JudgeOptions, run: Any,
                     progress: str | None) -> dict[str, dict[str, Any]]:
    """The judge's verdicts per item id (resumable in ``run``'s ``judgments.jsonl`` when given)."""


    sha = {str(it.id): text_sha(pred.reasoning or "") for it, pred in pairs}  # what each judgment judged

    async def worker(pair: tuple[RINoBenchItem, Prediction]) -> dict[str, Any]:
        return {**await ajudge_item(judge, pair[0], pair[1], options=opts), "prediction_sha": sha[str(pair[0].id)]}

    if run is not None:
        # a prediction asked again (its first answer was unusable) is judged again
        jrows = await run_items(run, "judgments", pairs, worker, id_of=lambda pr: str(pr[0].id), progress=progress,
                                client=judge, redo=lambda r: r.get("prediction_sha", sha.get(str(r["id"]))) != sha.get(str(r["id"])))
    else:
        jrows = list(await asyncio.gather(*(worker(pr) for pr in pairs)))
    return {str(r["id"]): r for r in jrows}


async def ascore(
    items: Sequence[RINoBenchItem],
    predictions: Sequence[Prediction],
    *,
    run: Any = None,
    judge: ChatClientProtocol | None = None,
    judge_options: JudgeOptions | None = None,
    predictions_path: str | Path | None = None,
    model: str | None = None,
    f1_labels: M.F1Labels = "fixed",
    protocol: str | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
    progress: str | None = "rinobench: judging justifications",
) -> dict[str, Any]:
    """Score predictions (and, with ``judge``, their justifications) against gold items.

    Args:
        items: Gold items (``novelty_score`` and ``novelty_reasoning`` required).
        predictions: Predictions, aligned by id or by order (:func:`align_predictions`).
        run: A :class:`~noveval.runs.RunDir`; when given, judgments are resumable and
            ``judgments.jsonl``, ``per_item.jsonl``, ``scores.json`` and
            ``evaluation.json`` are written there.
        judge: A judge chat client, or None for the score metrics only.
        judge_options: Judge settings.
        predictions_path: For error messages.
        model: Name of the model being scored (for ``scores.json``).
        f1_labels: ``"fixed"`` (classes 1..5, default) or ``"present"`` (the released
            evaluation: :func:`noveval.metrics.rinobench.f1_labels`).
        protocol: Generation protocol of the predictions (``"noveval"`` or ``"paper"``),
            recorded in ``extra.protocol``; None when unknown (saved predictions).
        n_resamples: Bootstrap resamples.
        seed: Bootstrap seed.
        progress: Progress label for judging.

    Returns:
        The ``scores.json`` dict.

    Raises:
        InputError: gold without score/justification, or misaligned predictions.
    """
    for i, it in enumerate(items):
        if it.novelty_score is None:
            raise InputError(None, None, f"[{i}].novelty_score", "gold file: score is missing")
        if judge is not None and not (it.novelty_reasoning or "").strip():
            raise InputError(None, None, f"[{i}].novelty_reasoning", "gold file: justification is missing (needed by the judge)")
    pairs = align_predictions(items, predictions, path=predictions_path)
    judgments = None if judge is None else await _judgments(pairs, judge, judge_options or JudgeOptions(), run, progress)
    rows = per_item_rows(pairs, judgments)
    metrics, extra = aggregate(rows, judged=judge is not None, f1_labels=f1_labels, n_resamples=n_resamples, seed=seed)
    extra["protocol"] = protocol
    if judge is not None:
        extra["judge"] = judge.model_id
        extra["judge_options"] = (judge_options or JudgeOptions()).model_dump()
        extra["judge_cache"] = judge.stats
        extra["judge_failures_by_step"] = dict(
            Counter(f["step"] for r in (judgments or {}).values() for f in r.get("failures") or [])
        )

    scores = BENCHMARK.make_scores(model, metrics, extra=extra, cache=judge.stats if judge is not None else {})
    lower = {"mean_absolute_error", "mean_absolute_error_unparseable_worst", "unparseable_rate",
             "mean_known_aspects_hallucination_rate", "mean_novelty_aspects_hallucination_rate"}
    neutral = {"mean_additional_known_aspects_ratio", "mean_additional_novelty_aspects_ratio"}
    extra["greater_is_better_by_metric"] = {
        k: (None if k in neutral else k not in lower) for k in metrics
    }
    if run is not None:
        run.write("per_item", rows)
        run.write_scores(scores)
        write_json(Path(run.path) / "evaluation.json", extra["evaluation"])
    return scores
