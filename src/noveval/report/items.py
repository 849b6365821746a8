"""Per-item drill-down data: join predictions, judgments and per-item rows by id.

Each item becomes ``{"id", "summary": [[name, text]], "sections": [{"title", "fields":
[[key, text]]}]}`` for the page's inline JS panel. Fields are sorted into *Input*,
*Model output*, *Gold*, *Judge* and *Scores* by key name, so benchmarks the report
does not know still get a sensible panel.
"""

from __future__ import annotations

import json
import re
from typing import Any

from noveval.report.fmt import num
from noveval.report.model import RunData

__all__ = ["run_items", "item_id", "MAX_ITEMS", "MAX_CHARS"]

MAX_ITEMS = 300
"""Items per run kept in the page."""
MAX_CHARS = 8000
"""Characters kept per field (the page shows the first part and a "show more" link)."""
RUN_BUDGET = 1_500_000
"""Characters of item data per run; past it fields are cut harder (2,000 then 600)."""

_ID_KEYS = ("id", "item_id", "paper_id", "key", "review_id", "focal_id")
_GOLD = re.compile(r"^(gold|human|reference|references|expected|label|labels|target_claims|annotation)", re.I)
_INPUT = re.compile(
    r"^(prompt|messages|input|inputs|idea|abstract|title|question|context|paper|related_works|source|query|task_input|"
    r"introduction|claims_input|review_text|instruction|original|weakness_text|claim_text)", re.I,
)
_OUTPUT = re.compile(r"(output|response|completion|raw|text|reasoning|answer|pred|generated|review|novelty_score|"
                     r"verdict|claims|spans|weakness|justification|evaluation|revised|rewrite|labels|score)", re.I)
_BOOKKEEPING = {"cached", "attempts", "latency_s", "prompt_tokens", "completion_tokens", "finish_reason", "error",
                "tag", "model", "model_id", "judge", "seed"}


def item_id(row: dict[str, Any]) -> str | None:
    """The row's item id (first of ``id``, ``item_id``, ``paper_id``, ...), as a string."""
    for k in _ID_KEYS:
        v = row.get(k)
        if v is not None and not isinstance(v, (dict, list)):
            return str(v)
    return None


def _text(v: Any, cap: int = MAX_CHARS) -> str:
    if isinstance(v, str):
        s = v
    elif isinstance(v, (int, float, bool)) or v is None:
        s = num(v)
    else:
        try:
            s = json.dumps(v, ensure_ascii=False, default=str)
            if len(s) > 100:
                s = json.dumps(v, ensure_ascii=False, indent=1, default=str)
        except (TypeError, ValueError):
            s = str(v)
    if len(s) > cap:
        s = s[:cap] + f"\n… [{len(s) - cap:,} more characters not included in the report]"
    return s


def _summary(per: dict[str, Any], pred: list[dict[str, Any]]) -> list[list[str]]:
    out = []
    for k, v in per.items():
        if k in _ID_KEYS or isinstance(v, (dict, list)):
            continue
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            out.append([k, num(v)])
        elif isinstance(v, str) and len(v) <= 24:
            out.append([k, v])
    if not out and pred:
        for k, v in pred[0].items():
            if isinstance(v, (int, float)) and not isinstance(v, bool) and k not in _BOOKKEEPING:
                out.append([k, num(v)])
    return out[:6]


def _split_prediction(rows: list[dict[str, Any]], cap: int) -> tuple[list[list[str]], list[list[str]], list[list[str]], list[list[str]]]:
    inp, outp, gold, meta = [], [], [], []
    many = len(rows) > 1
    for i, row in enumerate(rows):
        pre = f"[{i}] " if many else ""
        for k, v in row.items():
            if k in _ID_KEYS:
                continue
            pair = [pre + k, _text(v, cap)]
            if _GOLD.match(k):
                gold.append(pair)
            elif _INPUT.match(k):
                inp.append(pair)
            elif k in _BOOKKEEPING and not (k == "error" and v):
                meta.append(pair)
            else:
                outp.append(pair)
    return inp, outp, gold, meta


def _build(iid: str, per: dict[str, Any], preds: list[dict], judg: list[dict], cap: int) -> dict[str, Any]:
    inp, outp, gold, meta = _split_prediction(preds, cap)
    # the model's output first (the most-read field), input-like keys of the per-item row go to Input
    outp.sort(key=lambda kv: 0 if _OUTPUT.search(kv[0]) else 1)
    scores = []
    for k, v in per.items():
        if k in _ID_KEYS:
            continue
        if _GOLD.match(k):
            gold.append([k, _text(v, cap)])
        else:
            scores.append([k, _text(v, cap)])
    sections = []
    if inp:
        sections.append({"title": "Input", "fields": inp, "kind": "input"})
    if outp:
        sections.append({"title": "Model output", "fields": outp, "kind": "output"})
    if gold:
        sections.append({"title": "Gold", "fields": gold, "kind": "gold"})
    if judg:
        jf: list[list[str]] = []
        for i, row in enumerate(judg):
            pre = f"[{i}] " if len(judg) > 1 else ""
            jf.extend([pre + k, _text(v, cap)] for k, v in row.items() if k not in _ID_KEYS)
        sections.append({"title": "Judge", "fields": jf, "kind": "judge"})
    if scores:
        sections.append({"title": "Scores", "fields": scores, "kind": "scores"})
    if meta:
        sections.append({"title": "Call details", "fields": meta, "kind": "meta"})
    return {"id": iid, "summary": _summary(per, preds), "sections": sections}


def run_items(run: RunData) -> dict[str, Any]:
    """Drill-down payload of one run: up to :data:`MAX_ITEMS` items joined by id.

    Returns:
        ``{"items": [...], "total": n, "shown": k}``; items keep the per-item order
        (then predictions-only ids, then judgments-only ids).
    """
    order: list[str] = []
    per: dict[str, dict] = {}
    preds: dict[str, list[dict]] = {}
    judg: dict[str, list[dict]] = {}
    for i, r in enumerate(run.per_item):
        iid = item_id(r) or f"#{i}"
        if iid not in per:
            order.append(iid)
        per[iid] = r
    for name, target in (("predictions", preds), ("judgments", judg)):
        for i, r in enumerate(getattr(run, name)):
            iid = item_id(r) or f"{name}#{i}"
            if iid not in per and iid not in preds and iid not in judg:
                order.append(iid)
            target.setdefault(iid, []).append(r)
    shown = order[:MAX_ITEMS]
    for cap in (MAX_CHARS, 2000, 600):
        items = [_build(i, per.get(i, {}), preds.get(i, []), judg.get(i, []), cap) for i in shown]
        if len(json.dumps(items, ensure_ascii=False, default=str)) <= RUN_BUDGET:
            break
    return {"items": items, "total": len(order), "shown": len(shown)}
