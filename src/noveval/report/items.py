"""Per-item data of the report's item table: join predictions, judgments and per-item rows by id.

Every item of a run is kept (no cap on the count). Each run becomes ``{"total", "cols",
"rows", "details", "cap"}``: ``cols`` name the table's columns (the per-item row's short
scalar fields, the gold and the declared answer first), ``rows`` hold one array per item
(id first) for the page's client-side table (filter, search, sort, pages), and
``details[k]`` is what a click on row ``k`` opens: ``{"sections": [{"title", "kind",
"fields": [[key, text]]}]}``. Fields are sorted into *Input*, *Model output*, *Gold*,
*Judge*, *Scores* and *Call details* by key name, so systems the report does not know
still get a sensible panel. A per-item field shown as a column is not repeated in the
details: the page puts it back into the panel's *Gold* or *Scores* section (the column's
``sec``).

Model calls: ``calls[str(k)]`` lists the chat requests made for row ``k`` (the run folder's
``transcripts.jsonl``, :func:`noveval.report.load.read_transcripts`): stage, role, model,
generation parameters, the rendered messages, the reply, finish reason, tokens, whether it
came from the cache, the failure and the parser's verdict. Messages point into ``texts``, the
run's distinct message texts, so a system prompt or few-shot block every item shares is in the
page once; the model and parameters point into ``setups`` the same way.

Size: a run's details are kept within :data:`RUN_BUDGET` characters by cutting every
field to the largest of :data:`CAPS` that fits (the cut is said in the field); at the
smallest cap every item keeps its details all the same, so a page grows by roughly 1 KB
an item past that. Transcripts have a budget of their own, :data:`TRANSCRIPT_BUDGET`, met the
same way (texts and replies cut to the largest of :data:`CAPS` that fits; at the smallest
every call is kept all the same, about 500 characters a call).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from noveval.report.fmt import num
from noveval.report.model import RunData

__all__ = ["item_table", "item_id", "CAPS", "MAX_CHARS", "MAX_COLUMNS", "RUN_BUDGET", "TRANSCRIPT_BUDGET"]

MAX_CHARS = 8000
"""Characters kept per field at most (the page shows the first 700 and a "show more" link)."""
CAPS = (MAX_CHARS, 2000, 1000, 600, 400, 240)
"""Characters kept per field, tried in turn until a run's details fit :data:`RUN_BUDGET`."""
RUN_BUDGET = 2_000_000
"""Characters of item details per run in the page."""
TRANSCRIPT_BUDGET = 2_000_000
"""Characters of model-call transcripts (distinct message texts and replies) per run in the page."""
MAX_COLUMNS = 10
"""Table columns per run besides the id (the rest are in the row's details and searchable)."""
_SHORT = 40
"""A string field longer than this on any item is text for the details, not a table column."""
_CATEGORIES = 12
"""A column with at most this many distinct values (missing included) gets a filter."""

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


def _build(per: dict[str, Any], preds: list[dict], judg: list[dict], cap: int, shown: frozenset[str] = frozenset()) -> dict[str, Any]:
    inp, outp, gold, meta = _split_prediction(preds, cap)
    # the model's output first (the most-read field), input-like keys of the per-item row go to Input
    outp.sort(key=lambda kv: 0 if _OUTPUT.search(kv[0]) else 1)
    scores = []
    for k, v in per.items():
        if k in _ID_KEYS or k in shown:
            continue
        if _GOLD.match(k):
            gold.append([k, _text(v, cap)])
        else:
            scores.append([k, _text(v, cap)])
    sections = []
    for title, kind, fields in (("Input", "input", inp), ("Model output", "output", outp), ("Gold", "gold", gold)):
        if fields:
            sections.append({"title": title, "fields": fields, "kind": kind})
    if judg:
        jf: list[list[str]] = []
        for i, row in enumerate(judg):
            pre = f"[{i}] " if len(judg) > 1 else ""
            jf.extend([pre + k, _text(v, cap)] for k, v in row.items() if k not in _ID_KEYS)
        sections.append({"title": "Judge", "fields": jf, "kind": "judge"})
    for title, kind, fields in (("Scores", "scores", scores), ("Call details", "meta", meta)):
        if fields:
            sections.append({"title": title, "fields": fields, "kind": kind})
    return {"sections": sections}


