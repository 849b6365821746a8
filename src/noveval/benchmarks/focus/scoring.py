"""Scoring of focus-level evaluation ("Mind the Blind Spots", Sections 4.3, 5.1-5.2, A.4).

Input: annotated points (judgments rows: ``paper_id, source, polarity, target,
aspect, text``) for the human side (``source == "human"``) and one model, plus the
model's review texts and the expert review texts. Output:

* per paper (``per_item``): F1 of (target, aspect) labels, overall / strength /
  weakness (Table 3), with precision and recall; ROUGE-L, BLEU-4 and BERTScore F1 of
  the model review against the expert review texts (best or mean over references
  when a paper has several); point and failure counts (Figure 3); the paper's facet
  counts per distribution and side (``focus_counts``), from which the pooled KL of any
  set of papers is recomputed (:func:`kl_mean_of_counts`; ``noveval compare``);
* corpus level (``extra``): the four focus distributions for humans and the model
  (Figure 4), ``KL(human || model)`` per distribution and their mean (Table 3; see
  :mod:`noveval.metrics.focus` for direction, base and smoothing) with a paper-level
  bootstrap CI, per-facet P/R/F1 tables (Tables 7-12), annotation failures.

The matching (``"set"`` as in Section 5.1, or ``"multiset"``), the text reference
(``"mean"``/``"max"``), the KL rule and the weakness-only rule are chosen by the
protocol (:mod:`.protocol`). "Overall" F1 matches (polarity, target, aspect) triples,
so a strength never matches a weakness; strength/weakness F1 use that polarity's
points only.

**Failed points.** A point whose target or aspect failed to parse (label ``None``)
stays in the F1 denominators as a label equal to nothing, not even another failed
point: a failed model point costs precision, a failed expert point costs recall.
Failed points are left out of the focus distributions (they have no facet) and are
counted per paper (``n_failed_model``, ``n_failed_human``) and per run
(``extra.annotation_failures``).

**Annotator self-consistency** (``--samples N``): a point annotated N times records the
share of samples that gave each of its labels (:mod:`noveval.metrics.consistency`);
:func:`annotator_consistency` averages it per paper (``self_consistency`` in
``per_item``, the bootstrapped mean in ``scores.json``) and per family and side.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from noveval.metrics.focus import (
    ASPECTS,
    TARGETS,
    facet_counts,
    focus_distribution,
    kl_divergence,
    kl_from_counts,
    multiset_prf,
    per_facet_prf,
    set_prf,
)
from noveval.metrics.text import bertscore_f1, bleu4, rouge_f1

DISTRIBUTIONS = (
    ("strength", "target"),
    ("weakness", "target"),
    ("strength", "aspect"),
    ("weakness", "aspect"),
)
PER_ITEM_METRICS = (
    "f1_overall",
    "f1_strength",
    "f1_weakness",
    "precision_overall",
    "recall_overall",
    "rougeL",
    "bleu4",
    "bertscore_f1",
    "n_strengths_model",
    "n_weaknesses_model",
    "n_strengths_human",
    "n_weaknesses_human",
    "n_failed_model",
    "n_failed_human",
)

__all__ = ["DISTRIBUTIONS", "PER_ITEM_METRICS", "annotator_consistency", "count_vector", "focus_report",
           "kl_mean_of_counts", "per_paper_rows"]


def _facets(family: str) -> Sequence[str]:
    return TARGETS if family == "target" else ASPECTS


class _Unmatched:
    """The label key of a failed point: hashable, equal only to itself."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<failed>"


def failed(row: Mapping[str, Any]) -> bool:
    """True when the point's target or aspect is missing (annotation failed)."""
    return row.get("target") is None or row.get("aspect") is None


def label_key(row: Mapping[str, Any], *, polarity: bool) -> Hashable:
    """The key a point is matched on: ``(target, aspect)``, with polarity first if asked.

    A failed point gets a fresh :class:`_Unmatched` object, so it matches nothing.
    """
    if failed(row):
        return _Unmatched()
    pair = (row["target"], row["aspect"])
    return (row["polarity"], *pair) if polarity else pair


