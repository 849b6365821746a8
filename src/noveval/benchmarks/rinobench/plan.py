"""RINoBench's planned work (``noveval eval --plan``): one judgment per idea (per sample).

The ideas are the run's (``--limit``), each request built by the run's own
:func:`~noveval.judging.request.build_request` with its protocol's settings
(:func:`~noveval.benchmarks.rinobench.contract.checked_protocol`). The justification
judge's calls (``--judge``: argument extraction, support, grounding, alignment per idea,
Section 5.2) depend on the answers and are not estimated: the plan says so.
"""

from __future__ import annotations

from noveval.benchmarks.rinobench.data import load_items, load_rubric
from noveval.benchmarks.rinobench.options import RINoBenchOptions
from noveval.judging.request import build_request
from noveval.plan import SystemPlan, request_call

__all__ = ["plan"]


def plan(options: RINoBenchOptions) -> SystemPlan:
    """The run's requests (one per idea and sample), no model call."""
    from noveval.benchmarks.rinobench.contract import _items_source, checked_protocol
    o = options
    proto = checked_protocol(o)
    items = load_items(_items_source(o))
    sel = items[: o.limit] if o.limit else items
    rubric = load_rubric(o.rubric)
    gen = o.generation()
    calls = [request_call(build_request(it, rubric, seed=o.seed + s, structured=proto["structured"],
                                        max_tokens=o.max_tokens, temperature=proto["temperature"],
                                        prompt=proto["prompt"], max_related_works=o.max_related_works,
                                        max_abstract_chars=o.max_abstract_chars), gen)
             for it in sel for s in range(max(1, o.samples))]
    notes = [f"not estimated: the justification judge's calls ({o.judge})"] if o.judge else []
    return SystemPlan("rinobench", items=len(sel), calls=calls, notes=notes)
