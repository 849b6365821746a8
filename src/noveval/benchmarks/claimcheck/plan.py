"""CLAIMCHECK's planned work (``noveval eval --plan``): one claim-association call per weakness and seed (CA).

The weaknesses are the run's (:func:`~noveval.benchmarks.claimcheck.items.weakness_items` of
the inputs the options name, ``limit_items`` per seed, each seed of the protocol), each
prompt rendered by the CA task's own template as
:func:`~noveval.benchmarks.claimcheck.ca.associate_claims` renders it. The cited related
works the paper protocol adds to each prompt come from the corpus after matching and are
not counted (the plan says so); the other tasks are not estimated.
"""

from __future__ import annotations

from noveval.benchmarks.claimcheck.ca import paper_context, prompt_messages
from noveval.benchmarks.claimcheck.contract import with_inputs
from noveval.benchmarks.claimcheck.generate import _checked_seeds, load_inputs
from noveval.benchmarks.claimcheck.items import weakness_items
from noveval.benchmarks.claimcheck.options import ClaimcheckOptions
from noveval.benchmarks.claimcheck.related import format_related
from noveval.plan import PlannedCall, SystemPlan, capped, not_estimated, prompt_tokens

__all__ = ["plan"]


def plan(options: ClaimcheckOptions) -> SystemPlan:
    """The CA run's requests, no model call."""
    o = with_inputs(options)
    if o.task != "ca":
        return not_estimated("claimcheck", f"the {o.task} task is not planned (only ca, the eval's)")
    papers, anns = load_inputs(o)
    seeds = _checked_seeds(o, anns)
    items = weakness_items(anns or [], papers, require_targets=False)
    items = items[: o.limit_items] if o.limit_items else items
    cap = capped(o.generation(), o.max_tokens)
    calls = []
    for it in items:
        listing = "\n".join(f"{i}. {text}" for i, (_cid, text) in enumerate(it.candidates, 1)) or "(none)"
        msgs = prompt_messages("ca", title=it.title, context=paper_context(it.fulltext, it.text, o.context_chars),
                               claims=listing, groundedness=it.groundedness or "unknown", weakness=it.text,
                               related=format_related([]))
        calls += [PlannedCall("model", prompt_tokens(msgs), cap, structured=True)] * len(seeds)  # CA's JSON reply
    notes = [f"{len(seeds)} seed(s) per weakness"]
    if o.corpus is not None:
        notes.append("the cited related works shown under the paper protocol are not counted in the prompts")
    return SystemPlan("claimcheck", items=len(items), calls=calls, notes=notes)