def _join(run: RunData) -> tuple[list[str], dict[str, dict], dict[str, list[dict]], dict[str, list[dict]]]:
    """Item ids in order (per-item order, then predictions-only, then judgments-only) and the rows of each."""
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
    return order, per, preds, judg


def _cell(v: Any) -> str | float | int | None:
    """A table value: numbers stay numbers (NaN: missing), booleans become yes/no."""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v if v is None or isinstance(v, (int, float, str)) else None


def _scalar_keys(rows: list[dict[str, Any]], skip: set[str]) -> list[str]:
    """Keys whose value is a number, a boolean, a short string or missing on every row (first-seen order)."""
    ok: dict[str, bool] = {}
    for r in rows:
        for k, v in r.items():
            if k in skip:
                continue
            fine = v is None or isinstance(v, (bool, int, float)) or (isinstance(v, str) and len(v) <= _SHORT)
            ok[k] = ok.get(k, True) and fine
    return [k for k, fine in ok.items() if fine]


def _column(name: str, values: list[Any], role: str) -> dict[str, Any]:
    present = [v for v in values if v is not None]
    numeric = bool(present) and all(isinstance(v, (int, float)) for v in present)
    distinct = len({json.dumps(v) for v in values})
    return {"name": name, "type": "num" if numeric else "text", "cat": distinct <= _CATEGORIES, "role": role,
            "constant": distinct == 1}


def _columns(order: list[str], per: dict[str, dict], preds: dict[str, list[dict]],
             answer: tuple[str, str | None] | None) -> tuple[list[dict[str, Any]], list[list[Any]]]:
    """The table's columns (gold, answer, varying ones first) and one value list per column."""
    per_rows = [per[i] for i in order if i in per]
    first_pred = {i: rows[0] for i, rows in preds.items() if rows}
    skip = set(_ID_KEYS)
    sources: list[tuple[str, dict[str, dict]]] = []
    if per_rows:
        sources += [(k, per) for k in _scalar_keys(per_rows, skip)]
    elif first_pred:
        sources += [(k, first_pred) for k in _scalar_keys(list(first_pred.values()), skip | _BOOKKEEPING)]
    names = [k for k, _ in sources]
    if answer is not None and answer[0] not in names and answer[1] and first_pred:
        sources.append((answer[1], first_pred))  # runs without gold: the answer is in predictions.jsonl
    answer_names = {answer[0], answer[1]} if answer is not None else set()
    gold = next((k for k, _ in sources if _GOLD.match(k)), None)
    cols, values = [], []
    for k, src in sources:
        vals = [_cell((src.get(i) or {}).get(k)) for i in order]
        role = "gold" if k == gold else "answer" if k in answer_names else ""
        if role != "answer" and all(v is None for v in vals):  # no answer at all is an answer (unparseable)
            continue
        col = _column(k, vals, role)
        if src is per:  # shown from the row in the panel, not repeated in the details
            col["sec"] = "gold" if _GOLD.match(k) else "scores"
        cols.append(col)
        values.append(vals)
    rank = sorted(range(len(cols)), key=lambda c: ({"gold": 0, "answer": 1}.get(cols[c]["role"], 2), cols[c]["constant"]))
    rank = rank[:MAX_COLUMNS]
    return [cols[c] for c in rank], [values[c] for c in rank]


def _details(order: list[str], per: dict[str, dict], preds: dict[str, list[dict]], judg: dict[str, list[dict]],
             shown: frozenset[str], budget: int) -> tuple[list[dict[str, Any]], int]:
    """Each item's details, fields cut to the largest of :data:`CAPS` that fits ``budget``: ``(details, cap)``."""
    for cap in CAPS:
        built = [_build(per.get(i, {}), preds.get(i, []), judg.get(i, []), cap, shown) for i in order]
        if sum(len(json.dumps(d, ensure_ascii=False, default=str)) for d in built) <= budget:
            break
    return built, cap


