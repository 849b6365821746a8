"""The pairwise task's planned work (``noveval eval --plan``): every pair asked in both orders.

The pairs are formed as the run forms them (:func:`~noveval.benchmarks.pairs.data.build_pairs`,
``--limit``) and each request built by the run's own
:func:`~noveval.benchmarks.pairs.task.build_request`; ``samples`` asks each order N times.
"""

from __future__ import annotations

from noveval.benchmarks._contract import sample_file
from noveval.benchmarks.pairs.contract import SAMPLE
from noveval.benchmarks.pairs.data import build_pairs
from noveval.benchmarks.pairs.options import PairsOptions
from noveval.benchmarks.pairs.task import ORDERS, build_request
from noveval.plan import SystemPlan, request_call

__all__ = ["plan"]


def plan(options: PairsOptions) -> SystemPlan:
    """The run's requests (one per pair, order and sample), no model call."""
    o = options
    path = o.data if o.data is not None else sample_file(*SAMPLE)
    pairs = build_pairs(o.source, path, limit=o.limit, seed=o.seed, min_diff=o.min_diff, min_reviews=o.min_reviews)
    gen = o.generation()
    calls = [request_call(build_request(p, order, allow_tie=o.allow_tie, structured=o.structured,
                                        max_tokens=o.max_tokens, temperature=o.temperature, seed=o.seed), gen)
             for p in pairs for order in ORDERS for _ in range(max(1, o.samples))]
    return SystemPlan("novelty-pairs", items=len(pairs), calls=calls)
