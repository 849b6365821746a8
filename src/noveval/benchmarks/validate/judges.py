"""LLM novelty judges of a paper's title and abstract against its retrieved prior work.

Two prompts (``prompts/``, our wording; override with ``$NOVEVAL_PROMPTS_DIR/validate/``):

* ``rubric`` — RINoBench's task (Schopf et al., §5; rubric of Table 1, score 1-5 with a
  justification) applied to a *paper* (title + abstract) rather than a structured idea,
  with the paper's nearest prior corpus papers as the related works. The rubric, the answer
  schema and the robust parser are RINoBench's, shared in :mod:`noveval.judging`.
* ``direct`` — a direct 1-4 originality rating on the NeurIPS 2025 scale, with the same
  prior works shown.

Both answer schemas cap the justification at :data:`MAX_REASONING_CHARS` characters
(``maxLength``; grammar-enforced on the local backend), so that a small model that rambles
still reaches the score within the token budget.

Every call goes through the cached chat client; a failed call is recorded with its error
(and retried on a re-run), an answer without a readable score is kept as unparseable.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from noveval.benchmarks.validate.options import ALL_JUDGES
from noveval.benchmarks.validate.predictors import short_sig
from noveval.judging.parse import parse_judgment
from noveval.judging.rubric import DEFAULT_RUBRIC, JUDGMENT_SCHEMA, rubric_text
from noveval.metrics.consistency import vote_ordinal
from noveval.models.calls import note_answer
from noveval.models.chat import ChatClientProtocol, ChatRequest, GenerationParams
from noveval.prompts import load, variables
from noveval.runs import run_items, text_sha

__all__ = ["JUDGES", "MAX_REASONING_CHARS", "JudgeSpec", "judge_signature", "format_prior_works", "build_request", "parse_score",
           "judge_papers"]

JUDGES = ALL_JUDGES


@dataclass(frozen=True)
class JudgeSpec:
    """How one judge prompt is scored: its score range and the answer schema."""

    name: str
    low: int
    high: int
    schema: dict[str, Any]


MAX_REASONING_CHARS = 600
"""Cap on the justification in the answer schemas, so the score always fits the token budget."""


def _specs() -> dict[str, JudgeSpec]:
    rubric_schema = copy.deepcopy(JUDGMENT_SCHEMA)
    rubric_schema["properties"]["reasoning"]["maxLength"] = MAX_REASONING_CHARS
    direct_schema = {
        "type": "object",
        "properties": {"reasoning": {"type": "string", "maxLength": MAX_REASONING_CHARS},
                       "rating": {"type": "integer", "enum": [1, 2, 3, 4]}},
        "required": ["reasoning", "rating"],
    }
    return {"rubric": JudgeSpec("rubric", 1, 5, rubric_schema), "direct": JudgeSpec("direct", 1, 4, direct_schema)}


def _template(name: str) -> Any:
    """The judge's prompt template in effect, checked against the variables :func:`build_request` gives."""
    t = load("validate", name)
    t.check(variables("validate")[name])
    return t


def judge_signature(name: str, model_id: str, *, max_tokens: int, seed: int, related_works: int,
                    max_abstract_chars: int | None, temperature: float = 0.0, samples: int = 1) -> str:
    """What determines judge ``name``'s answers: model, prompt text, answer schema, rubric, the prior
    works shown (how many, how long) and the generation settings."""
    content = _template(name).sha + json.dumps(_specs()[name].schema, sort_keys=True)
    if name == "rubric":
        content += rubric_text(DEFAULT_RUBRIC)
    return (f"{model_id}|prompt={text_sha(content)}|related_works={related_works}|"
            f"max_abstract_chars={max_abstract_chars}|max_tokens={max_tokens}|seed={seed}|temperature={temperature:g}"
            + (f"|samples={samples}" if samples > 1 else ""))


def format_prior_works(works: Sequence[dict[str, Any]], *, max_abstract_chars: int | None = 800) -> str:
    """Numbered ``[i] title (year): abstract`` lines (abstracts cut to ``max_abstract_chars``)."""
    lines = []
    for i, w in enumerate(works, 1):
        abstract = (w.get("abstract") or "").strip()
        if max_abstract_chars and len(abstract) > max_abstract_chars:
            abstract = abstract[:max_abstract_chars].rstrip() + " ..."
        year = f" ({w['year']})" if w.get("year") else ""
        lines.append(f"[{i}] {w['title'].strip()}{year}: {abstract}" if abstract else f"[{i}] {w['title'].strip()}{year}")
    return "\n".join(lines) if lines else "(none found)"


