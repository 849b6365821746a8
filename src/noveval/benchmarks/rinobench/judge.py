"""LLM-judged justification metrics of RINoBench (Section 4.2.2).

For one item (gold justification, predicted justification, idea, related works) the
judge makes these calls (prompts in ``prompts/``, our wording):

- **alignment** (``alignment.txt``): G-Eval style (Figure 2). Fixed evaluation steps,
  then a 1-5 score. With token log-probabilities the score is probability-weighted,
  ``E[s] = sum_s p(s) * s`` over the score token's alternatives that are valid scores
  (G-Eval, Liu et al. 2023); otherwise the parsed score is used. Either is mapped to
  [0, 1] by ``(s - 1) / 4``; ``alignment_mode`` records ``"logprobs"`` or ``"parsed"``.
- **extraction** (``extract_known.txt`` / ``extract_novelty.txt``): the known-aspect
  (KA) and novelty-aspect (NA) arguments of the gold and of the predicted justification,
  four calls (FActScore-style atomic arguments, Section 4.2.2 "Known Aspects Recall").
- **support** (``support.txt``): for each predicted argument of a kind, is it
  supported by the gold justification (one call per kind, one verdict per argument).
- **grounding**: for each predicted argument the gold does *not* support, is it
  grounded? ``JudgeOptions.grounding_context`` picks what the judge sees:
  ``"split"`` (default, the paper's text, Section 4.2.2): KA arguments are checked
  against the related works only (``ground_known.txt``), NA arguments against the
  research idea only (``ground_novelty.txt``); ``"both"`` (the released fact-check
  prompt): every argument is checked against the idea *and* the related works
  (``ground_context.txt``). Gold-supported arguments count as grounded, as gold
  justifications were filtered to be fully grounded (Section 4.1.1); this is also how
  the released reference code counts.

Argument extraction is not capped by default (``max_arguments=None``): the paper
extracts all arguments, and a cap would bound the Additional Ratio (Eq. 2; the paper
reports up to 139.9%). ``max_arguments=N`` adds ``maxItems: N`` to the extraction schema
and keeps the first N arguments of a reply from a backend that ignores the schema.

Alignment scale. The released evaluation runs deepeval's ``GEval`` with only a criterion:
deepeval first asks the judge to write evaluation steps, then for an integer score 0-10,
and divides by 10. The released judge wrapper exposes no token log-probabilities, so
no probability weighting happens there: per-item alignments are multiples of 0.1
(consistent with the published files: each ``mean_alignment`` times 2770 is an integer). noveval
asks for 1-5 under fixed evaluation steps and maps ``(s - 1) / 4``, probability-weighted
when the backend returns log-probabilities. Both lie in [0, 1] with 1 = same line of
argument, but the grids differ (0, 0.1, ..., 1 vs 0, 0.25, ..., 1) and so do the
anchors: the two are not numerically comparable item by item or in the mean.

Recall (Eq. 1), Additional Ratio (Eq. 2) and Hallucination Rate (Eq. 3) follow from
the verdicts via :func:`noveval.metrics.rinobench.aspect_metrics`.

Judge failures. Every call's raw replies are kept in the item's ``calls`` list. When a
call fails (backend error, or no valid JSON after a re-ask, or a verdict list of the
wrong length) the metrics that depend on it are ``None`` for that item, the item's
``failures`` list names the step and the error, and aggregates average over the items
where the metric exists (``n`` says how many). A prediction with an empty justification
is not sent to the judge: it has no arguments (recall 0, ratios 0) and alignment 0.
"""

from __future__ import annotations

import asyncio
import math
from typing import Any

from pydantic import BaseModel, Field

from noveval.benchmarks.rinobench.data import Prediction, RINoBenchItem
from noveval.benchmarks.rinobench.generate import format_related_works
from noveval.benchmarks.rinobench.options import JudgeSettings
from noveval.benchmarks.rinobench.prompts import render_messages
from noveval.metrics.rinobench import aspect_metrics
from noveval.models.calls import note_answer
from noveval.models.chat import ChatClientProtocol, ChatRequest, GenerationParams
from noveval.models.structured import acomplete_structured, parse_as

__all__ = [
    "JUSTIFICATION_METRICS",
    "JUDGE_PROMPTS",
    "JudgeOptions",
    "ajudge_item",
    "alignment_from_logprobs",
    "grounding_messages",
]

