"""The RINoBench task: a model judges an idea's novelty, 1-5 with a justification (Section 5).

The model gets the rubric (Table 1), the research idea (problem statement, objective,
solution approach) and the titles and abstracts of its related works, and is asked to
analyse the idea, compare it with the related works and answer a score and a brief
justification (the zero-shot setup of Section 5 / Figure 6; the wording is ours, see
``prompts/judge_novelty.txt``). With ``structured=True`` (default) the backend is asked
for schema-constrained JSON; the answer is parsed robustly either way
(:mod:`.parse`), and an unparseable answer is kept with ``novelty_score=None``.

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

from collections.abc import Sequence
from typing import Any, TypedDict, Unpack

from noveval.benchmarks.rinobench.data import RINoBenchItem, rubric_text
from noveval.benchmarks.rinobench.parse import parse_judgment
from noveval.benchmarks.rinobench.prompts import render_messages
from noveval.metrics.consistency import vote_ordinal as vote  # shared (issue 18); `vote` kept
from noveval.models.calls import note_answer
from noveval.models.chat import ChatClientProtocol

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

JUDGMENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "reasoning": {"type": "string"},
        "novelty_score": {"type": "integer", "enum": [1, 2, 3, 4, 5]},
    },
    "required": ["reasoning", "novelty_score"],
}
"""JSON schema of the answer: justification first, then the score."""


def format_related_works(
    item: RINoBenchItem, *, max_related_works: int | None = None, max_abstract_chars: int | None = None
) -> str:
    """Render the related works as numbered ``[i] title: abstract`` entries.

    Args:
        item: The item.
        max_related_works: Keep only the first N related works (None: all).
        max_abstract_chars: Cut each abstract to this many characters (None: whole).
    """
    works = item.related_works[:max_related_works] if max_related_works else item.related_works
    lines = []
    for i, w in enumerate(works, start=1):
        abstract = (w.abstract or "").strip()
        if max_abstract_chars and len(abstract) > max_abstract_chars:
            abstract = abstract[:max_abstract_chars].rstrip() + " ..."
        lines.append(f"[{i}] {w.title.strip()}: {abstract}" if abstract else f"[{i}] {w.title.strip()}")
    return "\n".join(lines) if lines else "(none given)"


def build_request(
    item: RINoBenchItem,
    rubric: dict[int, str],
    *,
    structured: bool = True,
    max_tokens: int = 512,
    temperature: float = 0.0,
    seed: int = 0,
    max_related_works: int | None = None,
    max_abstract_chars: int | None = None,
    prompt: str = "judge_novelty",
) -> Any:
    """Build the :class:`~noveval.models.chat.ChatRequest` for one item.

    ``prompt`` names the template (``judge_novelty`` or ``judge_novelty_paper``, see
    :func:`protocol_params`); the other arguments are the generation settings.
    """
    from noveval.models.chat import ChatRequest, GenerationParams

    idea = item.research_idea
    messages = render_messages(
        prompt,
        rubric=rubric_text(rubric),
        problem_statement=idea.problem_statement,
        objective=idea.objective,
        solution_approach=idea.solution_approach,
        related_works=format_related_works(
            item, max_related_works=max_related_works, max_abstract_chars=max_abstract_chars
        ),
    )
    params = GenerationParams(
        temperature=temperature,
        max_tokens=max_tokens,
        seed=seed,
        json_schema=JUDGMENT_SCHEMA if structured else None,
    )
    return ChatRequest(messages=messages, params=params, tag=f"rinobench:{item.id}")


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
    from noveval.runs import run_items


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
        import asyncio

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