def _call_view(row: dict[str, Any], texts: dict[str, int], setups: dict[str, int]) -> dict[str, Any]:
    """One transcript row as the page shows it.

    Its message texts are numbered into ``texts`` and its model and parameters into ``setups``
    (JSON of ``{"model", "params": [[name, value]]}``), so what many calls share is kept once.
    """
    msgs = []
    for m in row.get("messages") or []:
        content = m.get("content") if isinstance(m, dict) else None
        content = content if isinstance(content, str) else _text(content)
        msgs.append([str(m.get("role", "")) if isinstance(m, dict) else "", texts.setdefault(content, len(texts))])
    params = row.get("params")
    shown = []
    for k, v in (params.items() if isinstance(params, dict) else ()):
        if k == "json_schema" and isinstance(v, dict):  # recorded by its title and hash, not in full
            v = f"{v.get('title') or 'schema'} (sha {v.get('sha')})"
        shown.append([k, v if isinstance(v, str) else _text(json.dumps(v, ensure_ascii=False, default=str), 400)])
    setup = json.dumps({"model": str(row.get("model") or "?"), "params": shown}, ensure_ascii=False)
    return {"stage": row.get("stage"), "role": row.get("answer_role"), "setup": setups.setdefault(setup, len(setups)),
            "tag": row.get("tag"), "msgs": msgs, "reply": row.get("reply"), "finish": row.get("finish_reason"),
            "tokens": [row.get("prompt_tokens"), row.get("completion_tokens")], "cached": bool(row.get("cached")),
            "error": row.get("error"), "usable": row.get("usable")}


def _transcripts(order: list[str], rows: list[dict[str, Any]], budget: int) -> dict[str, Any]:
    """``{"calls", "texts", "setups", "tcap"}``: each item's calls by row index, what they share, the cap used."""
    index = {iid: k for k, iid in enumerate(order)}
    texts: dict[str, int] = {}
    setups: dict[str, int] = {}
    calls: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        k = index.get(str(row.get("item")))
        if k is not None:
            calls.setdefault(str(k), []).append(_call_view(row, texts, setups))
    whole = list(texts)
    flat = [c for cs in calls.values() for c in cs]
    full = [c["reply"] if isinstance(c["reply"], str) else None for c in flat]
    fixed = len(json.dumps(list(setups), ensure_ascii=False))
    for cap in CAPS:
        cut = [_text(t, cap) for t in whole]
        for c, reply in zip(flat, full):
            if reply is not None:
                c["reply"] = _text(reply, cap)
        size = fixed + len(json.dumps(cut, ensure_ascii=False)) + len(json.dumps(calls, ensure_ascii=False, default=str))
        if size <= budget:
            break
    return {"calls": calls, "texts": cut, "setups": [json.loads(x) for x in setups], "tcap": cap}


def item_table(run: RunData, answer: tuple[str, str | None] | None = None, budget: int = RUN_BUDGET) -> dict[str, Any]:
    """The item table's data of one run: every item joined by id.

    Args:
        run: The run.
        answer: ``(per-item field, predictions field)`` of the system's per-item answer
            (:func:`noveval.report.compare.answer_spec`); its column is always in the table.
        budget: Characters of details aimed at (see the module docstring).

    Returns:
        ``{"total", "cols", "rows", "details", "cap", "calls", "texts", "setups", "tcap"}`` (module
        docstring); rows keep the per-item order (then predictions-only ids, then
        judgments-only ids).
    """
    order, per, preds, judg = _join(run)
    cols, values = _columns(order, per, preds, answer)
    rows = [[iid, *(v[k] for v in values)] for k, iid in enumerate(order)]
    shown = frozenset(c["name"] for c in cols if "sec" in c)
    details, cap = _details(order, per, preds, judg, shown, budget)
    for c in cols:
        del c["constant"]
    return {"total": len(order), "cols": cols, "rows": rows, "details": details, "cap": cap,
            **_transcripts(order, run.transcripts, TRANSCRIPT_BUDGET)}