JUSTIFICATION_METRICS = (
    "alignment",
    "known_aspects_recall",
    "novelty_aspects_recall",
    "additional_known_aspects_ratio",
    "additional_novelty_aspects_ratio",
    "known_aspects_hallucination_rate",
    "novelty_aspects_hallucination_rate",
)

"""Per-item justification metrics; their means are the ``mean_*`` keys of the paper's files."""

_KINDS = {"known": "known_aspects", "novelty": "novelty_aspects"}

JUDGE_PROMPTS = ("alignment", "extract_known", "extract_novelty", "support", "ground_known", "ground_novelty",
                 "ground_context")
"""The templates the justification judge renders (``ground_context`` with ``grounding_context="both"``,
``ground_known`` / ``ground_novelty`` otherwise)."""


class JudgeOptions(JudgeSettings):
    """Settings of the justification judge (recorded in the run config): the user's
    (:class:`~noveval.benchmarks.rinobench.options.JudgeSettings`, declared once there) and the
    protocol's own below."""

    max_reasks: int = Field(default=1, description="Re-asks after an invalid structured reply.")
    top_logprobs: int = Field(default=10, description="Alternatives requested for the alignment score token.")
    seed: int = Field(default=0, description="Judge sampling seed (temperature is 0).")


class _Arguments(BaseModel):
    arguments: list[str]


class _Alignment(BaseModel):
    score: int = Field(ge=1, le=5)
    reason: str = ""


def _arguments_schema(max_items: int | None) -> dict[str, Any]:
    array: dict[str, Any] = {"type": "array", "items": {"type": "string"}}
    if max_items is not None:
        array["maxItems"] = max_items
    return {"type": "object", "properties": {"arguments": array}, "required": ["arguments"]}


def grounding_messages(kind: str, item: RINoBenchItem, arguments: list[str], opts: JudgeOptions) -> list[dict[str, str]]:
    """The grounding prompt for ``arguments`` of one kind (``"known"`` or ``"novelty"``).

    ``opts.grounding_context == "split"``: known aspects see the related works,
    novelty aspects the research idea (Section 4.2.2); ``"both"``: both see the idea
    and the related works (the released fact-check prompt).
    """
    idea = item.research_idea
    works = format_related_works(item, max_related_works=opts.judge_max_related_works, max_abstract_chars=opts.judge_max_abstract_chars)
    idea_fields = {
        "problem_statement": idea.problem_statement,
        "objective": idea.objective,
        "solution_approach": idea.solution_approach,
    }
    if opts.grounding_context == "both":
        return render_messages("ground_context", related_works=works, arguments=_numbered(arguments), **idea_fields)
    if kind == "known":
        return render_messages("ground_known", related_works=works, arguments=_numbered(arguments))
    return render_messages("ground_novelty", arguments=_numbered(arguments), **idea_fields)


def _verdicts_schema(key: str, n: int) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {key: {"type": "array", "items": {"type": "boolean"}, "minItems": n, "maxItems": n}},
        "required": [key],
    }


_ALIGN_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "score": {"type": "integer", "enum": [1, 2, 3, 4, 5]},
        "reason": {"type": "string"},
    },
    "required": ["score", "reason"],
}


def _numbered(args: list[str]) -> str:
    return "\n".join(f"{i}. {a}" for i, a in enumerate(args, start=1))


def alignment_from_logprobs(logprobs: list[Any] | None) -> tuple[float, dict[str, float]] | None:
    """Probability-weighted G-Eval score from the score token's top alternatives.

    Finds the first generated token that is a score digit 1-5 following ``"score"`` in
    the reply, renormalises the probabilities of its alternatives that are valid scores
    and returns ``(E[s], {score: p})`` with ``E[s]`` in [1, 5]. ``None`` when no such
    token or no log-probabilities are available.
    """
    if not logprobs:
        return None
    text = ""
    for tok in logprobs:
        t = tok.token.strip()
        if '"score"' in text and t in {"1", "2", "3", "4", "5"}:
            probs: dict[str, float] = {}
            alts = list(tok.top) or []
            if not any(a.token.strip() == t for a in alts):
                alts.append(tok)
            for a in alts:
                k = a.token.strip()
                if k in {"1", "2", "3", "4", "5"}:
                    probs[k] = probs.get(k, 0.0) + math.exp(a.logprob)
            total = sum(probs.values())
            if total <= 0:
                return None
            dist = {k: v / total for k, v in sorted(probs.items())}
            return sum(int(k) * p for k, p in dist.items()), dist
        text += tok.token
    return None