def distributions(rows: Iterable[Mapping[str, Any]]) -> dict[str, list[float]]:
    """The four focus distributions of a set of judgment rows, keyed ``"strength/target"``."""
    rows = list(rows)
    out = {}
    for polarity, family in DISTRIBUTIONS:
        labels = [r.get(family) for r in rows if r["polarity"] == polarity]
        out[f"{polarity}/{family}"] = focus_distribution(labels, facets=_facets(family)).tolist()
    return out


def facet_count_table(rows: Iterable[Mapping[str, Any]]) -> dict[str, list[int]]:
    """Facet counts of the four distributions of a set of judgment rows (what :func:`distributions` normalises)."""
    rows = list(rows)
    return {f"{pol}/{fam}": facet_counts([r.get(fam) for r in rows if r["polarity"] == pol],
                                         facets=_facets(fam)).tolist() for pol, fam in DISTRIBUTIONS}


def count_vector(counts: Mapping[str, Any]) -> np.ndarray:
    """A paper's ``focus_counts`` as one vector: human then model, each the four distributions in
    :data:`DISTRIBUTIONS` order (48 numbers); NaNs when the row has none (a run scored before
    rows held them)."""
    parts = []
    for side in ("human", "model"):
        table = counts.get(side) if isinstance(counts, Mapping) else None
        for pol, fam in DISTRIBUTIONS:
            vals = table.get(f"{pol}/{fam}") if isinstance(table, Mapping) else None
            k = len(_facets(fam))
            ok = isinstance(vals, list) and len(vals) == k
            parts.append(np.asarray(vals, dtype=float) if ok else np.full(k, np.nan))
    return np.concatenate(parts)


def kl_mean_of_counts(sums: np.ndarray, *, epsilon: float, present_only: bool = False) -> np.ndarray:
    """``kl_table(...)["mean"]`` from summed :func:`count_vector` rows, vectorised over leading axes.

    Summing the papers' count vectors gives the pooled facet counts of that set of papers,
    so this is the run's ``kl_mean`` (Table 3, Section 5.1) of any resample of papers, with
    :func:`kl_table`'s rules: a distribution empty on both sides (or, with
    ``present_only``, on either) is left out; NaN when all four are.

    Args:
        sums: ``(..., 48)`` summed count vectors.
        epsilon: KL smoothing (:func:`noveval.metrics.focus.kl_divergence`).
        present_only: As :func:`kl_table`.

    Returns:
        ``(...)`` mean KL(human || model) in [0, inf); 0 best.
    """
    s = np.asarray(sums, dtype=float)
    sizes = [len(_facets(fam)) for _, fam in DISTRIBUTIONS]
    half = sum(sizes)
    kls, used = [], []
    start = 0
    for k in sizes:
        h, m = s[..., start : start + k], s[..., half + start : half + start + k]
        empty_h, empty_m = h.sum(axis=-1) == 0, m.sum(axis=-1) == 0
        used.append(~((empty_h & empty_m) | ((empty_h | empty_m) if present_only else False)))
        kls.append(kl_from_counts(h, m, epsilon=epsilon))
        start += k
    u, v = np.stack(used, axis=-1), np.stack(kls, axis=-1)
    count = u.sum(axis=-1)
    with np.errstate(invalid="ignore"):
        total = np.where(u, v, 0.0).sum(axis=-1)
    return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def kl_table(
    human: Iterable[Mapping[str, Any]],
    model: Iterable[Mapping[str, Any]],
    *,
    epsilon: float,
    present_only: bool = False,
) -> dict[str, float | None]:
    """``KL(human || model)`` for each distribution and their mean (key ``"mean"``).

    Args:
        human: Expert judgment rows.
        model: Model judgment rows.
        epsilon: Smoothing (see :func:`noveval.metrics.focus.kl_divergence`).
        present_only: Leave out (value ``None``) a distribution that has no point on
            a facet on one side or the other, e.g. the strength distributions of a
            model that writes only weaknesses (the paper's protocol); otherwise the
            empty side is smoothed towards uniform and compared. A distribution
            empty on both sides is always left out (there is nothing to compare).

    Returns:
        Distribution key -> KL in [0, inf) (0 best) or ``None`` when left out;
        ``"mean"`` over the others (``None`` if none is left).
    """
    hd, md = distributions(human), distributions(model)
    out: dict[str, float | None] = {}
    for k in hd:
        empty_h, empty_m = sum(hd[k]) == 0, sum(md[k]) == 0
        if (empty_h and empty_m) or (present_only and (empty_h or empty_m)):
            out[k] = None
        else:
            out[k] = kl_divergence(hd[k], md[k], epsilon=epsilon)
    used = [v for v in out.values() if v is not None]
    out["mean"] = float(np.mean(used)) if used else None
    return out


