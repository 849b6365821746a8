"""The judged item: a research idea with its related works, in RINoBench's published format.

RINoBench (Schopf & Färber 2026, Section 4.1.2) publishes ``train.json`` / ``test.json``
(TimSchopf/RINoBench): a JSON array of items ``{source, venueid, research_idea{objective,
problem_statement, solution_approach}, novelty_score, novelty_reasoning,
related_works[{title, abstract, authors, url, venue, year}]}``. rinobench judges these
items, novelty-pairs pairs them, and ``noveval check`` builds one from a user's idea;
:func:`load_items` is their one loader.

Items carry no id in the published format; :func:`load_items` gives each the id
``str(index)`` (0-based position) unless the record has its own ``id``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from noveval.errors import InputError
from noveval.io import read_records, require_unique_ids, validation_field
from noveval.records import Idea, RelatedWork

__all__ = ["IN_MEMORY", "IdeaReply", "RINoBenchItem", "load_items", "records_in_memory"]


class RINoBenchItem(BaseModel):
    """One research idea with its related works and (for gold data) the human judgment."""

    model_config = ConfigDict(extra="allow")

    id: str | None = Field(default=None, description="Item id; the 0-based position when absent.")
    source: str | None = Field(default=None, description="Where the idea comes from (OpenReview link).")
    venueid: str | None = Field(default=None, description="OpenReview venue id, e.g. ICLR.cc/2023/Conference.")
    research_idea: Idea = Field(description="Problem statement, objective and solution approach.")
    novelty_score: int | None = Field(default=None, ge=1, le=5, strict=True,
                                      description="Gold score 1-5 (gold files only): a JSON number, never a string.")
    novelty_reasoning: str | None = Field(default=None, description="Gold justification (gold files only).")
    related_works: list[RelatedWork] = Field(default_factory=list, description="Titles and abstracts of related works.")


# The JSON a model fills to structure an idea: the fields of records.Idea. A reply schema,
# not a record, and deliberately without a docstring or field descriptions: those would
# enter the JSON schema sent to the model and change every cached request. Used by
# RINoBench's dataset construction (rinobench/construct.py, Section 4.1.1 step "idea
# structuring") and by ``noveval check`` (check/judge.py) to structure a user's idea.
class IdeaReply(BaseModel):
    problem_statement: str
    objective: str
    solution_approach: str


IN_MEMORY = "<in-memory records>"
"""How errors name records given as a Python list instead of a file."""


def records_in_memory(source: Any, kind: str, what: str) -> list[Any] | None:
    """``source`` as a list of records when it is a list/tuple, None for a path.

    Raises:
        InputError: an empty list, or ``source`` is neither a path nor a list of records.
    """
    if isinstance(source, str | Path):
        return None
    if isinstance(source, list | tuple):
        if not source:
            raise InputError(IN_MEMORY, None, kind, "the list is empty: no records")
        return list(source)
    raise InputError(None, None, kind, f"must be a file path or a list of {what} records, got {type(source).__name__}")


def load_items(path: str | Path | Sequence[dict[str, Any] | RINoBenchItem], *,
               require_gold: bool = False) -> list[RINoBenchItem]:
    """Load RINoBench items from a ``.json`` array or ``.jsonl`` file (or a list of records).

    Args:
        path: The file (published ``train.json`` / ``test.json`` format), ``hf:NAME[:SPLIT]``,
            or the records themselves (dicts in that format or :class:`RINoBenchItem`).
        require_gold: Demand ``novelty_score`` and ``novelty_reasoning`` on every item.

    Returns:
        The items in order, each with an id (``str(index)`` when absent).

    Raises:
        InputError: naming the file (or ``<in-memory records>``), line and field of the
            first problem (duplicate ids too); a ``path`` that is neither a path nor a list.
    """
    rows = records_in_memory(path, "items", "RINoBench item")
    if rows is None:
        p: Any = Path(path)  # type: ignore[arg-type]
        items = read_records(p, RINoBenchItem)
    else:
        p = IN_MEMORY
        items = []
        for i, r in enumerate(rows):
            if isinstance(r, RINoBenchItem):
                items.append(r.model_copy())
                continue
            if not isinstance(r, dict):
                raise InputError(p, None, f"[{i}]", f"expected an object, got {type(r).__name__}")
            try:
                items.append(RINoBenchItem.model_validate(r))
            except ValidationError as e:
                field, msg = validation_field(e)
                raise InputError(p, None, f"[{i}].{field}", msg) from e
    for i, it in enumerate(items):
        if it.id is None:
            it.id = str(i)
    require_unique_ids(p, (it.id for it in items))
    for i, it in enumerate(items):
        if require_gold:
            if it.novelty_score is None:
                raise InputError(p, None, f"[{i}].novelty_score", "gold score is missing")
            if not (it.novelty_reasoning or "").strip():
                raise InputError(p, None, f"[{i}].novelty_reasoning", "gold justification is missing")
    return items
