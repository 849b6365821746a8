"""Robust reading of a model's novelty judgment (score 1-5 + justification), Section 5.

The parser is shared with validate's rubric judge and ``noveval check``: it is defined in
:mod:`noveval.judging.parse` (see there for the rules) and re-exported here. The JSON
in a reply is found by noveval's one extractor,
:func:`noveval.models.structured.find_json_object` (also re-exported).
"""

from __future__ import annotations

from noveval.judging.parse import ParsedJudgment, parse_judgment
from noveval.models.structured import find_json_object

__all__ = ["ParsedJudgment", "parse_judgment", "find_json_object"]
