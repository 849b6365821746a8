"""Weakness labeling, WL (CLAIMCHECK §3.3, §4.3 "Results: Labels", Table 5).

For one weakness and its target claims the model gives objectivity (1-5, ordinal),
agreement (1-5, ordinal) and one or more weakness types (multi-label). Scored with
Krippendorff's alpha against the gold labels (ordinal for the two scales, nominal per
type).

Two protocols:

* ``noveval``: a labeling call of its own (prompt ``wl``) on every gold weakness.
* ``paper``: the paper labels through its WLE prompt -- one call that labels *and*
  rewrites (:func:`~noveval.benchmarks.claimcheck.wle.label_and_rewrite`) -- on the
  weaknesses with at least one target claim (§4.3). The request is the one the WLE task
  sends, so running both tasks makes that call once (the response cache answers the
  second).

A reply that selects no type is the model's answer (types empty, ``no_type: true``),
not a failure. A failed reply (``failure`` set) is scored as the empty answer: no
types, and on each 1-5 scale the value farthest from the gold label.
"""

from __future__ import annotations

from noveval.benchmarks.claimcheck._common import (
    TaskOptions,
    WLReply,
    failure_of,
    format_targets,
    paper_context,
    prompt_messages,
    structured,
)
from noveval.benchmarks.claimcheck.items import WeaknessItem
from noveval.models.chat import ChatClientProtocol

__all__ = ["label_weakness", "format_targets"]


async def label_weakness(client: ChatClientProtocol, item: WeaknessItem, *, options: TaskOptions) -> dict:
    """Label one weakness (under ``options.protocol``).

    Returns:
        ``{"id", "objectivity", "agreement", "types": [...], "no_type", "reasoning",
        "error", "failure"}``; under the paper protocol also ``revised`` and
        ``related_works`` (the WLE call's output).
    """
    if options.paper:
        from noveval.benchmarks.claimcheck.wle import label_and_rewrite

        both = await label_and_rewrite(client, item, options=options)
        return {k: both[k] for k in ("id", "objectivity", "agreement", "types", "no_type", "reasoning",
                                     "revised", "related_works", "error", "failure")}
    context = paper_context(item.fulltext, item.weakness + " " + " ".join(item.gold_targets),
                            options.context_chars)
    messages = prompt_messages("wl", title=item.title, context=context, targets=format_targets(item.gold_targets),
                  weakness=item.weakness)
    res = await structured(client, messages, WLReply, task="wl", options=options,
                           tag=f"claimcheck.wl:{item.id}")
    row: dict = {"id": item.id, "objectivity": None, "agreement": None, "types": [],
                 "no_type": None, "reasoning": None, "error": None, "failure": None}
    if not res.ok:
        row["error"] = res.error
        row["failure"] = failure_of(res)
        return row
    reply: WLReply = res.value
    row.update(objectivity=reply.objectivity, agreement=reply.agreement,
               types=reply.types.labels(), reasoning=reply.reasoning)
    row["no_type"] = not row["types"]
    return row
