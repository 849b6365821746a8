"""Score CLAIMCHECK predictions against gold annotations (§3.4, §4.1-4.3).

| task    | metrics (primary first)                                            | paper |
|---------|--------------------------------------------------------------------|-------|
| extract | ``verified_rate`` (claims that are exact substrings), claims/paper | §3.2  |
| wi      | ``f1_edit``, ``f1_exact`` of weakness spans vs. each gold annotator | §3.4  |
| ca      | ``f1_edit``, ``f1_exact`` of target-claim texts                    | §4.1  |
| wl      | Krippendorff alpha: ordinal agreement/objectivity, nominal types   | Tab. 5|
| cv      | proportions ``same`` / ``similar`` / ``different``                 | §4.2  |
| wle     | ``win`` / ``tie`` / ``loss`` rate, ``rouge1_f1``, ``bertscore_f1``  | Tab. 6|

Span F1 is micro-averaged over items, so its 95% CI comes from resampling items and
recomputing the micro F1 (likewise alpha); rates and means use the per-item bootstrap
of :func:`noveval.metrics.bootstrap.summarize`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from noveval.benchmarks.claimcheck.data import WEAKNESS_TYPES, ReviewAnnotation
from noveval.errors import InputError

__all__ = ["score_predictions", "score_run", "WL_LEVELS"]

WL_LEVELS: dict[str, Any] = {"agreement": "ordinal", "objectivity": "ordinal",
                             **{t: "nominal" for t in WEAKNESS_TYPES}}
"""Alpha level per WL label (Table 2/5: ordinal scales, nominal binary types)."""


def _ci(n: int, statistic: Callable[[np.ndarray], float], seed: int = 0,
        n_resamples: int = 1000) -> dict[str, Any]:
    """Statistic over item indices ``0..n-1`` with a 95% percentile bootstrap CI.

    Resamples where the statistic is undefined (nan, e.g. alpha with one value) are
    left out of the quantiles.
    """
    if n == 0:
        return {"mean": None, "ci_low": None, "ci_high": None, "n": 0}
    value = float(statistic(np.arange(n)))
    rng = np.random.default_rng(seed)
    stats = np.array([statistic(rng.integers(0, n, size=n)) for _ in range(n_resamples)], dtype=float)
    stats = stats[~np.isnan(stats)]
    lo, hi = (np.quantile(stats, [0.025, 0.975]) if stats.size else (np.nan, np.nan))

    def clean(v: float) -> float | None:
        return None if np.isnan(v) else float(v)

    return {"mean": clean(value), "ci_low": clean(lo), "ci_high": clean(hi), "n": n}


def _span_metrics(gold: list[list[str]], pred: list[list[str]]) -> dict[str, dict]:
    from noveval.metrics.spans import f1_edit, f1_exact

    out = {}
    for name, fn in (("f1_edit", f1_edit), ("f1_exact", f1_exact)):
        def stat(ix: np.ndarray, fn: Callable = fn) -> float:
            return fn([gold[i] for i in ix], [pred[i] for i in ix])

        out[name] = _ci(len(gold), stat)
    return out


def _index(rows: Sequence[dict], path: str) -> dict[str, dict]:
    out = {}
    for k, r in enumerate(rows):
        if "id" not in r:
            raise InputError(path, k + 1, "id", "prediction row without id")
        out[str(r["id"])] = r
    return out


def score_predictions(
    task: str,
    predictions: list[dict],
    *,
    annotations: list[ReviewAnnotation] | None = None,
    judgments: list[dict] | None = None,
    predictions_path: str = "predictions.jsonl",
    bertscore: bool = True,
) -> tuple[list[dict], dict[str, dict], dict[str, Any]]:
    """Score prediction rows of one task.

    Args:
        task: ``extract``, ``wi``, ``ca``, ``wl``, ``cv`` or ``wle``.
        predictions: Rows of ``predictions.jsonl``.
        annotations: Gold annotations (needed by wi, ca, wl).
        judgments: Judgment rows (CV verdicts when not embedded; WLE preferences, model
            or human).
        predictions_path: For error messages.
        bertscore: Compute BERTScore for WLE (loads the bundled MiniLM).

    Returns:
        ``(per_item_rows, metrics, extra)``; ``metrics`` maps name to
        ``{"mean", "ci_low", "ci_high", "n"}``.
    """
    from noveval.metrics.bootstrap import summarize

    extra: dict[str, Any] = {}
    per: list[dict] = []
    if task == "extract":
        for r in predictions:
            n_ok, n_bad = len(r.get("claims", [])), len(r.get("unverified", []))
            per.append({"id": r["id"], "n_claims": n_ok, "n_unverified": n_bad,
                        "n_failed_chunks": len(r.get("failures", [])),
                        "verified_rate": n_ok / (n_ok + n_bad) if n_ok + n_bad else None})
        return per, summarize(per, ["verified_rate", "n_claims", "n_unverified", "n_failed_chunks"]), extra

    if task in ("wi", "ca", "wl") and not annotations:
        raise InputError(None, None, "annotations", f"scoring {task} needs gold annotations")
    pred = _index(predictions, predictions_path)

    if task == "wi":
        gold_l: list[list[str]] = []
        pred_l: list[list[str]] = []
        for rec in annotations or []:
            row = pred.get(rec.key)
            if row is None:
                continue
            g = [w.text or "" for w in rec.weaknesses]
            p = [w["text"] for w in row.get("weaknesses", [])]
            gold_l.append(g)
            pred_l.append(p)
            per.append({"id": f"{rec.key}/{rec.annotator}", "annotator": rec.annotator,
                        "n_gold": len(g), "n_pred": len(p), "n_unverified": len(row.get("unverified", []))})
        extra["unscored_reviews"] = sorted(set(pred) - {a.key for a in annotations or []})
        return per, _span_metrics(gold_l, pred_l), extra

    from noveval.benchmarks.claimcheck.items import weakness_items

    if task == "ca":
        gold_l, pred_l = [], []
        for it in weakness_items(annotations or []):
            row = pred.get(it.id)
            if row is None:
                continue
            gold_l.append(it.gold_targets)
            pred_l.append(row.get("target_texts", []))
            per.append({"id": it.id, "n_gold": len(it.gold_targets), "n_pred": len(pred_l[-1]),
                        "failed": row.get("error") is not None})
        return per, _span_metrics(gold_l, pred_l), extra

    if task == "wl":
        from noveval.metrics.agreement import krippendorff_alpha

        gold_m: list[list[float]] = []
        pred_m: list[list[float]] = []
        for it in weakness_items(annotations or []):
            row = pred.get(it.id)
            if row is None or not it.gold_labels.get("types"):
                continue
            gl: dict = it.gold_labels
            gv = [gl.get("agreement"), gl.get("objectivity"), *[t in gl["types"] for t in WEAKNESS_TYPES]]
            pv = [row.get("agreement"), row.get("objectivity"),
                  *[t in (row.get("types") or []) for t in WEAKNESS_TYPES]]
            if row.get("objectivity") is None:
                pv = [None] * len(pv)
            gold_m.append([np.nan if v is None else float(v) for v in gv])
            pred_m.append([np.nan if v is None else float(v) for v in pv])
            per.append({"id": it.id, "failed": row.get("error") is not None,
                        "agreement_exact": None if pv[0] is None else float(pv[0] == gv[0]),
                        "objectivity_exact": None if pv[1] is None else float(pv[1] == gv[1])})
        G, P = np.array(gold_m).reshape(-1, 2 + len(WEAKNESS_TYPES)), np.array(pred_m).reshape(-1, 2 + len(WEAKNESS_TYPES))
        metrics = {}
        for col, (name, level) in enumerate(WL_LEVELS.items()):
            def alpha(ix: np.ndarray, col: int = col, level: Any = level) -> float:
                return krippendorff_alpha(np.vstack([G[ix, col], P[ix, col]]), level=level)

            metrics[f"alpha_{name}"] = _ci(len(G), alpha)
        metrics.update(summarize(per, ["agreement_exact", "objectivity_exact"]))
        return per, metrics, extra

    if task == "cv":
        jud = _index(judgments, "judgments.jsonl") if judgments else {}
        for r in predictions:
            j: dict = r.get("judgment") or {}
            j = j or jud.get(str(r["id"])) or {} or jud.get(str(r["id"])) or {}
            v = j.get("verdict")
            per.append({"id": r["id"], "verdict": v,
                        **{k: (None if v is None else float(v == k)) for k in ("same", "similar", "different")}})
        extra["failed"] = sum(p["verdict"] is None for p in per)
        return per, summarize(per, ["same", "similar", "different"]), extra

    if task == "wle":
        from noveval.metrics.text import bertscore_f1, rouge_f1

        jud = _index(judgments, "judgments.jsonl") if judgments else {}
        ok = [r for r in predictions if r.get("revised")]
        r1 = rouge_f1([r["revised"] for r in ok], [r["original"] for r in ok], kind="rouge1") if ok else []
        bs = bertscore_f1([r["revised"] for r in ok], [r["original"] for r in ok]) if ok and bertscore else [None] * len(ok)
        by_id = {r["id"]: (a, b) for r, a, b in zip(ok, r1, bs, strict=True)}
        for r in predictions:
            jw: dict = jud.get(str(r["id"]), {})
            o = jw.get("outcome")
            a, b = by_id.get(r["id"], (None, None))
            per.append({"id": r["id"], "outcome": o, "rouge1_f1": a, "bertscore_f1": b,
                        **{k: (None if o is None else float(o == k)) for k in ("win", "tie", "loss")}})
        extra["judge"] = sorted({j.get("judge", "model") for j in jud.values()}) if jud else []
        extra["bertscore_model"] = "bundled all-MiniLM-L6-v2, layer 6, no rescaling" if bertscore else None
        return per, summarize(per, ["win", "tie", "loss", "rouge1_f1", "bertscore_f1"]), extra

    raise InputError(None, None, "task", f"unknown task {task!r}")


PRIMARY = {"extract": "verified_rate", "wi": "f1_edit", "ca": "f1_edit",
           "wl": "alpha_agreement", "cv": "same", "wle": "win"}


def score_run(
    run_dir: str | Path,
    *,
    annotations: str | Path | None = None,
    data_dir: str | Path | None = None,
    papers_file: str | Path | None = None,
    judgments: str | Path | None = None,
    task: str | None = None,
    bertscore: bool = True,
) -> dict[str, Any]:
    """Score a run directory and write ``per_item.jsonl`` and ``scores.json``.

    Args:
        run_dir: A run directory (``config.json`` + ``predictions.jsonl``), or a folder
            holding a ``predictions.jsonl`` made elsewhere (then pass ``task``).
        annotations: Gold annotation file (default: the one recorded in the config).
        data_dir: Shared data folder for texts given as offsets.
        papers_file: Papers file instead of the shared data.
        judgments: A judgments file to use instead of the run's (e.g. human WLE choices
            from ``wle-import``).
        task: Task name when there is no ``config.json``.
        bertscore: Compute BERTScore for WLE.

    Returns:
        The ``scores.json`` content.
    """
    from noveval.benchmarks.claimcheck.data import load_annotations, load_papers_file
    from noveval.io import read_json, read_jsonl
    from noveval.runs import RunDir

    run_dir = Path(run_dir)
    cfg_path = run_dir / "config.json"
    cfg = read_json(cfg_path) if cfg_path.exists() else {}
    task = task or cfg.get("task")
    if task is None:
        raise InputError(run_dir, None, "task", "no config.json: pass the task")
    pred_path = run_dir / "predictions.jsonl"
    if not pred_path.exists():
        raise InputError(pred_path, None, None, "predictions file not found")
    predictions = read_jsonl(pred_path)
    inputs = cfg.get("inputs") or {}
    ann_path = annotations or inputs.get("annotations")
    papers_file = papers_file or inputs.get("papers_file")
    anns = None
    if ann_path and task in ("wi", "ca", "wl"):
        papers = load_papers_file(papers_file) if papers_file else None
        anns = load_annotations(ann_path, data_dir=data_dir or inputs.get("data_dir"), papers=papers)
    jpath = Path(judgments) if judgments else run_dir / "judgments.jsonl"
    jrows = read_jsonl(jpath, allow_empty=True) if jpath.exists() else None
    per, metrics, extra = score_predictions(task, predictions, annotations=anns, judgments=jrows,
                                            predictions_path=str(pred_path), bertscore=bertscore)
    scores = {"benchmark": "claimcheck", "task": task, "model": cfg.get("model"),
              "judge": cfg.get("judge"), "metrics": metrics, "primary_metric": PRIMARY[task],
              "greater_is_better": True, "extra": extra}
    run = RunDir(run_dir)
    run.write("per_item", per)
    run.write_scores(scores)
    return scores
