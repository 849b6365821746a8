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

**Samples** (``options.samples = N``; issue 18): each weakness is
labelled N times at the task's temperature, sample ``k`` with seed ``seed + k`` (sample 0
is the one-sample call), and :func:`combine_samples` votes each label over the samples
that parsed: objectivity and agreement by
:func:`~noveval.metrics.consistency.vote_ordinal` (RINoBench's rule: ties to the value
nearest the mean, then the lower), the *set* of types as one categorical answer by
:func:`~noveval.metrics.consistency.vote_labels` (ties to the earliest sample's set).
Per item: ``samples``, ``self_consistency_<label>`` for the three labels and
``self_consistency``, their mean (each in (0, 1], best 1).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from noveval.benchmarks.claimcheck._common import (
    WLReply,
    failure_of,
    format_targets,
    paper_context,
    prompt_messages,
    structured,
)
from noveval.benchmarks.claimcheck.items import WeaknessItem
from noveval.benchmarks.claimcheck.options import ClaimcheckOptions
from noveval.benchmarks.claimcheck.wle import label_and_rewrite
from noveval.metrics.consistency import mean_consistency, sample_seeds, vote_labels, vote_ordinal
from noveval.models.chat import ChatClientProtocol

__all__ = ["label_weakness", "combine_samples", "format_targets"]

SAMPLED = ("objectivity", "agreement", "types")
"""The WL labels voted over samples (and given a self-consistency each)."""


async def label_weakness(client: ChatClientProtocol, item: WeaknessItem, *, options: ClaimcheckOptions) -> dict:
    """Label one weakness (under ``options.protocol``; ``options.samples`` times).

    Returns:
        ``{"id", "objectivity", "agreement", "types": [...], "no_type", "reasoning",
        "error", "failure"}``; under the paper protocol also ``revised`` and
        ``related_works`` (the WLE call's output); with ``options.samples > 1`` also
        the fields of :func:`combine_samples`.
    """
    if options.samples <= 1:
        return await _label_once(client, item, options=options)


    seeds = sample_seeds(options.seed, options.samples)
    rows = await asyncio.gather(*(_label_once(client, item, options=options.model_copy(update={"seed": s, "samples": 1}))
                                  for s in seeds))
    return combine_samples(rows, seeds)


def combine_samples(rows: Sequence[dict], seeds: Sequence[int]) -> dict:
    """One WL row from the rows of N samples of the same weakness (pure).

    Each label is voted over the samples that parsed (a sample whose reply did not parse
    abstains but counts in the shares). A sample whose call failed makes the item a
    failed item (``failure: "call"``, its error; a re-run redoes only that call); when
    no sample parsed the item failed as ``"unparseable"``. Otherwise the row is the
    first sample (by seed) that gave every voted label (else the first that parsed),
    with the voted labels.

    Args:
        rows: The samples' rows (as :func:`label_weakness` returns for one sample), in
            seed order.
        seeds: Their seeds.

    Returns:
        The item row, plus ``samples`` (each sample's ``seed``, labels and
        ``failure``), ``self_consistency_objectivity``, ``self_consistency_agreement``,
        ``self_consistency_types`` (share of the N samples giving the voted label, in
        (0, 1], best 1) and ``self_consistency`` (their mean); the shares are None for a
        failed item.
    """
    parsed = [r if r.get("failure") is None else None for r in rows]
    objectivity, sc_obj = vote_ordinal([None if r is None else r["objectivity"] for r in parsed])
    agreement, sc_agr = vote_ordinal([None if r is None else r["agreement"] for r in parsed])
    types, sc_typ = vote_labels([None if r is None else tuple(r["types"]) for r in parsed])
    calls = [r for r in rows if r.get("failure") == "call"]
    if calls or types is None:
        out = dict(calls[0] if calls else rows[0])
        shares: list[float | None] = [None, None, None]
    else:
        voted = (objectivity, agreement, list(types))
        ok = [r for r in parsed if r is not None]
        out = dict(next((r for r in ok if (r["objectivity"], r["agreement"], r["types"]) == voted), ok[0]))
        out.update(objectivity=objectivity, agreement=agreement, types=list(types), no_type=not types)
        shares = [sc_obj, sc_agr, sc_typ]
    out["samples"] = [{"seed": s, "objectivity": r.get("objectivity"), "agreement": r.get("agreement"),
                       "types": r.get("types"), "failure": r.get("failure")} for s, r in zip(seeds, rows, strict=True)]
    for name, share in zip(SAMPLED, shares, strict=True):
        out[f"self_consistency_{name}"] = share
    out["self_consistency"] = mean_consistency(shares)
    return out


async def _label_once(client: ChatClientProtocol, item: WeaknessItem, *, options: ClaimcheckOptions) -> dict:
    """One labeling call (one sample)."""
    if options.paper:
        both = await label_and_rewrite(client, item, options=options)
        return {k: both[k] for k in ("id", "objectivity", "agreement", "types", "no_type", "reasoning",
                                     "revised", "related_works", "error", "failure")}
    context = paper_context(item.fulltext, item.text + " " + " ".join(item.gold_targets),
                            options.context_chars)
    messages = prompt_messages("wl", title=item.title, context=context, targets=format_targets(item.gold_targets),
                  weakness=item.text)
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