def _prf(matching: str, human: list[Hashable], model: list[Hashable]) -> tuple[float, float, float] | None:
    return set_prf(human, model) if matching == "set" else multiset_prf(human, model)


def per_paper_rows(
    paper_ids: Sequence[str],
    human: Sequence[Mapping[str, Any]],
    model: Sequence[Mapping[str, Any]],
    *,
    model_texts: Mapping[str, str] | None = None,
    expert_texts: Mapping[str, list[str]] | None = None,
    text_metrics: bool = True,
    matching: str = "multiset",
    text_reference: str = "max",
    weakness_only: bool = False,
) -> list[dict[str, Any]]:
    """Per-paper rows (per_item.jsonl) of F1, text similarity and point counts.

    Args:
        paper_ids: Papers to score, in output order.
        human: Judgment rows of the expert points.
        model: Judgment rows of the model points.
        model_texts: Paper id -> the model's review text.
        expert_texts: Paper id -> the expert review texts (one or more references).
        text_metrics: Compute ROUGE-L / BLEU-4 / BERTScore (needs both text maps).
        matching: ``"multiset"`` (duplicate labels count) or ``"set"`` (Section 5.1).
        text_reference: ``"max"`` (best reference) or ``"mean"`` over a paper's references.
        weakness_only: Score weaknesses only: strength F1 is ``None`` and overall F1
            uses weakness points (Table 3's MARG row).

    Returns:
        One dict per paper with ``id``, :data:`PER_ITEM_METRICS` (F1 values are
        ``None`` where undefined: neither side has points of that polarity) and
        ``focus_counts`` (:func:`facet_count_table` of the human and the model points).
    """
    by_paper: dict[str, dict[str, list]] = defaultdict(lambda: {"h": [], "m": []})
    for r in human:
        by_paper[r["paper_id"]]["h"].append(r)
    for r in model:
        by_paper[r["paper_id"]]["m"].append(r)
    scored = ("weakness",) if weakness_only else ("strength", "weakness")

    out = []
    for pid in paper_ids:
        h, m = by_paper[pid]["h"], by_paper[pid]["m"]
        row: dict[str, Any] = {"id": pid}
        overall = _prf(
            matching,
            [label_key(r, polarity=True) for r in h if r["polarity"] in scored],
            [label_key(r, polarity=True) for r in m if r["polarity"] in scored],
        )
        row["f1_overall"] = overall[2] if overall else None
        row["precision_overall"] = overall[0] if overall else None
        row["recall_overall"] = overall[1] if overall else None
        for pol, plural in (("strength", "strengths"), ("weakness", "weaknesses")):
            prf = _prf(
                matching,
                [label_key(r, polarity=False) for r in h if r["polarity"] == pol],
                [label_key(r, polarity=False) for r in m if r["polarity"] == pol],
            )
            row[f"f1_{pol}"] = prf[2] if prf and pol in scored else None
            row[f"n_{plural}_model"] = sum(1 for r in m if r["polarity"] == pol)
            row[f"n_{plural}_human"] = sum(1 for r in h if r["polarity"] == pol)
        row["n_failed_model"] = sum(1 for r in m if failed(r))
        row["n_failed_human"] = sum(1 for r in h if failed(r))
        row["focus_counts"] = {"human": facet_count_table(h), "model": facet_count_table(m)}
        out.append(row)

    if text_metrics and model_texts is not None and expert_texts is not None:
        _add_text_metrics(out, model_texts, expert_texts, reduce=text_reference)
    return out


