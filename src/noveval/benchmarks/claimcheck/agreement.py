"""Agreement between CLAIMCHECK annotators (and a model as one more annotator).

* **WI** (§3.4): pairwise ``F1_edit`` / ``F1_exact`` of weakness spans per review,
  averaged over annotator pairs (paper pilot: ``F1_edit`` = 52.4).
* **CA** (§3.4, §4.1): the same over target-claim texts per weakness (pilot: 45.8 /
  28.5; with GPT-4o added: 43.2 / 23.3, GPT-4o's individual average 32.6).
* **WL** (Table 2): Krippendorff's alpha, ordinal for agreement/objectivity and nominal
  for each weakness type, humans only and humans + model.

CA and WL compare annotators on the *same* weakness, so a weakness is identified by
its review and its whitespace-normalised span text (in the paper every pilot annotator
labelled the weaknesses of one annotator's WI).
"""

from __future__ import annotations

from typing import Any

from noveval.benchmarks.claimcheck.data import WEAKNESS_TYPES, ReviewAnnotation, normalize_ws
from noveval.benchmarks.claimcheck.scoring import WL_LEVELS
from noveval.metrics.agreement import agreement_with_model, alpha_by_label, pairwise_agreement

__all__ = ["agreement_report", "wi_spans", "ca_targets", "wl_labels"]


def wi_spans(records: list[ReviewAnnotation]) -> dict[str, dict[str, list[str]]]:
    """``{annotator: {review_id: [weakness span, ...]}}``."""
    out: dict[str, dict[str, list[str]]] = {}
    for r in records:
        out.setdefault(r.annotator, {})[r.key] = [w.text or "" for w in r.weaknesses]
    return out


def _wkey(r: ReviewAnnotation, text: str | None) -> str:
    return f"{r.key}/{normalize_ws(text or '')}"


def ca_targets(records: list[ReviewAnnotation]) -> dict[str, dict[str, list[str]]]:
    """``{annotator: {weakness key: [target claim text, ...]}}``."""
    out: dict[str, dict[str, list[str]]] = {}
    for r in records:
        for w in r.weaknesses:
            out.setdefault(r.annotator, {})[_wkey(r, w.text)] = r.target_texts(w)
    return out


def wl_labels(records: list[ReviewAnnotation]) -> dict[str, dict[str, dict[str, Any]]]:
    """``{annotator: {weakness key: {label: value}}}`` for labelled weaknesses only."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for r in records:
        for w in r.weaknesses:
            if not w.labeled:
                continue
            labels: dict[str, Any] = {"agreement": w.agreement, "objectivity": w.objectivity}
            labels.update({t: t in w.types for t in WEAKNESS_TYPES})
            out.setdefault(r.annotator, {})[_wkey(r, w.text)] = labels
    return out


def _pairwise(humans: dict, model: dict | None, metric: Any) -> dict:
    if model is None:
        return {"humans_only": pairwise_agreement(humans, metric=metric).to_dict()}
    ((name, items),) = model.items()
    res = agreement_with_model(humans, items, model_name=name, metric=metric)
    humans_only, with_model = res["humans_only"], res["with_model"]
    assert not isinstance(humans_only, float) and not isinstance(with_model, float)
    return {"humans_only": humans_only.to_dict(), "with_model": with_model.to_dict(),
            "model_individual": res["model_individual"]}


def agreement_report(
    records: list[ReviewAnnotation], *, model_records: list[ReviewAnnotation] | None = None
) -> dict[str, Any]:
    """All agreement figures of §3.4 / §4.1 / Table 2 for a set of annotation records.

    Args:
        records: Human annotation records (several annotators).
        model_records: One model's records in the same format (its annotator name is
            used as the model's name), or ``None``.

    Returns:
        ``{"wi": {"f1_edit": {...}, "f1_exact": {...}}, "ca": {...}, "wl": {"humans_only":
        {label: alpha}, "with_model": {...}}, "annotators": [...], "n": {...}}``; F1 and
        alpha have best value 1 (``nan`` where undefined, e.g. no shared item).
    """
    if model_records:
        names = {r.annotator for r in model_records}
        if len(names) != 1:
            raise ValueError("model records must come from one annotator")
    wi_h, ca_h, wl_h = wi_spans(records), ca_targets(records), wl_labels(records)
    wi_m = ca_m = wl_m = None
    if model_records:
        name = model_records[0].annotator
        wi_m = {name: wi_spans(model_records).get(name, {})}
        ca_m = {name: ca_targets(model_records).get(name, {})}
        wl_m = {name: wl_labels(model_records).get(name, {})}
    report: dict[str, Any] = {
        "annotators": sorted(wi_h),
        "n": {"reviews": len({r.key for r in records}),
              "weaknesses": sum(len(r.weaknesses) for r in records)},
        "wi": {m: _pairwise(wi_h, wi_m, m) for m in ("edit", "exact")},
        "ca": {m: _pairwise(ca_h, ca_m, m) for m in ("edit", "exact")},
        "wl": {"humans_only": alpha_by_label(wl_h, WL_LEVELS)},
    }
    if wl_m:
        report["wl"]["with_model"] = alpha_by_label({**wl_h, **wl_m}, WL_LEVELS)
    return _finite(report)


def _finite(obj: Any) -> Any:
    """Replace NaN by None so the report is valid JSON."""
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, float) and obj != obj:
        return None
    return obj
