"""Weakness labeling, WL (CLAIMCHECK §3.3, §4.3 "Results: Labels", Table 5).

For one weakness and its target claims the model gives objectivity (1-5, ordinal),
agreement (1-5, ordinal) and one or more weakness types (multi-label). At least one
type is required: a reply with none is recorded with ``error`` set and its labels
kept. Scored with Krippendorff's alpha against the gold labels (ordinal for the two
scales, nominal per type).
"""

from __future__ import annotations

from typing import Any

from noveval.benchmarks.claimcheck._common import (
    TaskOptions,
    WLReply,
    paper_context,
    prompt,
    structured,
)
from noveval.benchmarks.claimcheck.items import WeaknessItem

__all__ = ["label_weakness", "format_targets"]


def format_targets(texts: list[str]) -> str:
    """Numbered list of target-claim texts for a prompt."""
    return "\n".join(f"{i}. {t}" for i, t in enumerate(texts, 1)) or "(no target claim given)"


async def label_weakness(client: Any, item: WeaknessItem, *, options: TaskOptions) -> dict:
    """Label one weakness.

    Returns:
        ``{"id", "objectivity", "agreement", "types": [...], "reasoning", "error"}``.
    """
    context = paper_context(item.fulltext, item.weakness + " " + " ".join(item.gold_targets),
                            options.context_chars)
    text = prompt("wl", title=item.title, context=context, targets=format_targets(item.gold_targets),
                  weakness=item.weakness)
    res = await structured(client, text, WLReply, task="wl", options=options,
                           tag=f"claimcheck.wl:{item.id}")
    row: dict = {"id": item.id, "objectivity": None, "agreement": None, "types": [],
                 "reasoning": None, "error": None}
    if not res.ok:
        row["error"] = res.error
        return row
    reply: WLReply = res.value
    row.update(objectivity=reply.objectivity, agreement=reply.agreement,
               types=reply.types.labels(), reasoning=reply.reasoning)
    if not row["types"]:
        row["error"] = "no weakness type selected (at least one is required)"
    return row
