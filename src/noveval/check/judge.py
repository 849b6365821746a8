"""The model's opinions: structuring free text, a RINoBench-rubric judgment, a NovBench-style evaluation.

* The rubric judgment reuses RINoBench's prompt, schema and parser
  (:func:`noveval.benchmarks.rinobench.generate.build_request`,
  :func:`~noveval.benchmarks.rinobench.parse.parse_judgment`), with the retrieved works
  as the related works.
* The structured evaluation follows NovBench's Positive / Neutral / Negative layout, but
  asks for JSON so that each point names the retrieved works (``[1]``, ``[2]`` ...) it
  relies on. A point citing nothing, or only numbers that were not retrieved, is flagged.

Every call goes through the (cached) chat client.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from noveval.check.prompts import render_messages
from noveval.check.retrieve import Neighbour
from noveval.models.chat import ChatClientProtocol
from noveval.records import Idea

__all__ = ["structure_idea", "rubric_judgment", "sampling_note", "structured_evaluation", "SECTIONS"]

SECTIONS = ("positive", "neutral", "negative")
_CITE = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")


class _Point(BaseModel):
    point: str
    cites: list[int] = Field(default_factory=list)


class _Evaluation(BaseModel):
    positive: list[_Point] = Field(default_factory=list, max_length=5)
    neutral: list[_Point] = Field(default_factory=list, max_length=5)
    negative: list[_Point] = Field(default_factory=list, max_length=5)


def _params(max_tokens: int, seed: int) -> Any:
    from noveval.models.chat import GenerationParams

    return GenerationParams(temperature=0.0, max_tokens=max_tokens, seed=seed)


def _works(neighbours: Sequence[Neighbour], max_chars: int) -> str:
    rows = []
    for n in neighbours:
        a = n.abstract if len(n.abstract) <= max_chars else n.abstract[:max_chars].rstrip() + " ..."
        rows.append(f"[{n.rank}] {n.title} ({n.year or 'n.d.'}): {a}")
    return "\n".join(rows) or "(none)"


async def structure_idea(client: ChatClientProtocol, text: str, *, seed: int = 0) -> tuple[Idea | None, str | None]:
    """Ask the model to structure free text (or a paper) into problem/objective/approach.

    Returns:
        ``(idea, None)`` or ``(None, error)``.
    """
    from noveval.benchmarks.rinobench.construct import IdeaReply
    from noveval.models.chat import ChatRequest
    from noveval.models.structured import acomplete_structured

    req = ChatRequest(messages=render_messages("structure_idea", text=text[:4000]), params=_params(400, seed),
                      tag="check:structure")
    res = await acomplete_structured(client, req, IdeaReply)
    if res.value is None:
        return None, res.error
    v = res.value
    if not all(s.strip() for s in (v.problem_statement, v.objective, v.solution_approach)):
        return None, "the model left a part of the idea empty"
    return Idea(**v.model_dump()), None


async def rubric_judgment(client: ChatClientProtocol, idea: Idea, neighbours: Sequence[Neighbour], *, seed: int = 0,
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
    from noveval.benchmarks.rinobench.data import DEFAULT_RUBRIC, RINoBenchItem
    from noveval.benchmarks.rinobench.generate import build_request
    from noveval.benchmarks.rinobench.parse import parse_judgment
    from noveval.metrics.consistency import sample_seeds, vote_ordinal
    from noveval.records import RelatedWork

    item = RINoBenchItem(id="check", research_idea=idea, related_works=[
        RelatedWork(title=n.title, abstract=n.abstract, year=n.year) for n in neighbours])
    seeds = sample_seeds(seed, samples)
    reqs = [build_request(item, DEFAULT_RUBRIC, seed=s, max_abstract_chars=max_abstract_chars, temperature=temperature)
            for s in seeds]
    judged: list[dict[str, Any]] = []
    for resp in await client.acomplete_many(reqs):
        parsed = parse_judgment(resp.text if resp.ok else None)
        cites = sorted({int(x) for m in _CITE.finditer(parsed.reasoning or "") for x in m.group(1).split(",")})
        judged.append({
            "score": parsed.score, "label": DEFAULT_RUBRIC.get(parsed.score or 0), "justification": parsed.reasoning,
            "parse_status": parsed.status, "error": resp.error, "raw": resp.text, "cached": resp.cached,
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
        "cached": all(j["cached"] for j in judged),
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


def check_citations(cites: Sequence[int], text: str, k: int) -> tuple[list[int], list[int], str | None]:
    """Valid and invalid citation numbers of a point (from its list and ``[n]`` in its text) and a flag."""
    nums = {int(c) for c in cites} | {int(x) for m in _CITE.finditer(text) for x in m.group(1).split(",")}
    valid = sorted(c for c in nums if 1 <= c <= k)
    invalid = sorted(c for c in nums if not 1 <= c <= k)
    flag = None
    if not valid:
        flag = "cites no retrieved work" + (f" (cites {invalid}, which were not retrieved)" if invalid else "")
    elif invalid:
        flag = f"also cites {invalid}, which were not retrieved"
    return valid, invalid, flag


async def structured_evaluation(client: ChatClientProtocol, submission: str, neighbours: Sequence[Neighbour], *, seed: int = 0,
                                max_abstract_chars: int = 600) -> dict[str, Any]:
    """NovBench-style Positive/Neutral/Negative evaluation; each point with its cited works and flag."""
    from noveval.models.chat import ChatRequest
    from noveval.models.structured import acomplete_structured

    req = ChatRequest(
        messages=render_messages("structured_evaluation", submission=submission,
                                 related_works=_works(neighbours, max_abstract_chars)),
        params=_params(700, seed), tag="check:evaluation")
    res = await acomplete_structured(client, req, _Evaluation)
    out: dict[str, Any] = {"error": res.error, "raw": res.raw[-1] if res.raw else None}
    k = len(neighbours)
    n_flagged = 0
    for sec in SECTIONS:
        points = []
        for p in (getattr(res.value, sec) if res.value is not None else []):
            if not p.point.strip():
                continue
            valid, invalid, flag = check_citations(p.cites, p.point, k)
            n_flagged += flag is not None
            points.append({"point": p.point.strip(), "cites": valid, "invalid_cites": invalid, "flag": flag})
        out[sec] = points
    out["n_points"] = sum(len(out[s]) for s in SECTIONS)
    out["n_flagged"] = n_flagged
    return out
