"""Ask, parse and score ``novelty-pairs``: each pair in both orders, metrics over pairs.

Asking (:func:`agenerate`): every pair is put to the model twice, order ``ab`` (side
``a`` shown as A) and order ``ba`` (side ``b`` shown as A), with the ``compare`` prompt.
With ``structured=True`` the backend is asked for JSON constrained to
``{"more_novel": "A" | "B" [| "tie"]}`` (:func:`answer_schema`); the answer is parsed
robustly either way (:func:`parse_choice`), and an unparseable answer is kept and counted,
not failed. ``allow_tie=False`` removes "tie" from the prompt and the schema.

Scoring (:func:`score_pairs`), one ``per_item.jsonl`` row per pair (so ``noveval compare``
pairs two runs by pair id); each metric is a per-pair value, averaged over pairs with a
95% percentile bootstrap CI over pairs (:func:`noveval.metrics.bootstrap.summarize`):

- ``accuracy`` (primary; range [0, 1], best 1, a coin flip scores 0.5): the share of the
  pair's two answers that name the more original side. A tie or an unparseable answer
  counts as not correct; a failed call is left out (and reported as a failure).
- ``accuracy_gold_first`` / ``accuracy_gold_second``: the same for the one answer in
  which the more original side was shown first (as A) / second (as B).
- ``consistent_accuracy`` (both-orders-consistent accuracy): 1 when both answers name the
  more original side, else 0.
- ``position_consistency``: 1 when both orders give the same verdict about the items
  (same side, or tie twice), else 0; pairs with an unparseable or failed answer are left out.
- ``first_slot_rate`` (position bias; 0.5 is none, 1 always A): the share of the pair's
  A/B answers that chose A; ties and unparseable answers are left out.
- ``tie_rate`` and ``unparseable_rate``: shares of the pair's answered calls.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from noveval.benchmarks.pairs.data import Pair
from noveval.benchmarks.pairs.prompts import render_messages
from noveval.metrics.consistency import sample_seeds, vote_labels
from noveval.models.calls import note_answer
from noveval.models.chat import ChatClientProtocol, ChatRequest, GenerationParams
from noveval.models.structured import find_json_object
from noveval.runs import run_items

__all__ = ["ORDERS", "METRICS", "answer_schema", "build_request", "parse_choice", "agenerate", "score_pairs"]

ORDERS: tuple[str, ...] = ("ab", "ba")
"""``ab``: side ``a`` shown as A; ``ba``: side ``b`` shown as A."""

METRICS: tuple[str, ...] = ("accuracy", "accuracy_gold_first", "accuracy_gold_second", "consistent_accuracy",
                            "position_consistency", "first_slot_rate", "tie_rate", "unparseable_rate")


def answer_schema(allow_tie: bool = True) -> dict[str, Any]:
    """JSON schema of the answer: ``{"more_novel": "A" | "B" [| "tie"]}``."""
    choices = ["A", "B", "tie"] if allow_tie else ["A", "B"]
    return {"type": "object", "properties": {"more_novel": {"type": "string", "enum": choices}},
            "required": ["more_novel"]}


def build_request(pair: Pair, order: str, *, allow_tie: bool = True, structured: bool = True,
                  max_tokens: int = 32, temperature: float = 0.0, seed: int = 0) -> Any:
    """The :class:`~noveval.models.chat.ChatRequest` for ``pair`` in ``order`` (``ab`` or ``ba``)."""
    first, second = (pair.a, pair.b) if order == "ab" else (pair.b, pair.a)
    messages = render_messages("compare", kind=pair.kind, first=first.text, second=second.text, allow_tie=allow_tie)
    params = GenerationParams(temperature=temperature, max_tokens=max_tokens, seed=seed,
                              json_schema=answer_schema(allow_tie) if structured else None)
    return ChatRequest(messages=messages, params=params, tag=f"novelty-pairs:{pair.id}:{order}")


_JSON_KEY = re.compile(r'"more_novel"\s*:\s*"\s*(A|B|tie)\s*"', re.I)
_NAMED = re.compile(r"\b(?:paper|idea|option|answer|candidate)\s*:?\s*\(?([AB])\)?(?![\w'])", re.I)
_BARE = re.compile(r"^\W*(A|B|tie)\W*$", re.I)


def parse_choice(text: str | None, *, allow_tie: bool = True) -> str | None:
    """The slot a reply chose: ``"A"``, ``"B"``, ``"tie"``, or None (unparseable).

    Tried in turn: ``more_novel`` of the reply's first JSON object (found by noveval's one
    extractor, :func:`noveval.models.structured.find_json_object`: fences, prose around it,
    light repairs, a reply cut off mid-way closed); a ``"more_novel": "X"`` fragment;
    ``Paper/Idea/Option/Answer X``; a reply that is only ``A``, ``B`` or ``tie``. A tie when
    ties are not allowed is unparseable. A lone capital ``A`` inside prose is not taken
    (it is usually the article).
    """
    if not text:
        return None
    found: str | None = None
    obj = find_json_object(text)
    if obj is not None and isinstance(obj.get("more_novel"), str):
        found = obj["more_novel"].strip()
    if found is None:
        for pat in (_JSON_KEY, _NAMED, _BARE):
            m = pat.search(text.strip())
            if m:
                found = m.group(1)
                break
    if found is None:
        return None
    low = found.lower()
    if low == "tie":
        return "tie" if allow_tie else None
    return found.upper() if found.upper() in ("A", "B") else None


async def agenerate(pairs: Sequence[Pair], client: ChatClientProtocol, run: Any, *, allow_tie: bool = True, structured: bool = True,
                    max_tokens: int = 32, temperature: float = 0.0, seed: int = 0, samples: int = 1,
                    progress: str | None = "novelty-pairs: asking") -> list[dict[str, Any]]:
    """Ask every pair in both orders, resumably, into ``run``'s ``predictions.jsonl``.

    Each row: ``id`` (``<pair id>:<order>``), ``pair_id``, ``order``, ``choice`` (A, B,
    tie or None), ``parse_status`` (``ok`` / ``unparseable`` / ``call_failed``), ``raw``,
    ``error``, ``finish_reason``, ``cached``. With ``samples`` N > 1 each order is asked N
    times (seeds ``seed .. seed + N - 1``); ``choice`` is the plurality answer
    (:func:`noveval.metrics.consistency.vote_labels`, unparseable samples abstain) and the row
    adds ``samples`` and ``self_consistency`` (the share of samples giving it).
    """
    units = [(p, o) for p in pairs for o in ORDERS]

    async def ask(pair: Pair, order: str, s: int) -> dict[str, Any]:
        req = build_request(pair, order, allow_tie=allow_tie, structured=structured, max_tokens=max_tokens,
                            temperature=temperature, seed=s)
        resp = await client.acomplete(req)
        choice = parse_choice(resp.text, allow_tie=allow_tie) if resp.ok else None
        status = "call_failed" if not resp.ok else ("ok" if choice is not None else "unparseable")
        note_answer(client, resp, usable=status == "ok", role="model")
        return {"choice": choice, "parse_status": status, "raw": resp.text, "error": resp.error if not resp.ok else None,
                "finish_reason": resp.finish_reason, "cached": resp.cached, "seed": s}

    async def worker(unit: tuple[Pair, str]) -> dict[str, Any]:
        pair, order = unit
        got = [await ask(pair, order, s) for s in sample_seeds(seed, samples)]
        row = {"id": f"{pair.id}:{order}", "pair_id": pair.id, "order": order, **{k: v for k, v in got[0].items() if k != "seed"}}
        if samples > 1:
            choice, share = vote_labels([g["choice"] for g in got])
            failed = any(g["parse_status"] == "call_failed" for g in got)
            row.update(choice=choice, self_consistency=share,
                       parse_status="call_failed" if failed else ("ok" if choice is not None else "unparseable"),
                       error=next((g["error"] for g in got if g["error"]), None),
                       samples=[{"seed": g["seed"], "choice": g["choice"], "parse_status": g["parse_status"]} for g in got])
        return row

    return await run_items(run, "predictions", units, worker, id_of=lambda u: f"{u[0].id}:{u[1]}", progress=progress)


def _side(choice: str | None, order: str) -> str | None:
    """The side (``a``/``b``/``tie``) a slot choice names in ``order``."""
    if choice in (None, "tie"):
        return choice
    return {"ab": {"A": "a", "B": "b"}, "ba": {"A": "b", "B": "a"}}[order][choice]


def _mean(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def pair_row(pair: Pair, answers: dict[str, dict[str, Any] | None]) -> dict[str, Any]:
    """The per-item row of one pair from its two prediction rows (``answers[order]``; None: not asked)."""
    gold = pair.gold
    ok = {o: r for o, r in answers.items() if r is not None and r.get("parse_status") != "call_failed"}
    sides = {o: _side(r.get("choice"), o) for o, r in ok.items()}
    correct = {o: float(s == gold) for o, s in sides.items()}
    gold_first_order = "ab" if gold == "a" else "ba"
    gold_second_order = "ba" if gold == "a" else "ab"
    parsed = {o: s for o, s in sides.items() if s is not None}
    slots = [float(ok[o]["choice"] == "A") for o in parsed if parsed[o] != "tie"]
    both = len(ok) == len(ORDERS)
    return {
        "id": pair.id, "area": pair.area, "gold": gold, "gold_a": pair.a.gold, "gold_b": pair.b.gold,
        "answer_ab": sides.get("ab"), "answer_ba": sides.get("ba"),
        "failed": len(ok) < len(ORDERS),
        "accuracy": _mean(list(correct.values())),
        "accuracy_gold_first": correct.get(gold_first_order),
        "accuracy_gold_second": correct.get(gold_second_order),
        "consistent_accuracy": float(all(correct.values())) if both else None,
        "position_consistency": float(parsed["ab"] == parsed["ba"]) if len(parsed) == len(ORDERS) else None,
        "first_slot_rate": _mean(slots),
        "tie_rate": _mean([float(s == "tie") for s in parsed.values()]) if ok else None,
        "unparseable_rate": _mean([float(s is None) for s in sides.values()]),
        **({"self_consistency": _mean([float(r["self_consistency"]) for r in ok.values()
                                        if r.get("self_consistency") is not None])}
           if any("self_consistency" in r for r in ok.values()) else {}),
    }


def score_pairs(pairs: Sequence[Pair], predictions: dict[str, dict[str, Any]], *, seed: int = 0) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Per-pair rows and the metrics (see the module docstring) from saved predictions.

    Args:
        pairs: The run's pairs.
        predictions: Prediction rows by id (``<pair id>:<order>``).
        seed: Bootstrap seed.

    Returns:
        ``(per_item rows, {metric: {mean, ci_low, ci_high, n}})``.
    """
    from noveval.metrics.bootstrap import summarize

    rows = [pair_row(p, {o: predictions.get(f"{p.id}:{o}") for o in ORDERS}) for p in pairs]
    names = [*METRICS, *(["self_consistency"] if any("self_consistency" in r for r in rows) else [])]
    return rows, summarize(rows, names, seed=seed)
