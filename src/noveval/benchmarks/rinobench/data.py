"""RINoBench records and loaders for the published formats (Section 4.1.2).

Published files (TimSchopf/RINoBench):

- ``train.json`` / ``test.json``: a JSON array of items ``{source, venueid,
  research_idea{objective, problem_statement, solution_approach}, novelty_score,
  novelty_reasoning, related_works[{title, abstract, authors, url, venue, year}]}``.
- ``label_descriptions.json``: the 1-5 rubric (Table 1) as five strings ``"N: text"``.
- ``novelty_predictions-<model>.json``: a JSON array ``[{reasoning, novelty_score}]``
  in test-set order (no ids: predictions are aligned with the gold by position).

Items carry no id in the published format; :func:`load_items` gives each the id
``str(index)`` (0-based position) unless the record has its own ``id``. Predictions
made by :mod:`noveval` carry the same ids and are aligned by id; published prediction
files are aligned by position.

The item (:class:`RINoBenchItem`, :func:`load_items`) and the rubric (:data:`DEFAULT_RUBRIC`,
:func:`rubric_text`) are shared with novelty-pairs, validate and ``noveval check``: they are
defined in :mod:`noveval.judging` and re-exported here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from noveval.errors import InputError
from noveval.io import iter_records, read_json, validation_field
from noveval.judging.items import IN_MEMORY, RINoBenchItem, load_items, records_in_memory
from noveval.judging.rubric import DEFAULT_RUBRIC, rubric_text

__all__ = [
    "IN_MEMORY",
    "DEFAULT_RUBRIC",
    "RINoBenchItem",
    "Prediction",
    "load_items",
    "load_predictions",
    "load_rubric",
    "rubric_text",
    "coerce_score",
]


class Prediction(BaseModel):
    """A model's novelty judgment: a justification and a 1-5 score (``None``: unparseable)."""

    model_config = ConfigDict(extra="allow")

    id: str | None = Field(default=None, description="Item id; absent in published files (aligned by order).")
    reasoning: str | None = Field(default=None, description="The justification text.")
    novelty_score: int | None = Field(default=None, description="Score in 1..5, or None when unparseable.")
    parse_status: str = Field(default="ok", description="'ok', or why the score is missing.")


def coerce_score(value: Any) -> int | None:
    """Read a score value from a predictions file: 1..5 as int, integral float or digit string.

    Returns:
        The score, or ``None`` when the value is not a score in 1..5 (counted as unparseable).
    """
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value if 1 <= value <= 5 else None
    if isinstance(value, float):
        return int(value) if value.is_integer() and 1 <= value <= 5 else None
    if isinstance(value, str):
        m = re.fullmatch(r"\s*([1-5])(?:\.0+)?\s*(?:/\s*5)?\s*", value)
        return int(m.group(1)) if m else None
    return None


