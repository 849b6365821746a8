"""The model's opinions: structuring free text, a RINoBench-rubric judgment, a NovBench-style evaluation.

* The rubric judgment reuses RINoBench's prompt, rubric, schema and parser, shared in
  :mod:`noveval.judging` (:func:`~noveval.judging.request.build_request`,
  :func:`~noveval.judging.parse.parse_judgment`), with the retrieved works as the related
  works. Structuring free text uses the shared reply schema
  :class:`~noveval.judging.items.IdeaReply`.
* The structured evaluation follows NovBench's Positive / Neutral / Negative layout
  (positive = new, neutral = partly anticipated, negative = anticipated), per claimed
  contribution, and asks for JSON so that each point names the works it relies on
  (``[n]``, their retrieval ranks) and quotes a sentence of one. A point is grounded
  only when it has content and a sentence of a cited work overlaps it
  (:func:`noveval.check.evidence.ground_point`); anything else counts as ungrounded.
* Structuring free text (:func:`structure_idea`) rejects an answer that echoes the
  template's descriptions or loops (:func:`structuring_problem`), asks once more (seed + 1
  at temperature 0.7: greedy decoding would only repeat itself) and reports both
  attempts; the caller then falls back to the heuristic parse.

Every call goes through the (cached) chat client.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from noveval.check.evidence import ground_point, idf_from_texts
from noveval.check.prompts import render_messages
from noveval.judging import DEFAULT_RUBRIC, RINoBenchItem, build_request, parse_judgment
from noveval.judging.items import IdeaReply
from noveval.metrics.consistency import sample_seeds, vote_ordinal
from noveval.models.calls import note_answer
from noveval.models.chat import ChatClientProtocol, ChatRequest, GenerationParams
from noveval.models.structured import acomplete_structured
from noveval.records import Idea, RelatedWork

__all__ = ["structure_idea", "structuring_problem", "rubric_judgment", "sampling_note", "structured_evaluation",
           "check_citations", "SECTIONS"]

SECTIONS = ("positive", "neutral", "negative")
_CITE = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")


class _Point(BaseModel):
    point: str
    cites: list[int] = Field(default_factory=list)
    contribution: int | None = None
    quote: str | None = None


class _Evaluation(BaseModel):
    positive: list[_Point] = Field(default_factory=list, max_length=5)
    neutral: list[_Point] = Field(default_factory=list, max_length=5)
    negative: list[_Point] = Field(default_factory=list, max_length=5)


def _params(max_tokens: int, seed: int) -> Any:
    return GenerationParams(temperature=0.0, max_tokens=max_tokens, seed=seed)


def _works(works: Sequence[Any], max_chars: int) -> str:
    rows = []
    for n in works:
        a = n.abstract if len(n.abstract) <= max_chars else n.abstract[:max_chars].rstrip() + " ..."
        rows.append(f"[{n.rank}] {n.title} ({n.year or 'n.d.'}): {a}")
    return "\n".join(rows) or "(none)"


_TEMPLATE_PARTS = {
    "problem_statement": "the problem or gap it addresses",
    "objective": "what it sets out to achieve",
    "solution_approach": "how it proposes to achieve it the method and its key components",
}
"""The structuring template's description of each part (an answer repeating them is an echo)."""


def structuring_problem(parts: dict[str, str]) -> str | None:
    """Why a structuring answer is unusable, or None.

    Unusable: an empty part; a part that echoes the template's description (half or more
    of the description's words and at most 6 words more); a loop (a part over 1,200
    characters, or 30+ words whose word 4-grams are under 60% distinct).
    """
    for name, text in parts.items():
        words = re.findall(r"[a-z]+", text.lower())
        if not words or text.strip() in ("...", "…"):
            return f"{name} is empty"
        desc = set(re.findall(r"[a-z]+", _TEMPLATE_PARTS.get(name, "")))
        if desc and len(set(words) & desc) >= 0.5 * len(desc) and len(words) <= len(desc) + 6:
            return f"{name} repeats the template ({text.strip()[:60]!r})"
        if len(text) > 1200:
            return f"{name} is {len(text)} characters long (a loop)"
        grams = [tuple(words[i:i + 4]) for i in range(len(words) - 3)]
        if len(words) >= 30 and len(set(grams)) < 0.6 * len(grams):
            return f"{name} repeats itself (a loop)"
    return None


