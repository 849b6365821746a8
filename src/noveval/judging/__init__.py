"""Novelty judging shared by every system that asks a model for a 1-5 novelty judgment.

RINoBench (Schopf & Färber, 2026) defines the task: a research idea and its related works
in, a 1-5 novelty score on its rubric (Table 1) with a justification out (Section 5).
rinobench runs that task; validate's ``rubric`` judge, novelty-pairs (which reads RINoBench
items) and ``noveval check`` (which judges a user's idea) reuse its pieces. They live here,
below all four systems, so that no system imports another (tests/foundation/test_layering.py,
tests/foundation/test_shared_judging.py):

- :mod:`.rubric`: the rubric (Table 1) and its text, the answer's JSON schema;
- :mod:`.items`: the judged item in RINoBench's published format (Section 4.1.2) and its
  loader, and the reply schema that structures free text into an idea;
- :mod:`.request`: the judging request (prompt ``judge_novelty`` of RINoBench's prompts);
- :mod:`.parse`: the robust reader of a judgment (score + justification).

Replies are read with :func:`noveval.models.structured.find_json_object`, noveval's one
JSON extractor. ``noveval.benchmarks.rinobench`` re-exports every name here that its own
modules used to define, so ``from noveval.benchmarks.rinobench.data import load_items``
keeps working.
"""

from noveval.judging.items import IN_MEMORY, IdeaReply, RINoBenchItem, load_items, records_in_memory
from noveval.judging.parse import ParsedJudgment, parse_judgment
from noveval.judging.request import JUDGE_SYSTEM, build_request, format_related_works
from noveval.judging.rubric import DEFAULT_RUBRIC, JUDGMENT_SCHEMA, rubric_text

__all__ = [
    "DEFAULT_RUBRIC",
    "IN_MEMORY",
    "JUDGE_SYSTEM",
    "JUDGMENT_SCHEMA",
    "IdeaReply",
    "ParsedJudgment",
    "RINoBenchItem",
    "build_request",
    "format_related_works",
    "load_items",
    "parse_judgment",
    "records_in_memory",
    "rubric_text",
]