async def _structured(client: ChatClientProtocol, messages: list[dict[str, str]], schema: dict[str, Any], model: type[BaseModel], opts: JudgeOptions, tag: str) -> Any:
    req = ChatRequest(
        messages=messages,
        params=GenerationParams(temperature=0.0, max_tokens=opts.judge_max_tokens, seed=opts.seed, json_schema=schema),
        tag=tag,
    )
    return await acomplete_structured(client, req, model, max_reasks=opts.max_reasks, role="judge")


def _call_record(step: str, res: Any) -> dict[str, Any]:
    value = res.value.model_dump() if res.value is not None else None
    return {"step": step, "ok": res.ok, "value": value, "error": res.error, "raw": res.raw, "attempts": res.attempts, "cached": res.cached}


async def _alignment(client: ChatClientProtocol, gold: str, pred: str, opts: JudgeOptions, calls: list[dict[str, Any]]) -> tuple[float | None, str | None, str | None]:
    req = ChatRequest(
        messages=render_messages("alignment", gold=gold, predicted=pred),
        params=GenerationParams(
            temperature=0.0,
            max_tokens=opts.judge_max_tokens,
            seed=opts.seed,
            json_schema=_ALIGN_SCHEMA,
            logprobs=True,
            top_logprobs=opts.top_logprobs,
        ),
        tag="rinobench:alignment",
    )
    resp = await client.acomplete(req)
    rec: dict[str, Any] = {"step": "alignment", "raw": [resp.text], "cached": resp.cached, "attempts": resp.attempts}
    calls.append(rec)
    if not resp.ok:
        rec.update(ok=False, error=f"model call failed: {resp.error}")
        return None, None, rec["error"]
    weighted = alignment_from_logprobs(resp.logprobs)
    parsed: int | None = None
    try:
        parsed = parse_as(resp.text, _Alignment).score
    except ValueError as e:
        if weighted is None:
            note_answer(client, resp, usable=False, role="judge")
            rec.update(ok=False, error=f"no score in reply: {e}")
            return None, None, rec["error"]
    note_answer(client, resp, usable=True, role="judge")
    rec.update(ok=True, error=None, parsed_score=parsed)
    if weighted is not None:
        expected, dist = weighted
        rec.update(mode="logprobs", expected_score=expected, score_distribution=dist)
        return (expected - 1) / 4, "logprobs", None
    assert parsed is not None
    rec.update(mode="parsed")
    return (parsed - 1) / 4, "parsed", None