def load_predictions(path: str | Path | Sequence[dict[str, Any] | Prediction]) -> list[Prediction]:
    """Load predictions: a published ``[{reasoning, novelty_score}]`` file or our JSONL.

    ``path`` may also be the records themselves (a list of such dicts or of
    :class:`Prediction`); they are checked by the same rules, and errors name
    ``<in-memory records>`` and the list index.

    ``novelty_score`` must be a score: a JSON number 1..5 (``4`` or ``4.0``), or null for a
    prediction without one — kept as unparseable, never dropped (our own predictions.jsonl
    writes null when the model's reply held no score). Any other value (``9``, ``0``,
    ``3.5``, a string such as ``"4"`` or ``"three"``) is an input error: a number in a file
    is written as a number in every system, and "unparseable" is the word for model
    replies, not for the values in a user's file.

    Raises:
        InputError: ``file:line: [i].field:`` bad JSON, a record that is not an object, a
            missing ``novelty_score`` key, a ``novelty_score`` that is not a score in 1..5,
            or a ``reasoning`` that is not text.
    """
    given = records_in_memory(path, "predictions", "{reasoning, novelty_score}")
    p: Any
    if given is None:
        p = Path(path)  # type: ignore[arg-type]
        rows = _read_rows(p)
    else:
        p = IN_MEMORY
        rows = [(None, r.model_dump() if isinstance(r, Prediction) else r) for r in given]
    out: list[Prediction] = []
    for i, (line, row) in enumerate(rows):
        where = f"[{i}]"
        if not isinstance(row, dict):
            raise InputError(p, line, where, f"expected an object, got {type(row).__name__}")
        if "novelty_score" not in row:
            raise InputError(p, line, f"{where}.novelty_score", "required field is missing")
        reasoning = row.get("reasoning")
        if reasoning is not None and not isinstance(reasoning, str):
            raise InputError(p, line, f"{where}.reasoning", "must be text or null")
        data = dict(row)
        raw = row["novelty_score"]
        if isinstance(raw, str) and coerce_score(raw) is not None:
            raise InputError(p, line, f"{where}.novelty_score", f"{json.dumps(raw, ensure_ascii=False)} is a string: "
                             "write the score as a JSON number 1-5 (or null for a prediction without a score)")
        score = coerce_score(raw)
        if score is None and raw is not None:
            raise InputError(
                p, line, f"{where}.novelty_score",
                f"{json.dumps(raw, ensure_ascii=False)} is not a score: expected an integer 1-5 "
                "(or null for a prediction without a score)",
            )
        data["novelty_score"] = score
        if score is None:
            data["parse_status"] = row.get("parse_status") or "unparseable"
        if data.get("id") is not None:
            data["id"] = str(data["id"])
        try:
            out.append(Prediction.model_validate(data))
        except ValidationError as e:
            field, msg = validation_field(e)
            raise InputError(p, line, f"{where}.{field}", msg) from e
    ids = [r.id for r in out if r.id is not None]
    if len(set(ids)) != len(ids):
        raise InputError(p, None, "id", "duplicate prediction ids")
    return out


def _read_rows(p: Path) -> list[tuple[int | None, Any]]:
    """``(line, record)`` pairs of a JSON array, a JSONL file or a ``{"predictions": [...]}`` object."""
    name = p.name[:-3] if p.name.endswith(".gz") else p.name
    if not name.endswith(".jsonl"):
        try:
            data = read_json(p)
        except InputError:
            data = None  # maybe JSONL under another name: iter_records says what is wrong
        if isinstance(data, dict) and isinstance(data.get("predictions"), list):
            data = data["predictions"]
            if not data:
                raise InputError(p, None, None, "file holds an empty list: no predictions")
            return [(None, r) for r in data]
        if data is not None and not isinstance(data, (list, dict)):
            raise InputError(p, None, None, "expected a JSON array of predictions")
    items: list[tuple[int | None, Any]] = list(iter_records(p))
    if not items:
        raise InputError(p, None, None, "file holds an empty list: no predictions")
    return items


def load_rubric(path: str | Path | None = None) -> dict[int, str]:
    """Load ``label_descriptions.json`` (five ``"N: text"`` strings); default: Table 1.

    Raises:
        InputError: not a list of five strings numbered 1..5.
    """
    if path is None:
        return dict(DEFAULT_RUBRIC)
    p = Path(path)
    data = read_json(p)
    if isinstance(data, dict):
        entries = [f"{k}: {v}" for k, v in data.items()]
    elif isinstance(data, list):
        entries = data
    else:
        raise InputError(p, None, None, "expected a list of 'N: description' strings")
    rubric: dict[int, str] = {}
    for i, e in enumerate(entries):
        m = re.match(r"\s*([1-5])\s*[:.)-]\s*(.+)", e, re.S) if isinstance(e, str) else None
        if not m:
            raise InputError(p, None, f"[{i}]", "expected 'N: description' with N in 1..5")
        rubric[int(m.group(1))] = m.group(2).strip()
    if sorted(rubric) != [1, 2, 3, 4, 5]:
        raise InputError(p, None, None, f"rubric must describe scores 1..5, got {sorted(rubric)}")
    return rubric
