"""Claim association, CA (CLAIMCHECK §3.3, §4.1).

Given one weakness, the numbered candidate claims and the paper, the model picks at
most three target claims (direct targets only) and may add at most one custom claim
copied from the paper. Numbers outside the list are recorded in ``invalid``; picks
beyond three (custom included) are dropped and recorded in ``dropped``.

The custom claim (:func:`resolve_custom_claim`):

* a **trivial** one -- fewer than :data:`MIN_CUSTOM_WORDS` words or
  :data:`MIN_CUSTOM_CHARS` characters after whitespace normalisation, e.g. ``"..."``
  or ``"the results"``, which occur in any paper -- is rejected: not a target, kept in
  ``custom_rejected`` with the reason;
* an exact substring of the paper (whitespace-normalised) is ``custom_verified``;
* a near-verbatim copy is aligned to the paper like a WI passage
  (:func:`~noveval.benchmarks.claimcheck.data.align_span`) and the paper's text is
  used, ``custom_verified`` and ``custom_aligned``;
* anything else is kept as the model wrote it, ``custom_verified: false``.

Scored with ``F1_edit`` / ``F1_exact`` over target-claim texts (§4.1).
"""

from __future__ import annotations

from noveval.benchmarks.claimcheck._common import (
    CAReply,
    failure_of,
    paper_context,
    prompt_messages,
    structured,
)
from noveval.benchmarks.claimcheck.data import align_span, find_span, normalize_ws
from noveval.benchmarks.claimcheck.items import WeaknessItem
from noveval.benchmarks.claimcheck.options import ClaimcheckOptions
from noveval.benchmarks.claimcheck.related import format_related
from noveval.models.chat import ChatClientProtocol

__all__ = ["associate_claims", "resolve_custom_claim", "MAX_TARGETS", "MIN_CUSTOM_WORDS", "MIN_CUSTOM_CHARS"]

MAX_TARGETS = 3
"""At most three target claims per weakness, the custom claim included (§3.3)."""

MIN_CUSTOM_WORDS = 4
"""A custom claim needs at least this many words (with a letter) to count."""

MIN_CUSTOM_CHARS = 20
"""A custom claim needs at least this many characters (whitespace-normalised)."""


def resolve_custom_claim(fulltext: str, custom: str) -> dict:
    """Check a model's custom target claim against the paper (module docstring).

    Args:
        fulltext: The paper's full text ("" when unknown).
        custom: The claim as the model wrote it.

    Returns:
        ``{"text", "verified", "aligned", "alignment_score"?}`` for a claim that counts,
        or ``{"rejected": reason, "text"}`` for a trivial one.
    """
    norm = normalize_ws(custom)
    words = [w for w in norm.split() if any(ch.isalpha() for ch in w)]
    if len(words) < MIN_CUSTOM_WORDS or len(norm) < MIN_CUSTOM_CHARS:
        return {"rejected": f"trivial: {len(words)} word(s), {len(norm)} characters (need "
                f"{MIN_CUSTOM_WORDS} words and {MIN_CUSTOM_CHARS} characters)", "text": custom}
    span = find_span(fulltext, custom) if fulltext else None
    if span is not None:
        return {"text": fulltext[span[0]:span[1]], "verified": True, "aligned": False}
    fuzzy = align_span(fulltext, custom) if fulltext else None
    if fuzzy is not None:
        return {"text": fulltext[fuzzy[0]:fuzzy[1]], "verified": True, "aligned": True,
                "alignment_score": round(fuzzy[2], 1)}
    return {"text": norm, "verified": False, "aligned": False}


async def associate_claims(client: ChatClientProtocol, item: WeaknessItem, *, options: ClaimcheckOptions) -> dict:
    """Select target claims for one weakness.

    Returns:
        ``{"id", "target_claims": [claim ids], "target_texts": [...], "custom_claim",
        "custom_verified", "custom_aligned", "custom_rejected", "invalid": [numbers],
        "dropped": [...], "related_works", "reasoning", "error", "failure"}``;
        ``target_texts`` lists the candidates then the custom claim, as in the gold. A
        failed reply has no targets (scored as an empty answer) and ``failure`` set.
    """
    listing = "\n".join(f"{i}. {text}" for i, (_cid, text) in enumerate(item.candidates, 1)) or "(none)"
    context = paper_context(item.fulltext, item.text, options.context_chars)
    messages = prompt_messages("ca", title=item.title, context=context, claims=listing,
                  groundedness=item.groundedness or "unknown", weakness=item.text,
                  related=format_related(item.related))
    res = await structured(client, messages, CAReply, task="ca", options=options,
                           tag=f"claimcheck.ca:{item.id}")
    row: dict = {"id": item.id, "target_claims": [], "target_texts": [], "custom_claim": None,
                 "custom_verified": None, "custom_aligned": None, "custom_rejected": None,
                 "invalid": [], "dropped": [], "related_works": [w.as_record() for w in item.related],
                 "reasoning": None, "error": None, "failure": None}
    if not res.ok:
        row["error"] = res.error
        row["failure"] = failure_of(res)
        return row
    reply: CAReply = res.value
    row["reasoning"] = reply.reasoning
    picks: list[tuple[str, str]] = []
    for n in reply.target_claims:
        if not 1 <= n <= len(item.candidates):
            row["invalid"].append(n)
            continue
        cid, ctext = item.candidates[n - 1]
        if cid not in [p[0] for p in picks]:
            picks.append((cid, ctext))
    custom = (reply.custom_claim or "").strip() or None
    resolved = resolve_custom_claim(item.fulltext, custom) if custom is not None else None
    if resolved is not None and "rejected" in resolved:
        row["custom_rejected"] = resolved
        custom, resolved = None, None
    budget = MAX_TARGETS - (custom is not None)
    row["dropped"] = [cid for cid, _ in picks[budget:]]
    picks = picks[:budget]
    row["target_claims"] = [cid for cid, _ in picks]
    row["target_texts"] = [t for _, t in picks]
    if resolved is not None:
        row["custom_verified"] = resolved["verified"]
        row["custom_aligned"] = resolved["aligned"]
        if "alignment_score" in resolved:
            row["custom_alignment_score"] = resolved["alignment_score"]
        row["custom_claim"] = resolved["text"]
        row["target_texts"].append(row["custom_claim"])
    return row
