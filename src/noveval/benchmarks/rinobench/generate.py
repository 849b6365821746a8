"""The RINoBench task: a model judges an idea's novelty, 1-5 with a justification (Section 5).

The model gets the rubric (Table 1), the research idea (problem statement, objective,
solution approach) and the titles and abstracts of its related works, and is asked to
analyse the idea, compare it with the related works and answer a score and a brief
justification (the zero-shot setup of Section 5 / Figure 6; the wording is ours, see
``prompts/judge_novelty.txt``). With ``structured=True`` (default) the backend is asked
for schema-constrained JSON; the answer is parsed robustly either way
(:mod:`noveval.judging.parse`), and an unparseable answer is kept with ``novelty_score=None``.
The request (:func:`build_request`), its schema and the parser are shared with validate and
``noveval check``: they are defined in :mod:`noveval.judging` and re-exported here.

Protocols (:data:`PROTOCOLS`), recorded in the run's config and ``scores.json``:

- ``"noveval"`` (default): ``prompts/judge_novelty.txt``, temperature 0, answers
  schema-constrained unless ``structured=False``.
- ``"paper"``: the set-up of the authors' released ``predict_novelty.py``: temperature
  1, a prompt (``prompts/judge_novelty_paper.txt``, our wording) that asks for the same
  steps and for a 2-4 sentence justification, with a system message, and no
  schema-constrained decoding (the released script asks for JSON in the prompt and
  reads it from the reply). The released script re-asks until the reply holds JSON (up
  to 1000 times); noveval asks once and records an unparseable answer as such.

``samples=N`` (issue 18, self-consistency): each item is asked N times, sample ``k`` with
seed ``seed + k`` (sample 0 is the single-sample answer, so it comes from the cache), at
the protocol's temperature (or ``temperature``); the answer is the plurality score of the
parsed samples (:func:`vote`; an unparseable sample abstains) and the row records every
sample's score and ``self_consistency``, the share of the N samples that gave the answer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, TypedDict, Unpack

from noveval.judging.items import RINoBenchItem
from noveval.judging.parse import parse_judgment
from noveval.judging.request import build_request, format_related_works
from noveval.judging.rubric import JUDGMENT_SCHEMA
from noveval.metrics.consistency import vote_ordinal as vote  # shared (issue 18); `vote` kept
from noveval.models.calls import note_answer
from noveval.models.chat import ChatClientProtocol
from noveval.runs import run_items

__all__ = ["JUDGMENT_SCHEMA", "PROTOCOLS", "protocol_params", "format_related_works", "build_request", "RequestOptions", "agenerate", "vote"]

PROTOCOLS: tuple[str, ...] = ("noveval", "paper")
"""Generation protocols: ours (temperature 0, our prompt) and the released code's."""

_PROMPT = {"noveval": "judge_novelty", "paper": "judge_novelty_paper"}


def protocol_params(protocol: str, *, structured: bool = True, temperature: float | None = None) -> dict[str, Any]:
    """The generation settings a protocol fixes.

    Args:
        protocol: ``"noveval"`` or ``"paper"``.
        structured: Schema-constrained answers (``"noveval"`` only; ``"paper"`` never).
        temperature: Override the protocol's temperature (None: 0 for ``"noveval"``,
            1 for ``"paper"``).

    Returns:
        ``{"protocol", "prompt", "temperature", "structured"}``.

    Raises:
        ValueError: unknown protocol.
    """
    if protocol not in PROTOCOLS:
        raise ValueError(f"protocol must be one of {PROTOCOLS}, got {protocol!r}")
    paper = protocol == "paper"
    return {
        "protocol": protocol,
        "prompt": _PROMPT[protocol],
        "temperature": float(temperature if temperature is not None else (1.0 if paper else 0.0)),
        "structured": False if paper else structured,
    }


class RequestOptions(TypedDict, total=False):
    """The generation settings :func:`agenerate` passes on to :func:`build_request` (each optional)."""

    structured: bool
    max_tokens: int
    temperature: float
    max_related_works: int | None
    max_abstract_chars: int | None
    prompt: str


async def agenerate(
    items: Sequence[RINoBenchItem],
    client: ChatClientProtocol,
    run: Any,
    *,
    rubric: dict[int, str],
    seed: int = 0,
    samples: int = 1,
    progress: str | None = "rinobench: judging novelty",
    **request: Unpack[RequestOptions],
) -> list[dict[str, Any]]:
    """Run the task over ``items``, resumably, writing ``predictions.jsonl`` in ``run``.

    Each row: ``id, reasoning, novelty_score`` (1..5 or None), ``parse_status``,
    ``raw`` (the model's words), ``error`` (a failed call), ``finish_reason``, ``cached``.
    With ``samples > 1`` (see the module docstring) also ``samples`` (each sample's
    ``seed``, ``novelty_score``, ``parse_status``) and ``self_consistency``; the
    reasoning and raw text are those of the first sample that gave the answer, and a
    row any of whose calls failed is a failed row (a re-run redoes only those calls).

    ``request`` holds :func:`build_request`'s generation settings (its defaults where
    not given).

    Returns:
        The prediction rows in input order.
    """

    async def one(item: RINoBenchItem, sample_seed: int) -> dict[str, Any]:
        req = build_request(item, rubric, seed=sample_seed, **request)
        resp = await client.acomplete(req)
        if not resp.ok:
            return {
                "id": item.id,
                "reasoning": None,
                "novelty_score": None,
                "parse_status": "call_failed",
                "raw": resp.text,
                "error": resp.error,
                "finish_reason": resp.finish_reason,
                "cached": resp.cached,
            }
        parsed = parse_judgment(resp.text)
        note_answer(client, resp, usable=parsed.ok, role="model")
        return {
            "id": item.id,
            "reasoning": parsed.reasoning,
            "novelty_score": parsed.score,
            "parse_status": "ok" if parsed.ok else parsed.status,
            "parse_method": parsed.status if parsed.ok else None,
            "raw": resp.text,
            "error": None,
            "finish_reason": resp.finish_reason,
            "cached": resp.cached,
        }

    async def worker(item: RINoBenchItem) -> dict[str, Any]:
        if samples <= 1:
            return await one(item, seed)

        rows = await asyncio.gather(*(one(item, seed + k) for k in range(samples)))
        failed = [r for r in rows if r["error"]]
        answer, consistency = vote([r["novelty_score"] for r in rows])
        chosen = failed[0] if failed else next((r for r in rows if r["novelty_score"] == answer), rows[0])
        out = dict(chosen)
        out.update({
            "novelty_score": None if failed else answer,
            "parse_status": "call_failed" if failed else ("ok" if answer is not None else chosen["parse_status"]),
            "samples": [{"seed": seed + k, "novelty_score": r["novelty_score"], "parse_status": r["parse_status"]}
                        for k, r in enumerate(rows)],
            "self_consistency": None if failed else consistency,
            "cached": all(r["cached"] for r in rows),
        })
        return out

    return await run_items(run, "predictions", list(items), worker, id_of=lambda it: str(it.id), progress=progress)
