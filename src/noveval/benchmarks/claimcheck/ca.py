"""Claim association, CA (CLAIMCHECK §3.3, §4.1).

Given one weakness, the numbered candidate claims and the paper, the model picks at
most three target claims (direct targets only) and may add at most one custom claim
copied from the paper. Numbers outside the list are recorded in ``invalid``; picks
beyond three (custom included) are dropped and recorded in ``dropped``; a custom
claim that is not a substring of the paper is kept but flagged ``custom_verified:
false``. Scored with ``F1_edit`` / ``F1_exact`` over target-claim texts (§4.1).
"""

from __future__ import annotations

from typing import Any

from noveval.benchmarks.claimcheck._common import (
    CAReply,
    TaskOptions,
    paper_context,
    prompt,
    structured,
)
from noveval.benchmarks.claimcheck.data import find_span
from noveval.benchmarks.claimcheck.items import WeaknessItem

__all__ = ["associate_claims", "MAX_TARGETS"]

MAX_TARGETS = 3
"""At most three target claims per weakness, the custom claim included (§3.3)."""


async def associate_claims(client: Any, item: WeaknessItem, *, options: TaskOptions) -> dict:
    """Select target claims for one weakness.

    Returns:
        ``{"id", "target_claims": [claim ids], "target_texts": [...], "custom_claim",
        "custom_verified", "invalid": [numbers], "dropped": [...], "reasoning", "error"}``;
        ``target_texts`` lists the candidates then the custom claim, as in the gold.
    """
    listing = "\n".join(f"{i}. {text}" for i, (_cid, text) in enumerate(item.candidates, 1)) or "(none)"
    context = paper_context(item.fulltext, item.weakness, options.context_chars)
    text = prompt("ca", title=item.title, context=context, claims=listing,
                  groundedness=item.groundedness or "unknown", weakness=item.weakness)
    res = await structured(client, text, CAReply, task="ca", options=options,
                           tag=f"claimcheck.ca:{item.id}")
    row: dict = {"id": item.id, "target_claims": [], "target_texts": [], "custom_claim": None,
                 "custom_verified": None, "invalid": [], "dropped": [], "reasoning": None,
                 "error": None}
    if not res.ok:
        row["error"] = res.error
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
    budget = MAX_TARGETS - (custom is not None)
    row["dropped"] = [cid for cid, _ in picks[budget:]]
    picks = picks[:budget]
    row["target_claims"] = [cid for cid, _ in picks]
    row["target_texts"] = [t for _, t in picks]
    if custom is not None:
        span = find_span(item.fulltext, custom) if item.fulltext else None
        row["custom_verified"] = span is not None
        row["custom_claim"] = item.fulltext[span[0]:span[1]] if span else custom
        row["target_texts"].append(row["custom_claim"])
    return row
