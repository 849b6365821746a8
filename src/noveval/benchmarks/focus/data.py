"""Records and loaders for focus-level review evaluation ("Mind the Blind Spots").

Input: papers with their OpenReview reviews, one JSON object per line (``.jsonl`` or
``.jsonl.gz``, or a ``.json`` list), the format of ``shared/data/reviews/neurips-*``::

    {"id", "title", "abstract", "fulltext_markdown"?, "accepted"?,
     "reviews": [{"text", "sections": {"strengths", "weaknesses", ...}}],
     "meta_review": {"text", "sections"}?}

Expert points come by two routes (Section 3.2):

* ``split`` -- the deterministic splitter (:mod:`.split`) over every review's
  ``strengths`` / ``weaknesses`` sections (NeurIPS 2023-24). For a combined
  ``strengths_and_weaknesses`` section (NeurIPS 2025) the ``Strengths:`` /
  ``Weaknesses:`` headers inside it are used. No model is called. Unlike the
  paper's meta-review chain, this pools *all* reviewers' points, so a paper has
  more human points than the paper's ~5.4 (Section 5.2).
* ``chain`` -- the three-prompt chain of Appendix A.1.1 (:mod:`.expert`).

``accepted`` (``false`` = rejected) is what the paper protocol selects on (Section
5.1); :mod:`.protocol`. Annotated points (a run's ``judgments.jsonl``, or one a user
writes) are read by :func:`read_judgments`, which maps published label strings and
rejects unknown ones with file, line and field.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ConfigDict, Field, ValidationError

from noveval.benchmarks.focus.split import split_points, split_review_sections
from noveval.errors import InputError
from noveval.io import iter_jsonl, read_records, validation_field
from noveval.records import Paper, Polarity, Review, ReviewPoint

POLARITIES: tuple[Polarity, Polarity] = ("strength", "weakness")

__all__ = [
    "POLARITIES",
    "FocusPaper",
    "FocusPoint",
    "FocusReview",
    "load_papers",
    "points_from_sections",
    "read_judgments",
    "point_id",
    "review_sections",
]


class FocusReview(Review):
    """One human review (or meta-review) of a paper: a :class:`~noveval.records.Review` with sections."""

    sections: dict[str, Any] = Field(
        default_factory=dict, description="Named sections (summary, strengths, weaknesses, ...)."
    )


class FocusPaper(Paper):
    """A paper with its reviews, as in ``shared/data/reviews`` (a :class:`~noveval.records.Paper`)."""

    id: str = Field(min_length=1, description="Paper id (OpenReview forum id).")
    title: str = Field(min_length=1, description="Paper title.")
    fulltext_markdown: str | None = Field(default=None, description="Full text, when present.")
    accepted: bool | None = Field(default=None, description="Decision, when known.")
    reviews: list[FocusReview] = Field(default_factory=list, description="Individual reviews.")
    meta_review: FocusReview | None = Field(default=None, description="The meta-review.")


class FocusPoint(ReviewPoint):
    """A strength or weakness point of one paper, from a human or a model review (Section 3.2).

    The fields are :class:`~noveval.records.ReviewPoint`'s; unlike a shared record, fields a
    file adds are dropped, as this type always did.
    """

    model_config = ConfigDict(extra="ignore")


def point_id(paper_id: str, source: str, polarity: Polarity, index: int) -> str:
    """Stable id of a point: ``"<paper>|<source>|<s|w><index>"``."""
    return f"{paper_id}|{source}|{polarity[0]}{index}"


def load_papers(path: str | Path, *, limit: int | None = None) -> list[FocusPaper]:
    """Read papers with reviews; every line is validated before anything is returned.

    Args:
        path: ``.jsonl``, ``.jsonl.gz`` or ``.json`` (a list) file.
        limit: Keep only the first ``limit`` papers (after validation of those).

    Returns:
        The papers in file order.

    Raises:
        InputError: Unreadable file, bad JSON, a missing or ill-typed field, or a
            duplicate paper id (with file, line and field).
    """
    name = str(path)[:-3] if str(path).endswith(".gz") else str(path)
    if limit and name.endswith(".jsonl"):
        # stream: validate and keep only the first ``limit`` records

        papers = []
        for line, obj in iter_jsonl(path):
            try:
                papers.append(FocusPaper.model_validate(obj))
            except ValidationError as err:
                field, msg = validation_field(err)
                raise InputError(path, line, field, msg) from None
            if len(papers) >= limit:
                break
        if not papers:
            raise InputError(path, None, None, "file holds no records")
    else:
        papers = read_records(path, FocusPaper)
    seen: dict[str, int] = {}
    for i, p in enumerate(papers, start=1):
        if p.id in seen:
            raise InputError(path, i, "id", f"duplicate paper id {p.id!r} (first on line {seen[p.id]})")
        seen[p.id] = i
    return papers[:limit] if limit else papers


def review_sections(review: FocusReview) -> dict[str, str]:
    """The ``strengths`` and ``weaknesses`` text of a review, wherever they are.

    Uses ``sections["strengths"]``/``["weaknesses"]`` when present; else splits a
    combined ``strengths_and_weaknesses`` section, else the full text, by headers.
    """
    sec = {k: v for k, v in review.sections.items() if isinstance(v, str)}
    if sec.get("strengths") or sec.get("weaknesses"):
        return {"strengths": sec.get("strengths", ""), "weaknesses": sec.get("weaknesses", "")}
    combined = sec.get("strengths_and_weaknesses") or review.text
    found = split_review_sections(combined or "")
    return {"strengths": found.get("strengths", ""), "weaknesses": found.get("weaknesses", "")}


def points_from_sections(
    paper: FocusPaper, *, source: str = "human", max_reviews: int | None = None
) -> list[FocusPoint]:
    """Expert points of a paper by the deterministic splitter (route ``split``).

    Args:
        paper: The paper with its reviews.
        source: Source tag written into the points.
        max_reviews: Use only the first ``max_reviews`` reviews (``None``: all).

    Returns:
        Strength points then weakness points, numbered per polarity.
    """
    out: list[FocusPoint] = []
    reviews = paper.reviews[:max_reviews] if max_reviews else paper.reviews
    for polarity, key in (("strength", "strengths"), ("weakness", "weaknesses")):
        k = 0
        for r_idx, review in enumerate(reviews):
            for text in split_points(review_sections(review)[key]):
                out.append(
                    FocusPoint(
                        id=point_id(paper.id, source, polarity, k),  # type: ignore[arg-type]
                        paper_id=paper.id,
                        source=source,
                        polarity=polarity,  # type: ignore[arg-type]
                        index=k,
                        text=text,
                        reviewer=r_idx,
                    )
                )
                k += 1
    return out


def points_from_lists(
    paper_id: str, source: str, strengths: list[str], weaknesses: list[str]
) -> list[FocusPoint]:
    """Points from ready-made strength and weakness lists (model reviews, chain output)."""
    out: list[FocusPoint] = []
    for polarity, items in (("strength", strengths), ("weakness", weaknesses)):
        for k, text in enumerate(t for t in items if t and t.strip()):
            out.append(
                FocusPoint(
                    id=point_id(paper_id, source, polarity, k),  # type: ignore[arg-type]
                    paper_id=paper_id,
                    source=source,
                    polarity=polarity,  # type: ignore[arg-type]
                    index=k,
                    text=text.strip(),
                )
            )
    return out


def read_judgments(path: str | Path) -> list[dict[str, Any]]:
    """Read annotated points (a run's ``judgments.jsonl``, or one a user wrote).

    Each row needs ``paper_id``, ``source`` (``"human"`` or a model id), ``polarity``
    (``strength``/``weakness``), ``target`` and ``aspect``. A label is a facet name,
    an extra label (``Review process``, ``Irrelevant``), a published alias such as
    "Overall Motivation" or "Communication Clarity" (mapped to its facet, see
    :func:`noveval.metrics.focus.canonical_label`), or ``null`` for an annotation
    that failed (counted as a failure). Labels are returned in canonical form.

    Raises:
        InputError: Bad JSON, a missing field, a bad polarity or an unknown label,
            with file, line and field -- nothing is dropped.
    """
    from noveval.metrics.focus import canonical_label

    rows = []
    for line, obj in iter_jsonl(path):
        if not isinstance(obj, dict):
            raise InputError(path, line, None, "expected a JSON object")
        for key in ("paper_id", "source"):
            if not isinstance(obj.get(key), str) or not obj[key]:
                raise InputError(path, line, key, "missing or not a non-empty string")
        if obj.get("polarity") not in POLARITIES:
            raise InputError(path, line, "polarity",
                             f"expected 'strength' or 'weakness', got {obj.get('polarity')!r}")
        for family in ("target", "aspect"):
            value = obj.get(family)
            if value is None:
                continue
            if not isinstance(value, str):
                raise InputError(path, line, family, f"expected a label string or null, got {value!r}")
            try:
                obj[family] = canonical_label(value, family)
            except ValueError as err:
                raise InputError(path, line, family, str(err)) from None
        rows.append(obj)
    return rows
