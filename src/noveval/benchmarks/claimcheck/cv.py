"""Claim verification, CV (CLAIMCHECK §4.2).

For each (weakness, focal target claim) pair:

1. **Distil** the reviewer's weakness for the focal claim, with evidence quoted from
   the paper (prompt ``cv_distill``).
2. **Generate** the model's own weakness for the focal claim, with evidence and
   weakness types, without seeing the review (``cv_generate``).
3. **Judge** whether the two describe the *same*, *similar* or *different* issues,
   given the claim and both weaknesses with their evidence (``cv_judge``; the judge
   may be a different model).

The task score is the proportion of each verdict (paper: 7.0 / 20.0 / 73.0) over all
items; an item whose distil, generate or judge call failed has verdict ``failed`` (it
counts in the denominator and in ``failed``, never as a verdict). Both the distil and
the generate prompt show the related works the weakness and the focal claim cite
(``options.corpus``; :mod:`~noveval.benchmarks.claimcheck.related`). Evidence quotes are
checked against the paper text (``evidence_verified``).
"""

from __future__ import annotations

from noveval.benchmarks.claimcheck._common import (
    CVEvidenceReply,
    CVGenerateReply,
    CVJudgeReply,
    failure_of,
    paper_context,
    prompt_messages,
    structured,
)
from noveval.benchmarks.claimcheck.data import find_span
from noveval.benchmarks.claimcheck.items import WeaknessItem
from noveval.benchmarks.claimcheck.options import ClaimcheckOptions
from noveval.benchmarks.claimcheck.related import format_related
from noveval.models.chat import ChatClientProtocol

__all__ = ["verify_claim", "VERDICTS"]

VERDICTS = ("same", "similar", "different")


def _evidence(quotes: list[str]) -> str:
    return "; ".join(f"<text_{i}> {q}" for i, q in enumerate(quotes)) or "(none)"


def _checked(fulltext: str, quotes: list[str]) -> list[bool]:
    return [bool(fulltext) and find_span(fulltext, q) is not None for q in quotes]


async def verify_claim(
    client: ChatClientProtocol, item: WeaknessItem, *, options: ClaimcheckOptions, judge: ChatClientProtocol | None = None
) -> tuple[dict, dict]:
    """Run distil, generate and judge for one focal claim.

    Args:
        client: The model under evaluation.
        item: A focal item (:func:`~noveval.benchmarks.claimcheck.items.focal_items`).
        options: Generation settings.
        judge: Judge client (default: ``client``, as in the paper where GPT-4o judges).

    Returns:
        ``(prediction, judgment)``: the prediction row holds the distilled and generated
        weaknesses with evidence; the judgment row holds ``verdict`` (one of
        :data:`VERDICTS` or ``None``) with the judge's model id, reasoning and raw
        replies. Both rows carry ``failure`` (``"call"``/``"unparseable"``) when a step
        failed.
    """
    claim = item.focal_claim or ""
    context = paper_context(item.fulltext, claim + " " + item.text, options.context_chars)
    types = ", ".join(item.gold_labels.get("types") or []) or "unspecified"
    related = format_related(item.related)
    distil = await structured(
        client, prompt_messages("cv_distill", title=item.title, context=context, related=related, claim=claim,
                       types=types, weakness=item.text),
        CVEvidenceReply, task="cv", options=options, tag=f"claimcheck.cv.distill:{item.id}")
    own = await structured(
        client, prompt_messages("cv_generate", title=item.title, context=context, related=related, claim=claim),
        CVGenerateReply, task="cv", options=options, tag=f"claimcheck.cv.generate:{item.id}")
    pred: dict = {"id": item.id, "focal_claim": claim, "reviewer_weakness": None,
                  "reviewer_evidence": [], "reviewer_evidence_verified": [],
                  "model_weakness": None, "model_evidence": [], "model_evidence_verified": [],
                  "model_types": [], "related_works": [w.as_record() for w in item.related],
                  "error": None, "failure": failure_of(distil) or failure_of(own)}
    errors = []
    if distil.ok:
        pred.update(reviewer_weakness=distil.value.weakness, reviewer_evidence=distil.value.evidence,
                    reviewer_evidence_verified=_checked(item.fulltext, distil.value.evidence))
    else:
        errors.append(f"distill: {distil.error}")
    if own.ok:
        pred.update(model_weakness=own.value.weakness, model_evidence=own.value.evidence,
                    model_evidence_verified=_checked(item.fulltext, own.value.evidence),
                    model_types=own.value.types.labels())
    else:
        errors.append(f"generate: {own.error}")
    pred["error"] = "; ".join(errors) or None
    judge = judge or client
    judgment: dict = {"id": item.id, "judge": getattr(judge, "model_id", str(judge)), "verdict": None,
                      "reasoning": None, "raw": [], "error": None, "failure": None}
    if errors:
        judgment["error"] = "skipped: " + pred["error"]
        judgment["failure"] = pred["failure"]
        return pred, judgment
    res = await structured(
        judge,
        prompt_messages("cv_judge", claim=claim, weakness_1=pred["reviewer_weakness"],
               evidence_1=_evidence(pred["reviewer_evidence"]), weakness_2=pred["model_weakness"],
               evidence_2=_evidence(pred["model_evidence"])),
        CVJudgeReply, task="cv", options=options, tag=f"claimcheck.cv.judge:{item.id}", role="judge")
    judgment["raw"] = res.raw
    if res.ok:
        judgment.update(verdict=res.value.verdict, reasoning=res.value.reasoning)
    else:
        judgment["error"] = res.error
        judgment["failure"] = failure_of(res)
    return pred, judgment