async def _kind(
    client: ChatClientProtocol, kind: str, item: RINoBenchItem, gold: str, pred: str, opts: JudgeOptions, calls: list[dict[str, Any]], failures: list[dict[str, str]]
) -> dict[str, Any]:
    """Extraction, support and grounding for one argument kind ('known' or 'novelty')."""
    prompt = f"extract_{kind}"
    schema = _arguments_schema(opts.max_arguments)
    g_res, p_res = await asyncio.gather(
        _structured(client, render_messages(prompt, justification=gold), schema, _Arguments, opts, f"rinobench:{prompt}:gold"),
        _structured(client, render_messages(prompt, justification=pred), schema, _Arguments, opts, f"rinobench:{prompt}:pred"),
    )
    calls.append(_call_record(f"{prompt}:gold", g_res))
    calls.append(_call_record(f"{prompt}:predicted", p_res))
    out: dict[str, Any] = {"gold_arguments": None, "predicted_arguments": None, "supported": None, "grounded": None, "metrics": None}
    if not g_res.ok or not p_res.ok:
        for name, r in (("gold", g_res), ("predicted", p_res)):
            if not r.ok:
                failures.append({"step": f"{prompt}:{name}", "error": r.error or "failed"})
        return out
    gold_args = [a.strip() for a in g_res.value.arguments if a.strip()][: opts.max_arguments]
    pred_args = [a.strip() for a in p_res.value.arguments if a.strip()][: opts.max_arguments]
    out.update(gold_arguments=gold_args, predicted_arguments=pred_args)
    if not pred_args:
        out.update(supported=[], grounded=[], metrics=aspect_metrics(len(gold_args), [], []))
        return out
    s_res = await _structured(
        client, render_messages("support", gold=gold, arguments=_numbered(pred_args)),
        _verdicts_schema("supported", len(pred_args)), _Supported, opts, f"rinobench:support:{kind}",
    )
    calls.append(_call_record(f"support:{kind}", s_res))
    if not s_res.ok or len(s_res.value.supported) != len(pred_args):
        err = s_res.error or f"expected {len(pred_args)} verdicts, got {len(s_res.value.supported)}"
        failures.append({"step": f"support:{kind}", "error": err})
        return out
    supported = list(s_res.value.supported)
    out["supported"] = supported
    extra = [a for a, s in zip(pred_args, supported, strict=True) if not s]
    grounded: list[bool | None] = [None] * len(pred_args)
    if extra:
        messages = grounding_messages(kind, item, extra, opts)
        gr_res = await _structured(client, messages, _verdicts_schema("grounded", len(extra)), _Grounded, opts, f"rinobench:ground:{kind}")
        calls.append(_call_record(f"ground:{kind}", gr_res))
        if not gr_res.ok or len(gr_res.value.grounded) != len(extra):
            err = gr_res.error or f"expected {len(extra)} verdicts, got {len(gr_res.value.grounded)}"
            failures.append({"step": f"ground:{kind}", "error": err})
            m = aspect_metrics(len(gold_args), supported, [None if s else True for s in supported])
            out["metrics"] = {"recall": m["recall"], "additional_ratio": None, "hallucination_rate": None}
            return out
        it = iter(gr_res.value.grounded)
        grounded = [None if s else bool(next(it)) for s in supported]
    out["grounded"] = grounded
    out["metrics"] = aspect_metrics(len(gold_args), supported, grounded)
    return out


class _Supported(BaseModel):
    supported: list[bool]


class _Grounded(BaseModel):
    grounded: list[bool]


async def ajudge_item(client: ChatClientProtocol, item: RINoBenchItem, prediction: Prediction, *, options: JudgeOptions | None = None) -> dict[str, Any]:
    """Judge one predicted justification against the gold one.

    Args:
        client: The judge :class:`~noveval.models.client.ChatClient`.
        item: The gold item (needs ``novelty_reasoning``).
        prediction: The prediction (its ``reasoning`` is judged).
        options: Judge settings.

    Returns:
        A judgments row: ``id``, ``metrics`` (the seven :data:`JUSTIFICATION_METRICS`,
        ``None`` where a judge step failed), ``alignment_mode``, per-kind argument
        lists and verdicts, ``failures`` and every call's raw replies in ``calls``.
    """
    opts = options or JudgeOptions()
    gold = (item.novelty_reasoning or "").strip()
    pred = (prediction.reasoning or "").strip()
    calls: list[dict[str, Any]] = []
    failures: list[dict[str, str]] = []
    row: dict[str, Any] = {"id": item.id, "judge": client.model_id}
    if not pred:
        row.update(
            metrics={
                "alignment": 0.0,
                **{f"{_KINDS[k]}_recall": 0.0 for k in _KINDS},
                **{f"additional_{_KINDS[k]}_ratio": 0.0 for k in _KINDS},
                **{f"{_KINDS[k]}_hallucination_rate": 0.0 for k in _KINDS},
            },
            alignment_mode="empty_prediction",
            known=None,
            novelty=None,
            failures=[],
            calls=[],
        )
        return row
    (align, mode, align_err), known, novelty = await asyncio.gather(
        _alignment(client, gold, pred, opts, calls),
        _kind(client, "known", item, gold, pred, opts, calls, failures),
        _kind(client, "novelty", item, gold, pred, opts, calls, failures),
    )
    if align_err:
        failures.append({"step": "alignment", "error": align_err})
    metrics: dict[str, float | None] = {"alignment": align}
    for k, res in (("known", known), ("novelty", novelty)):
        m = res["metrics"] or {}
        name = _KINDS[k]
        metrics[f"{name}_recall"] = m.get("recall")
        metrics[f"additional_{name}_ratio"] = m.get("additional_ratio")
        metrics[f"{name}_hallucination_rate"] = m.get("hallucination_rate")
    row.update(metrics=metrics, alignment_mode=mode, known=known, novelty=novelty, failures=failures, calls=calls)
    return row