async def structure_idea(client: ChatClientProtocol, text: str, *,
                         seed: int = 0) -> tuple[Idea | None, str | None, list[dict[str, Any]]]:
    """Ask the model to structure free text (or a paper) into problem/objective/approach.

    An answer that does not parse or that :func:`structuring_problem` rejects is asked once
    more (seed + 1, temperature 0.7).

    Returns:
        ``(idea or None, error or None, attempts)``; each attempt ``{seed, temperature,
        answer (the parts or None), rejected (why, or None)}``.
    """
    attempts: list[dict[str, Any]] = []
    for k, temp in ((0, 0.0), (1, 0.7)):
        req = ChatRequest(messages=render_messages("structure_idea", text=text[:4000]),
                          params=GenerationParams(temperature=temp, max_tokens=400, seed=seed + k), tag="check:structure")
        res = await acomplete_structured(client, req, IdeaReply, role="structuring")
        parts = res.value.model_dump() if res.value is not None else None
        why = res.error if parts is None else structuring_problem(parts)
        if parts is not None and why is not None:  # parsed, but an echo or a loop: unusable too
            note_answer(client, res.replies, usable=False, role="structuring")
        attempts.append({"seed": seed + k, "temperature": temp, "answer": parts, "rejected": why})
        if why is None and parts is not None:
            return Idea(**{n: v.strip() for n, v in parts.items()}), None, attempts
    return None, "; ".join(f"attempt {i}: {a['rejected']}" for i, a in enumerate(attempts, 1)), attempts


async def rubric_judgment(client: ChatClientProtocol, idea: Idea, neighbours: Sequence[Any], *, seed: int = 0,
                          max_abstract_chars: int = 600, temperature: float = 0.0, samples: int = 1) -> dict[str, Any]:
    """RINoBench rubric judgment (1-5 + justification) grounded in the retrieved works.

    With ``samples > 1`` (issue 18) the judgment is asked N times, sample ``k`` with seed
    ``seed + k`` at ``temperature`` (above 0), and the score is the plurality of the
    parsed samples (:func:`noveval.metrics.consistency.vote_ordinal`, RINoBench's rule).
    The result then also has ``samples`` (each sample's ``seed``, ``score``,
    ``parse_status``, ``error``), ``self_consistency`` (share of the N samples that gave
    the score, in (0, 1], best 1; None when none parsed) and ``temperature``; the
    justification is that of the first sample giving the score. Any failed sample call
    makes the judgment failed (``score`` None, ``error`` set).
    """
    item = RINoBenchItem(id="check", research_idea=idea, related_works=[
        RelatedWork(title=n.title, abstract=n.abstract, year=n.year) for n in neighbours])
    seeds = sample_seeds(seed, samples)
    reqs = [build_request(item, DEFAULT_RUBRIC, seed=s, max_abstract_chars=max_abstract_chars, temperature=temperature)
            for s in seeds]
    judged: list[dict[str, Any]] = []

    for resp in await client.acomplete_many(reqs):
        parsed = parse_judgment(resp.text if resp.ok else None)
        note_answer(client, resp, usable=parsed.ok, role="judge")
        cites = sorted({int(x) for m in _CITE.finditer(parsed.reasoning or "") for x in m.group(1).split(",")})
        judged.append({
            "score": parsed.score, "label": DEFAULT_RUBRIC.get(parsed.score or 0), "justification": parsed.reasoning,
            "parse_status": parsed.status, "error": resp.error, "raw": resp.text,
            "cites": cites, "rubric": DEFAULT_RUBRIC,
        })
    if samples == 1:
        return judged[0]
    failed = [j for j in judged if j["error"]]
    score, consistency = vote_ordinal([j["score"] for j in judged])
    chosen = failed[0] if failed else next((j for j in judged if j["score"] == score), judged[0])
    out: dict[str, Any] = dict(chosen)
    out.update({
        "score": None if failed else score,
        "label": None if failed else DEFAULT_RUBRIC.get(score or 0),
        "temperature": temperature,
        "samples": [{"seed": s, "score": j["score"], "parse_status": j["parse_status"], "error": j["error"]}
                    for s, j in zip(seeds, judged, strict=True)],
        "self_consistency": None if failed else consistency,
    })
    return out