def _add_text_metrics(
    rows: list[dict[str, Any]],
    model_texts: Mapping[str, str],
    expert_texts: Mapping[str, list[str]],
    *,
    reduce: str = "max",
) -> None:
    preds, refs, owner = [], [], []
    for i, row in enumerate(rows):
        pred = model_texts.get(row["id"], "")
        for ref in expert_texts.get(row["id"], []):
            if pred.strip() and ref.strip():
                preds.append(pred)
                refs.append(ref)
                owner.append(i)
    scores = {
        "rougeL": rouge_f1(preds, refs, kind="rougeL"),
        "bleu4": bleu4(preds, refs),
        "bertscore_f1": bertscore_f1(preds, refs),
    }
    for name, values in scores.items():
        per: dict[int, list[float]] = defaultdict(list)
        for i, v in zip(owner, values, strict=True):
            per[i].append(float(v))
        for i, row in enumerate(rows):
            vals = per.get(i)
            if not vals:
                row[name] = None
            else:
                row[name] = max(vals) if reduce == "max" else float(np.mean(vals))
        if name == "rougeL":
            for i, row in enumerate(rows):
                row["n_references"] = len(per.get(i, []))


def facet_tables(
    human: Sequence[Mapping[str, Any]], model: Sequence[Mapping[str, Any]], *, binary: bool = False
) -> dict[str, dict[str, dict[str, float]]]:
    """Per-facet P/R/F1 (Tables 7-12): keys ``"<all|strength|weakness>/<target|aspect>"``.

    With ``binary`` (set matching) a facet counts once per paper and polarity, so the
    ``all`` scope matches strengths with strengths and weaknesses with weaknesses.
    """
    out = {}
    for scope in ("all", "strength", "weakness"):
        for family in ("target", "aspect"):
            hm: dict[Hashable, list] = defaultdict(list)
            mm: dict[Hashable, list] = defaultdict(list)
            for src, dst in ((human, hm), (model, mm)):
                for r in src:
                    if scope == "all" or r["polarity"] == scope:
                        key = (r["paper_id"], r["polarity"]) if binary else r["paper_id"]
                        dst[key].append(r.get(family))
            out[f"{scope}/{family}"] = per_facet_prf(hm, mm, facets=_facets(family), binary=binary)
    return out


def bootstrap_kl(
    human: Sequence[Mapping[str, Any]],
    model: Sequence[Mapping[str, Any]],
    paper_ids: Sequence[str],
    *,
    epsilon: float,
    present_only: bool = False,
    n_resamples: int = 500,
    seed: int = 0,
) -> dict[str, Any]:
    """Mean KL with a 95% percentile CI from resampling papers with replacement.

    ``present_only`` as in :func:`kl_table`, applied inside every resample; a resample
    with no distribution left is skipped. ``mean`` is ``None`` when no distribution
    has mass on both sides.
    """
    hp: dict[str, list] = defaultdict(list)
    mp: dict[str, list] = defaultdict(list)
    for r in human:
        hp[r["paper_id"]].append(r)
    for r in model:
        mp[r["paper_id"]].append(r)
    rng = np.random.default_rng(seed)
    ids = list(paper_ids)
    point = kl_table([r for i in ids for r in hp[i]], [r for i in ids for r in mp[i]],
                     epsilon=epsilon, present_only=present_only)["mean"]
    if len(ids) < 2 or point is None:
        return {"mean": point, "ci_low": point, "ci_high": point, "n": len(ids)}
    values = []
    for _ in range(n_resamples):
        sample = rng.choice(len(ids), size=len(ids), replace=True)
        hs = [r for j in sample for r in hp[ids[j]]]
        ms = [r for j in sample for r in mp[ids[j]]]
        v = kl_table(hs, ms, epsilon=epsilon, present_only=present_only)["mean"]
        if v is not None:
            values.append(v)
    lo, hi = np.percentile(values, [2.5, 97.5])
    return {"mean": point, "ci_low": float(lo), "ci_high": float(hi), "n": len(ids)}


