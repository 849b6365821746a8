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
of :func:`noveval.metrics.bootstrap.summarize`. WI and CA rows keep each item's aligned
similarity (``matched_edit``, ``matched_exact``) beside ``n_gold`` / ``n_pred``, so the
micro F1 of any set of items is recomputed from the rows (``noveval compare``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from noveval.benchmarks.claimcheck import BENCHMARK
from noveval.benchmarks.claimcheck.data import (
    WEAKNESS_TYPES,
    ReviewAnnotation,
    load_annotations,
    load_papers_file,
)
from noveval.benchmarks.claimcheck.items import weakness_items
from noveval.benchmarks.claimcheck.options import ClaimcheckScoreOptions
from noveval.benchmarks.claimcheck.wl import SAMPLED
from noveval.benchmarks.claimcheck.wle import anchor_retention
from noveval.errors import InputError
from noveval.io import read_json, read_jsonl
from noveval.metrics.agreement import krippendorff_alpha
from noveval.metrics.spans import exact_similarity, f1_edit, f1_exact, span_counts
from noveval.metrics.text import bertscore_f1, rouge_f1
from noveval.runs import RunDir

__all__ = ["score_predictions", "score_run", "wl_consistency", "WL_LEVELS"]

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


Stat = Callable[[np.ndarray], float]


def _nanmean(values: list[float | None]) -> Stat:
    """Mean over the given item indices, items without a value left out (nan if none)."""
    arr = np.array([np.nan if v is None else float(v) for v in values], dtype=float)

    def stat(ix: np.ndarray) -> float:
        sub = arr[ix]
        sub = sub[~np.isnan(sub)]
        return float(sub.mean()) if sub.size else float("nan")

    stat.n_values = int((~np.isnan(arr)).sum())  # type: ignore[attr-defined]  # the n to report
    return stat


def _span_stats(gold: list[list[str]], pred: list[list[str]]) -> dict[str, Stat]:
    out: dict[str, Stat] = {}
    for name, fn in (("f1_edit", f1_edit), ("f1_exact", f1_exact)):
        def stat(ix: np.ndarray, fn: Callable = fn) -> float:
            return float(fn([gold[i] for i in ix], [pred[i] for i in ix]))

        out[name] = stat
    return out


def _matched(gold: list[str], pred: list[str]) -> dict[str, float]:
    """One item's summed similarity of its aligned span pairs, edit and exact (§3.4)."""
    return {"matched_edit": span_counts(gold, pred).matched,
            "matched_exact": span_counts(gold, pred, similarity=exact_similarity).matched}


def _index(rows: Sequence[dict], path: str) -> dict[str, dict]:
    out = {}
    for k, r in enumerate(rows):
        if "id" not in r:
            raise InputError(path, k + 1, "id", "prediction row without id")
        out[base_id(r)] = r
    return out


def base_id(row: dict) -> str:
    """The item id of a row: its id without the ``@seed<s>`` suffix of multi-seed runs."""
    rid = str(row["id"])
    suffix = f"@seed{row.get('seed')}"
    return rid[: -len(suffix)] if row.get("seed") is not None and rid.endswith(suffix) else rid


def farthest_label(gold: float, low: int = 1, high: int = 5) -> int:
    """The value of a ``low..high`` scale farthest from ``gold`` (ties: ``low``).

    What a failed WL reply is scored as on the objectivity and agreement scales (the
    scales have no empty answer; see :data:`FAILURE_RULE`).
    """
    return low if gold - low >= high - gold else high


FAILURE_RULE = (
    "An item fails when its model call failed for good (after the client's retries) or its "
    "reply could not be parsed into the task's fields (after one re-ask). A failed item stays "
    "in every denominator, is scored as the empty answer -- no claims (extract chunk), no spans "
    "(WI), no target claims (CA), no weakness types and on each 1-5 scale the value farthest "
    "from the gold (WL), verdict 'failed' (CV), outcome 'failed' with ROUGE-1 = BERTScore = "
    "anchors kept = 0 (WLE) -- and is counted: metric `failed` and the `failures` block of "
    "scores.json."
)
"""The one failure rule of every CLAIMCHECK task (docs/claimcheck.md, "Failures")."""


def _fail_kind(row: dict | None) -> str | None:
    if not row:
        return None
    if row.get("failure"):
        return str(row["failure"])
    err = row.get("error")
    if not err:
        return None
    return "call" if "model call failed" in str(err) else "unparseable"


Scored = tuple[list[dict], dict[str, Stat], dict[str, Any]]
"""One seed's per-item rows, a statistic per metric (over item indices) and extras."""


def _score_extract(predictions: list[dict]) -> Scored:
    per: list[dict[str, Any]] = []
    for r in predictions:
        n_ok, n_bad = len(r.get("claims", [])), len(r.get("unverified", []))
        n_fail, n_chunks = len(r.get("failures", [])), r.get("n_chunks") or 0
        per.append({"id": base_id(r), "n_claims": n_ok, "n_unverified": n_bad,
                    "n_failed_chunks": n_fail, "n_chunks": n_chunks,
                    "failed": n_fail / n_chunks if n_chunks else None,
                    "verified_rate": n_ok / (n_ok + n_bad) if n_ok + n_bad else None})
    names = ["verified_rate", "n_claims", "n_unverified", "n_failed_chunks", "failed"]
    extra: dict[str, Any] = {
        "failure_kinds": [f.get("failure") or _fail_kind(f) for r in predictions for f in r.get("failures", [])],
        "n_units": sum(p["n_chunks"] for p in per),
    }
    return per, {k: _nanmean([p[k] for p in per]) for k in names}, extra


def _score_wi(pred: dict[str, dict], annotations: list[ReviewAnnotation]) -> Scored:
    gold_l: list[list[str]] = []
    pred_l: list[list[str]] = []
    per: list[dict[str, Any]] = []
    for rec in annotations:
        row = pred.get(rec.key)
        if row is None:
            continue
        g = [w.text or "" for w in rec.weaknesses]
        p = [w["text"] for w in row.get("weaknesses", [])]  # a failed reply has none
        gold_l.append(g)
        pred_l.append(p)
        per.append({"id": f"{rec.key}/{rec.annotator}", "annotator": rec.annotator,
                    "n_gold": len(g), "n_pred": len(p), **_matched(g, p),
                    "n_aligned": sum(bool(w.get("aligned")) for w in row.get("weaknesses", [])),
                    "n_unverified": len(row.get("unverified", [])),
                    "failed": float(_fail_kind(row) is not None), "failure": _fail_kind(row)})
    extra = {"unscored_reviews": sorted(set(pred) - {a.key for a in annotations})}
    stats = _span_stats(gold_l, pred_l)
    n_al = np.array([p["n_aligned"] for p in per], dtype=float)
    n_pr = np.array([p["n_pred"] for p in per], dtype=float)
    stats["aligned"] = lambda ix: float(n_al[ix].sum() / n_pr[ix].sum()) if n_pr[ix].sum() else float("nan")
    stats["failed"] = _nanmean([p["failed"] for p in per])
    return per, stats, extra


def _score_ca(pred: dict[str, dict], annotations: list[ReviewAnnotation]) -> Scored:
    gold_l: list[list[str]] = []
    pred_l: list[list[str]] = []
    per: list[dict[str, Any]] = []
    for it in weakness_items(annotations):
        row = pred.get(it.id)
        if row is None:
            continue
        kind = _fail_kind(row)
        gold_l.append(it.gold_targets)
        pred_l.append([] if kind else row.get("target_texts", []))
        per.append({"id": it.id, "n_gold": len(it.gold_targets), "n_pred": len(pred_l[-1]),
                    **_matched(gold_l[-1], pred_l[-1]),
                    "custom_rejected": bool(row.get("custom_rejected")),
                    "n_related_works": len(row.get("related_works") or []),
                    "failed": float(kind is not None), "failure": kind})
    stats = _span_stats(gold_l, pred_l)
    stats["failed"] = _nanmean([p["failed"] for p in per])
    return per, stats, {"custom_rejected": sum(p["custom_rejected"] for p in per)}


def _wl_row(gl: dict, row: dict, kind: str | None) -> tuple[list, list]:
    """Gold and predicted values (agreement, objectivity, one flag per type) of one WL item."""
    gv = [gl.get("agreement"), gl.get("objectivity"), *[t in gl["types"] for t in WEAKNESS_TYPES]]
    if kind is None:
        pv = [row.get("agreement"), row.get("objectivity"),
              *[t in (row.get("types") or []) for t in WEAKNESS_TYPES]]
    else:  # the empty answer: no types; farthest value on each scale
        pv = [None if g is None else farthest_label(g) for g in gv[:2]] + [False] * len(WEAKNESS_TYPES)
    return gv, pv


def _score_wl(pred: dict[str, dict], annotations: list[ReviewAnnotation]) -> Scored:
    gold_m: list[list[float]] = []
    pred_m: list[list[float]] = []
    per: list[dict[str, Any]] = []
    for it in weakness_items(annotations):
        row = pred.get(it.id)
        if row is None or not it.gold_labels.get("types"):
            continue
        kind = _fail_kind(row)
        gv, pv = _wl_row(it.gold_labels, row, kind)
        gold_m.append([np.nan if v is None else float(v) for v in gv])
        pred_m.append([np.nan if v is None else float(v) for v in pv])
        per.append({"id": it.id, "failed": float(kind is not None), "failure": kind,
                    "no_type": bool(row.get("no_type")),
                    "agreement_exact": None if gv[0] is None else float(pv[0] == gv[0]),
                    "objectivity_exact": None if gv[1] is None else float(pv[1] == gv[1]),
                    **({"self_consistency": row.get("self_consistency")} if "samples" in row else {})})
    G = np.array(gold_m).reshape(-1, 2 + len(WEAKNESS_TYPES))
    P = np.array(pred_m).reshape(-1, 2 + len(WEAKNESS_TYPES))
    stats: dict[str, Stat] = {}
    for col, (name, level) in enumerate(WL_LEVELS.items()):
        def alpha(ix: np.ndarray, col: int = col, level: Any = level) -> float:
            return krippendorff_alpha(np.vstack([G[ix, col], P[ix, col]]), level=level)

        stats[f"alpha_{name}"] = alpha
    for k in ("agreement_exact", "objectivity_exact", "failed"):
        stats[k] = _nanmean([p[k] for p in per])
    if any("self_consistency" in p for p in per):  # samples > 1 (issue 18)
        stats["self_consistency"] = _nanmean([p.get("self_consistency") for p in per])
    return per, stats, {"no_type": sum(p["no_type"] for p in per)}


def _score_cv(predictions: list[dict], judgments: list[dict] | None, judge_default: str | None) -> Scored:
    jud = _index(judgments, "judgments.jsonl") if judgments else {}
    per: list[dict[str, Any]] = []
    for r in predictions:
        j: dict = r.get("judgment") or jud.get(base_id(r)) or {}
        v = j.get("verdict")
        kind = _fail_kind(j) or _fail_kind(r) or (None if v else "unparseable")
        verdict = v if kind is None else "failed"
        per.append({"id": base_id(r), "verdict": verdict, "failure": kind,
                    "judge": j.get("judge") or judge_default,
                    "n_related_works": len(r.get("related_works") or []),
                    **{k: float(verdict == k) for k in ("same", "similar", "different", "failed")}})
    extra = {"judge": sorted({str(p["judge"]) for p in per if p["judge"]})}
    return per, {k: _nanmean([p[k] for p in per]) for k in ("same", "similar", "different", "failed")}, extra


def _wle_outcome(r: dict, jw: dict, judged: bool) -> tuple[str | None, str | None, dict[str, float | None]]:
    """(failure kind, outcome, shares of win/tie/loss/failed) of one WLE item."""
    o = jw.get("outcome")
    if judged:  # judged: a rewrite or a judgment that failed makes the outcome "failed"
        kind = _fail_kind(r) or _fail_kind(jw) or (None if o else "unparseable")
        outcome: str | None = o if kind is None else "failed"
        return kind, outcome, {k: float(outcome == k) for k in ("win", "tie", "loss", "failed")}
    kind = _fail_kind(r)  # not judged (yet): no outcomes, only the rewrites' own failures
    return kind, None, {"win": None, "tie": None, "loss": None, "failed": float(kind is not None)}


def _score_wle(predictions: list[dict], judgments: list[dict] | None, judge_default: str | None,
               bertscore: bool) -> Scored:
    jud = _index(judgments, "judgments.jsonl") if judgments else {}
    ok = [r for r in predictions if r.get("revised")]
    r1 = rouge_f1([r["revised"] for r in ok], [r["original"] for r in ok], kind="rouge1") if ok else []
    bs = bertscore_f1([r["revised"] for r in ok], [r["original"] for r in ok]) if ok and bertscore else [None] * len(ok)
    by_id = {base_id(r): (a, b) for r, a, b in zip(ok, r1, bs, strict=True)}
    per: list[dict[str, Any]] = []
    for r in predictions:
        jw: dict = jud.get(base_id(r), {})
        kind, outcome, shares = _wle_outcome(r, jw, bool(jud))
        zero = 0.0 if not r.get("revised") else None  # no rewrite: the empty answer
        a, b = by_id.get(base_id(r), (zero, zero if bertscore else None))
        per.append({"id": base_id(r), "outcome": outcome, "failure": kind,
                    "judge": jw.get("judge") or (judge_default if jw else None),
                    "rouge1_f1": a, "bertscore_f1": b,
                    "anchors_kept": anchor_retention(r.get("original") or "", r.get("revised")),
                    "n_related_works": len(r.get("related_works") or []), **shares})
    extra = {"judge": sorted({str(p["judge"]) for p in per if p["judge"]}),
             "bertscore_model": "bundled all-MiniLM-L6-v2, layer 6, no rescaling" if bertscore else None}
    names = ["win", "tie", "loss", "failed", "rouge1_f1", "bertscore_f1", "anchors_kept"]
    return per, {k: _nanmean([p[k] for p in per]) for k in names}, extra


def _score_seed(
    task: str,
    predictions: list[dict],
    *,
    annotations: list[ReviewAnnotation] | None,
    judgments: list[dict] | None,
    predictions_path: str,
    bertscore: bool,
    judge_default: str | None,
) -> Scored:
    """Per-item rows, a statistic per metric (over item indices) and extras, one seed."""
    if task == "extract":
        return _score_extract(predictions)
    if task in ("wi", "ca", "wl") and not annotations:
        raise InputError(None, None, "annotations", f"scoring {task} needs gold annotations")
    pred = _index(predictions, predictions_path)  # every row has an id
    if task == "cv":
        return _score_cv(predictions, judgments, judge_default)
    if task == "wle":
        return _score_wle(predictions, judgments, judge_default, bertscore)
    gold = annotations or []
    if task == "wi":
        return _score_wi(pred, gold)
    if task == "ca":
        return _score_ca(pred, gold)
    if task == "wl":
        return _score_wl(pred, gold)
    raise InputError(None, None, "task", f"unknown task {task!r}")


def _failures(task: str, predictions: list[dict], per: list[dict], extra: dict) -> dict[str, Any]:
    """The ``failures`` block of scores.json: counts by kind and the first error."""
    if task == "extract":
        kinds = [k for k in extra.pop("failure_kinds", []) if k]
        n_units = extra.pop("n_units", 0)
        unit = "chunks"
    else:
        kinds = [str(p["failure"]) for p in per if p.get("failure")]
        n_units, unit = len(per), "items"
    first = next((str(r.get("error")) for r in predictions if r.get("error")), None)
    return {"unit": unit, "n": n_units, "n_failed": len(kinds),
            "call": kinds.count("call"), "unparseable": kinds.count("unparseable"),
            "first_error": first, "rule": FAILURE_RULE}


def score_predictions(
    task: str,
    predictions: list[dict],
    *,
    annotations: list[ReviewAnnotation] | None = None,
    judgments: list[dict] | None = None,
    predictions_path: str = "predictions.jsonl",
    bertscore: bool = True,
    judge: str | None = None,
) -> tuple[list[dict], dict[str, dict], dict[str, Any]]:
    """Score prediction rows of one task (one or several seeds).

    Rows carrying a ``seed`` are grouped by it. With one seed every metric is the
    seed's value with a 95% bootstrap CI over items. With several, every metric is the
    **mean over seeds** (Appendix C.1); its CI resamples items (the same items for every
    seed) and averages the seeds in each resample; ``per_seed``, ``seed_sd`` (population
    SD) and ``seed_min``/``seed_max`` give the spread across seeds.

    Failed items follow :data:`FAILURE_RULE`; ``extra["failures"]`` counts them.

    Args:
        task: ``extract``, ``wi``, ``ca``, ``wl``, ``cv`` or ``wle``.
        predictions: Rows of ``predictions.jsonl``.
        annotations: Gold annotations (needed by wi, ca, wl).
        judgments: Judgment rows (CV verdicts when not embedded; WLE preferences, model
            or human).
        predictions_path: For error messages.
        bertscore: Compute BERTScore for WLE (loads the bundled MiniLM).
        judge: Judge id to record for judgment rows that do not name theirs.

    Returns:
        ``(per_item_rows, metrics, extra)``; ``metrics`` maps name to
        ``{"mean", "ci_low", "ci_high", "n"}`` (+ the seed spread with several seeds).
    """
    seeds = list(dict.fromkeys(r.get("seed") for r in predictions))
    jseed = _judgments_by_seed(judgments)
    scored = []
    for sd in seeds:
        rows = [r for r in predictions if r.get("seed") == sd]
        js = jseed.get(sd) if sd in jseed else jseed.get(None, judgments) if judgments else None
        scored.append(_score_seed(task, rows, annotations=annotations, judgments=js,
                                  predictions_path=predictions_path, bertscore=bertscore,
                                  judge_default=judge))
    if not scored:
        scored = [_score_seed(task, [], annotations=annotations, judgments=None,
                              predictions_path=predictions_path, bertscore=bertscore, judge_default=judge)]
    per_all = [{**p, **({"seed": sd} if sd is not None else {})} for sd, (per, _, _) in zip(seeds, scored, strict=False)
               for p in per]
    extra = _merged_extra(task, predictions, scored, per_all)
    if len(scored) == 1:
        return per_all, _one_seed_metrics(*scored[0][:2]), extra
    metrics, n_ids = _seed_mean_metrics(scored, seeds)
    extra["seeds"] = [sd for sd in seeds]
    extra["n_items_all_seeds"] = n_ids
    return per_all, metrics, extra


def _judgments_by_seed(judgments: list[dict] | None) -> dict[Any, list[dict]]:
    """Judgment rows grouped by their seed (from the row, else its ``@seed<s>`` id; None: no seed)."""
    jseed: dict[Any, list[dict]] = {}
    for j in judgments or []:
        sd = j.get("seed")
        if sd is None and (found := re.search(r"@seed(-?\d+)$", str(j.get("id", "")))):
            j = {**j, "seed": int(found.group(1))}  # e.g. human choices imported for a multi-seed run
            sd = j["seed"]
        jseed.setdefault(sd, []).append(j)
    return jseed


def _merged_extra(task: str, predictions: list[dict], scored: list[Scored], per_all: list[dict]) -> dict[str, Any]:
    """The first seed's extras with counts summed over seeds, the failures block and WL self-consistency."""
    extra = dict(scored[0][2])
    for key, value in list(extra.items()):  # counts (custom_rejected, no_type) over all seeds
        if isinstance(value, int) and not isinstance(value, bool) and key != "n_units":
            extra[key] = sum(int(sc[2].get(key) or 0) for sc in scored)
    kinds = [k for sc in scored for k in sc[2].get("failure_kinds", [])]
    extra["failure_kinds"], extra["n_units"] = kinds, sum(int(sc[2].get("n_units") or 0) for sc in scored)
    extra["failures"] = _failures(task, predictions, per_all, {**extra})
    if task == "wl" and (sc := wl_consistency(predictions)) is not None:
        extra["self_consistency"] = sc
    extra.pop("failure_kinds", None)
    extra.pop("n_units", None)
    return extra


def _one_seed_metrics(per: list[dict], stats: dict[str, Stat]) -> dict[str, dict]:
    """Each metric with its 95% bootstrap CI over the items of one seed."""
    metrics = {}
    for k, f in stats.items():
        metrics[k] = _ci(len(per), f)
        if hasattr(f, "n_values"):  # items with a value (e.g. anchors kept: originals with anchors)
            metrics[k]["n"] = f.n_values
    return metrics


def _seed_mean_metrics(scored: list[Scored], seeds: list[Any]) -> tuple[dict[str, dict], int]:
    """Each metric as the mean over seeds (items aligned by id; the seeds averaged inside every
    bootstrap resample) with the seeds' spread; and the number of items every seed has."""
    ids = [p["id"] for p in scored[0][0]]
    for per, _, _ in scored[1:]:
        have = {p["id"] for p in per}
        ids = [i for i in ids if i in have]
    maps = [{p["id"]: k for k, p in enumerate(per)} for per, _, _ in scored]
    take = [np.array([m[i] for i in ids], dtype=int) for m in maps]
    metrics: dict[str, dict] = {}
    for name in scored[0][1]:
        fns = [st[name] for _, st, _ in scored]

        def mean_over_seeds(ix: np.ndarray, fns: list[Stat] = fns) -> float:
            vals = [f(t[ix]) for f, t in zip(fns, take, strict=True)]
            vals = [v for v in vals if not np.isnan(v)]
            return float(np.mean(vals)) if vals else float("nan")

        m = _ci(len(ids), mean_over_seeds)
        if all(hasattr(f, "n_values") for f in fns):
            m["n"] = min(f.n_values for f in fns)  # type: ignore[attr-defined]
        each = {str(sd): fns[k](take[k]) for k, sd in enumerate(seeds)}
        vals = np.array([v for v in each.values() if not np.isnan(v)], dtype=float)
        m["per_seed"] = {k: (None if np.isnan(v) else float(v)) for k, v in each.items()}
        m["seed_sd"] = float(vals.std()) if vals.size else None
        m["seed_min"] = float(vals.min()) if vals.size else None
        m["seed_max"] = float(vals.max()) if vals.size else None
        metrics[name] = m
    return metrics, len(ids)


def wl_consistency(predictions: Sequence[dict]) -> dict[str, Any] | None:
    """Self-consistency of sampled WL labels (``options.samples`` > 1) over all rows (all seeds).

    Returns:
        None for a one-sample run, else ``{"samples", "n", "mean", "objectivity",
        "agreement", "types", "unanimous"}``: means over the items that have a share
        (each in (0, 1], best 1; ``unanimous``: share of items whose every sample gave
        all three labels; ``n``: those items).
    """
    rows = [r for r in predictions if r.get("samples")]
    if not rows:
        return None

    def mean(key: str) -> float | None:
        vals = [float(r[key]) for r in rows if isinstance(r.get(key), (int, float))]
        return float(np.mean(vals)) if vals else None

    have = [float(r["self_consistency"]) for r in rows if isinstance(r.get("self_consistency"), (int, float))]
    return {"samples": max(len(r["samples"]) for r in rows), "n": len(have), "mean": mean("self_consistency"),
            **{name: mean(f"self_consistency_{name}") for name in SAMPLED},
            "unanimous": float(np.mean([v == 1.0 for v in have])) if have else None}


JUDGE_NOTES = {
    "wle": "WLE specificity judged by {judge_}{same}; the paper's judge was a person (one author, §4.3).",
    "cv": "CV verdicts judged by {judge_}{same}; the paper's judge was GPT-4o (§4.2).",
}
"""Which judge a CV/WLE score had, next to what the paper used (shown in the report)."""

PRIMARY = {"extract": "verified_rate", "wi": "f1_edit", "ca": "f1_edit",
           "wl": "alpha_agreement", "cv": "same", "wle": "win"}


def _gold(run_dir: Path, task: str, inputs: dict[str, Any], o: Any) -> list[ReviewAnnotation] | None:
    """The gold annotations of wi/ca/wl: ``o``'s files, else the ones the run recorded (None: none)."""
    ann_path = o.annotations or inputs.get("annotations")
    if not ann_path or task not in ("wi", "ca", "wl"):
        return None
    papers_file = o.papers or inputs.get("papers_file")
    papers = load_papers_file(papers_file) if papers_file else None
    return load_annotations(ann_path, data_dir=o.data_dir or inputs.get("data_dir"), papers=papers)


def score_run(run_dir: str | Path, options: Any = None) -> dict[str, Any]:
    """Score a run directory and write ``per_item.jsonl`` and ``scores.json``.

    Args:
        run_dir: A run directory (``config.json`` + ``predictions.jsonl``), or a folder
            holding a ``predictions.jsonl`` made elsewhere (then give ``options.task``).
        options: :class:`~noveval.benchmarks.claimcheck.options.ClaimcheckScoreOptions`
            (None: the defaults): other annotations, papers, data folder or judgments
            (e.g. human WLE choices from ``wle-import``) than the run's, the task, BERTScore.

    Returns:
        The ``scores.json`` content.

    Raises:
        InputError: not a CLAIMCHECK run folder, no predictions, or a bad input file.
    """
    o = options if options is not None else ClaimcheckScoreOptions()
    run_dir = Path(run_dir)
    cfg_path = run_dir / "config.json"
    cfg = read_json(cfg_path) if cfg_path.exists() else {}
    if cfg and cfg.get("benchmark") != "claimcheck":
        raise InputError(cfg_path, None, "benchmark", f"not a CLAIMCHECK run ({cfg.get('benchmark')!r})")
    task = o.task or cfg.get("task")
    if task is None:
        raise InputError(run_dir, None, "options.task", "no config.json: give the task")
    pred_path = run_dir / "predictions.jsonl"
    if not pred_path.exists():
        raise InputError(pred_path, None, None, "predictions file not found")
    predictions = read_jsonl(pred_path)
    anns = _gold(run_dir, task, cfg.get("inputs") or {}, o)
    jpath = Path(o.judgments) if o.judgments else run_dir / "judgments.jsonl"
    jrows = read_jsonl(jpath, allow_empty=True) if jpath.exists() else None
    per, metrics, extra = score_predictions(task, predictions, annotations=anns, judgments=jrows,
                                            predictions_path=str(pred_path), bertscore=o.bertscore,
                                            judge=cfg.get("judge"))
    judges = extra.get("judge") or ([cfg["judge"]] if cfg.get("judge") else [])
    note = JUDGE_NOTES.get(task, "").format(judge_=", ".join(judges) or "?",
                                            same=" (the model under test)" if judges == [cfg.get("model")] else "")
    scores = BENCHMARK.make_scores(
        cfg.get("model"), metrics, primary_metric=PRIMARY[task], greater_is_better=True,
        task=task, protocol=cfg.get("protocol", "noveval"),
        seeds=cfg.get("seeds") or [((cfg.get("options") or {}).get("seed", 0))],
        judge=", ".join(judges) if task in ("cv", "wle") else None, judge_note=note or None,
        failures=extra.pop("failures"), extra=extra)
    run = RunDir(run_dir)
    run.write("per_item", per)
    run.write_scores(scores)
    return scores