def sampling_note(rubric: dict[str, Any]) -> str:
    """How a sampled rubric judgment was reached, e.g. ``"3 of 5 samples at temperature 0.7
    agree; self-consistency 0.60"`` (``""`` for a one-sample judgment)."""
    samples = rubric.get("samples") or []
    if not samples:
        return ""
    k = sum(1 for x in samples if rubric.get("score") is not None and x["score"] == rubric["score"])
    sc = rubric.get("self_consistency")
    return (f"{k} of {len(samples)} samples at temperature {rubric.get('temperature', 0):g} agree; "
            f"self-consistency {'–' if sc is None else f'{sc:.2f}'}")


def check_citations(cites: Sequence[int], text: str, k: int | dict[int, Any]) -> tuple[list[int], list[int], str | None]:
    """Valid and invalid citation numbers of a point (from its list and ``[n]`` in its text) and a flag.

    Args:
        cites: The numbers the point lists.
        text: The point (``[n]`` in it count too).
        k: The works shown: a dict keyed by their numbers, or a count (numbers 1..k).
    """
    nums = {int(c) for c in cites} | {int(x) for m in _CITE.finditer(text) for x in m.group(1).split(",")}
    shown = set(k) if isinstance(k, dict) else set(range(1, k + 1))
    valid = sorted(c for c in nums if c in shown)
    invalid = sorted(c for c in nums if c not in shown)
    flag = None
    if not valid:
        flag = "cites no retrieved work" + (f" (cites {invalid}, which were not retrieved)" if invalid else "")
    elif invalid:
        flag = f"also cites {invalid}, which were not retrieved"
    return valid, invalid, flag


async def structured_evaluation(client: ChatClientProtocol, submission: str, works: Sequence[Any], *, seed: int = 0,
                                contributions: Sequence[str] = (), idf: Any = None,
                                max_abstract_chars: int = 600) -> dict[str, Any]:
    """NovBench-style Positive/Neutral/Negative evaluation per contribution; each point grounded or not.

    Args:
        client: The chat client.
        submission: The input as plain text.
        works: The works shown (``rank, title, abstract, year``: :class:`~noveval.check.evidence.Work`).
        seed: Generation seed.
        contributions: The input's contributions (numbered from 1 in the prompt).
        idf: ``term -> idf`` for the grounding test (default: from the works' abstracts).
        max_abstract_chars: Abstract characters shown per work.

    Returns:
        ``{error, raw, positive, neutral, negative, n_points, n_grounded, n_ungrounded}``;
        each point ``{contribution, point, cites, invalid_cites, model_quote, quote,
        quote_work, overlap, grounded, why, flag}``.
    """
    listed = "\n".join(f"({j}) {c}" for j, c in enumerate(contributions, 1))
    text = submission + (f"\n\nContributions\n{listed}" if listed else "")
    req = ChatRequest(messages=render_messages("structured_evaluation", submission=text,
                                               related_works=_works(works, max_abstract_chars)),
                      params=_params(900, seed), tag="check:evaluation")
    res = await acomplete_structured(client, req, _Evaluation, role="judge")
    out: dict[str, Any] = {"error": res.error, "raw": res.raw[-1] if res.raw else None}
    by_n = {int(w.rank): w for w in works}
    idf = idf or idf_from_texts([w.abstract for w in works])
    for sec in SECTIONS:
        points = []
        for p in (getattr(res.value, sec) if res.value is not None else []):
            valid, invalid, flag = check_citations(p.cites, p.point, by_n)
            g = ground_point(p.point, valid, p.quote, by_n, idf)
            points.append({"contribution": p.contribution, "point": p.point.strip(), "cites": valid,
                           "invalid_cites": invalid, "model_quote": p.quote, "quote": g["quote"],
                           "quote_work": g["work"], "overlap": g["overlap"], "grounded": g["grounded"], "why": g["why"],
                           "flag": None if g["grounded"] else f"ungrounded: {g['why']}"
                           + (f" ({flag})" if flag and valid == [] and "no work" not in g["why"] else "")})
        out[sec] = points
    out["n_points"] = sum(len(out[s]) for s in SECTIONS)
    out["n_grounded"] = sum(p["grounded"] for s in SECTIONS for p in out[s])
    out["n_ungrounded"] = out["n_points"] - out["n_grounded"]
    return out