def focus_report(
    paper_ids: Sequence[str],
    human: Sequence[Mapping[str, Any]],
    model: Sequence[Mapping[str, Any]],
    *,
    epsilon: float,
    present_only: bool = False,
    binary: bool = False,
) -> dict[str, Any]:
    """Corpus-level results for ``scores.json["extra"]`` (Figure 4, Table 3, A.4).

    Args:
        paper_ids: The scored papers.
        human: Expert judgment rows.
        model: Model judgment rows.
        epsilon: KL smoothing.
        present_only: KL only for distributions with mass on both sides (:func:`kl_table`).
        binary: Set matching in the per-facet tables (:func:`facet_tables`).
    """
    ids = set(paper_ids)
    human = [r for r in human if r["paper_id"] in ids]
    model = [r for r in model if r["paper_id"] in ids]
    failures = {
        "human": sum(1 for r in human if failed(r)),
        "model": sum(1 for r in model if failed(r)),
        "rule": "a point whose target or aspect failed to parse matches nothing in F1 "
                "(it stays in the denominators) and is left out of the distributions",
    }
    kl_rule = ("mean over the distributions with at least one labelled point on both sides"
               if present_only else "mean over all four distributions; an empty side is smoothed")
    return {
        "facets": {"target": list(TARGETS), "aspect": list(ASPECTS)},
        "distributions": {"human": distributions(human), "model": distributions(model)},
        "kl": kl_table(human, model, epsilon=epsilon, present_only=present_only),
        "kl_settings": {
            "direction": "KL(human || model)",
            "log_base": "e (nats)",
            "smoothing": f"epsilon={epsilon} added to every bin of both distributions, renormalised",
            "mean": kl_rule,
        },
        "per_facet": facet_tables(human, model, binary=binary),
        "points": {
            "human": {"strength": sum(r["polarity"] == "strength" for r in human),
                      "weakness": sum(r["polarity"] == "weakness" for r in human)},
            "model": {"strength": sum(r["polarity"] == "strength" for r in model),
                      "weakness": sum(r["polarity"] == "weakness" for r in model)},
        },
        "annotation_failures": failures,
    }


def _share(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def annotator_consistency(
    paper_ids: Sequence[str], judgments: Sequence[Mapping[str, Any]]
) -> tuple[dict[str, float | None], dict[str, Any]] | None:
    """Self-consistency of a sampled annotator (``--samples N``), per paper and overall.

    A point's ``self_consistency`` is the mean over its target and aspect of the share
    of the N samples that gave the voted label (:func:`noveval.metrics.consistency.vote_labels`);
    each is in (0, 1], best 1 (unanimous), None when no sample parsed or a call failed.

    Args:
        paper_ids: The scored papers.
        judgments: Judgment rows (human and model points).

    Returns:
        None when no row carries a self-consistency (a one-sample run). Otherwise
        ``(per_paper, summary)``: paper id -> mean over the paper's points (None when it
        has none), and ``{"samples", "n_points", "mean", "target", "aspect", "human",
        "model", "unanimous"}`` -- means over points (``unanimous``: share of points
        whose every sample gave both labels).
    """
    rows = [j for j in judgments if j.get("samples")]
    if not rows:
        return None

    def mean(key: str, subset: Iterable[Mapping[str, Any]]) -> float | None:
        vals = [v for j in subset if (v := _share(j.get(key))) is not None]
        return float(np.mean(vals)) if vals else None

    wanted = set(paper_ids)
    by_paper: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for j in rows:
        if j["paper_id"] in wanted:
            by_paper[j["paper_id"]].append(j)
    per_paper = {pid: mean("self_consistency", by_paper.get(pid, [])) for pid in paper_ids}
    scored = [j for pid in paper_ids for j in by_paper.get(pid, [])]
    shares = [v for j in scored if (v := _share(j.get("self_consistency"))) is not None]
    summary = {
        "samples": max(len(j["samples"]) for j in rows),
        "n_points": len(shares),
        "mean": mean("self_consistency", scored),
        "target": mean("self_consistency_target", scored),
        "aspect": mean("self_consistency_aspect", scored),
        "human": mean("self_consistency", [j for j in scored if j.get("source") == "human"]),
        "model": mean("self_consistency", [j for j in scored if j.get("source") != "human"]),
        "unanimous": float(np.mean([v == 1.0 for v in shares])) if shares else None,
    }
    return per_paper, summary