def build_request(
    name: str,
    title: str,
    abstract: str,
    prior_works: Sequence[dict[str, Any]],
    *,
    max_abstract_chars: int | None = 800,
    max_tokens: int = 384,
    seed: int = 0,
    tag: str | None = None,
    temperature: float = 0.0,
) -> Any:
    """The :class:`~noveval.models.chat.ChatRequest` of judge ``name`` for one paper."""
    values = {"title": title.strip(), "abstract": abstract.strip(), "rubric": rubric_text(DEFAULT_RUBRIC),
              "related_works": format_prior_works(prior_works, max_abstract_chars=max_abstract_chars)}
    messages = _template(name).render(**values).messages()
    params = GenerationParams(temperature=temperature, max_tokens=max_tokens, seed=seed,
                              json_schema=_specs()[name].schema)
    return ChatRequest(messages=messages, params=params, tag=tag)


def parse_score(name: str, text: str | None) -> tuple[int | None, str]:
    """Read judge ``name``'s score from an answer: ``(score or None, status)``.

    Uses RINoBench's parser (:func:`noveval.judging.parse.parse_judgment`: JSON field, labelled
    score, last-line score); a score outside
    the judge's range (a 5 from the 1-4 prompt) is ``out_of_range``.
    """
    spec = _specs()[name]
    parsed = parse_judgment(text)
    if parsed.score is None:
        return None, parsed.status
    if not spec.low <= parsed.score <= spec.high:
        return None, "out_of_range"
    return parsed.score, parsed.status


async def judge_papers(
    run: Any,
    client: ChatClientProtocol,
    judges: Sequence[str],
    signatures: dict[str, str],
    papers: Sequence[dict[str, Any]],
    *,
    max_abstract_chars: int | None = 800,
    max_tokens: int = 384,
    seed: int = 0,
    temperature: float = 0.0,
    samples: int = 1,
    progress: str = "validate: LLM judges",
) -> dict[str, dict[str, int | None]]:
    """Run each judge on each paper, resumably, into ``judgments.jsonl``.

    With ``samples`` N > 1 each judge asks N times (seeds ``seed .. seed + N - 1`` at
    ``temperature``) and scores the plurality answer
    (:func:`noveval.metrics.consistency.vote_ordinal`); the row records the samples and
    ``self_consistency``.

    Args:
        run: The run directory.
        client: A chat client (cached).
        judges: Judge names (``rubric``, ``direct``).
        signatures: Judge name -> signature (model id, prompt hash, settings).
        papers: ``{"id", "title", "abstract", "prior_works": [{title, abstract, year}]}``.

    Returns:
        ``{judge: {paper id: score or None}}``.
    """
    tasks = [(j, p) for j in judges for p in papers]

    async def ask(j: str, p: dict[str, Any], s: int) -> dict[str, Any]:
        req = build_request(j, p["title"], p["abstract"], p["prior_works"], max_abstract_chars=max_abstract_chars,
                            max_tokens=max_tokens, seed=s, tag=f"validate:{j}:{p['id']}", temperature=temperature)
        resp = await client.acomplete(req)
        row: dict[str, Any] = {"raw": resp.text, "finish_reason": resp.finish_reason, "cached": resp.cached, "seed": s}
        if not resp.ok:
            return {**row, "score": None, "parse_status": "call_failed", "error": resp.error}
        score, status = parse_score(j, resp.text)

        note_answer(client, resp, usable=score is not None, role="judge")
        return {**row, "score": score, "parse_status": status, "error": None}

    async def worker(task: tuple[str, dict[str, Any]]) -> dict[str, Any]:
        j, p = task
        got = [await ask(j, p, s) for s in range(seed, seed + samples)]
        row = {"judge": j, "paper_id": p["id"], "signature": signatures[j], **{k: v for k, v in got[0].items() if k != "seed"}}
        return row if samples == 1 else {**row, **_voted(got)}

    rows = await run_items(run, "judgments", tasks, worker,
                           id_of=lambda t: f"{t[0]}:{short_sig(signatures[t[0]])}:{t[1]['id']}",
                           progress=progress, client=client)
    out: dict[str, dict[str, int | None]] = {j: {} for j in judges}
    for r in rows:
        if r.get("judge") in out:
            out[r["judge"]][str(r["paper_id"])] = r.get("score")
    return out


def _voted(got: list[dict[str, Any]]) -> dict[str, Any]:
    """The plurality score of a judge's samples, its share, and the samples (a failed sample fails the row)."""
    score, share = vote_ordinal([g["score"] for g in got])
    failed = next((g for g in got if g["parse_status"] == "call_failed"), None)
    status = "call_failed" if failed else ("ok" if score is not None else got[0]["parse_status"])
    return {"score": score, "self_consistency": share, "parse_status": status,
            "error": failed["error"] if failed else None,
            "samples": [{"seed": g["seed"], "score": g["score"], "parse_status": g["parse_status"]} for g in got]}
