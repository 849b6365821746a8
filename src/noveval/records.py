"""Typed records shared by every benchmark: one vocabulary for the whole toolkit.

Benchmark-specific records (a RINoBench item, a CLAIMCHECK annotation, ...) live in
that benchmark's ``data.py`` and are built from these. Extra fields in input files
are kept (``extra="allow"``) so nothing a user supplies is silently lost.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class _Record(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class Paper(_Record):
    """A scientific paper, as much of it as is known."""

    id: str = Field(description="Stable identifier (OpenReview id, corpus id, ...).")
    title: str = Field(description="Title.")
    abstract: str = Field(default="", description="Abstract; may be empty for title-only sources.")
    year: int | None = Field(default=None, description="Publication year.")
    venue: str | None = Field(default=None, description="Venue name.")
    field: str | None = Field(default=None, description="Research field (NLP, CV, ML, ...).")
    keywords: list[str] = Field(default_factory=list, description="Author keywords or tags.")
    fulltext: str | None = Field(default=None, description="Full text (Markdown), when available.")


class RelatedWork(_Record):
    """A prior work given to a model as context (RINoBench related works, RAG results)."""

    title: str = Field(description="Title.")
    abstract: str = Field(default="", description="Abstract.")
    year: int | None = Field(default=None, description="Publication year.")
    venue: str | None = Field(default=None, description="Venue.")
    url: str | None = Field(default=None, description="Link, if any.")
    authors: list[str] | str | None = Field(default=None, description="Authors as given.")


class Idea(_Record):
    """A research idea in RINoBench's three-part structure (RINoBench §4.1)."""

    problem_statement: str = Field(description="The problem the idea addresses.")
    objective: str = Field(description="What the idea aims to achieve.")
    solution_approach: str = Field(description="How it proposes to achieve it.")


class Review(_Record):
    """One peer review."""

    id: str | None = Field(default=None, description="Review id.")
    text: str = Field(description="Full review text.")
    sections: dict[str, str] = Field(default_factory=dict, description="Named sections (summary, strengths, ...).")
    scores: dict[str, float | int | str | None] = Field(default_factory=dict, description="Numeric or categorical scores.")


Polarity = Literal["strength", "weakness"]


class ReviewPoint(_Record):
    """A single self-contained strength or weakness point of a review (focus-level evaluation)."""

    text: str = Field(description="The point's text.")
    polarity: Polarity = Field(description="Whether the point is a strength or a weakness.")
    target: str | None = Field(default=None, description="Annotated target (Problem, Method, ...), if labelled.")
    aspect: str | None = Field(default=None, description="Annotated aspect (Novelty, Clarity, ...), if labelled.")


class NoveltyEvaluation(_Record):
    """A structured novelty evaluation: points sorted by sentiment (NovBench §3, App. C)."""

    positive: list[str] = Field(default_factory=list, description="Points praising novelty.")
    neutral: list[str] = Field(default_factory=list, description="Neutral observations on novelty.")
    negative: list[str] = Field(default_factory=list, description="Points doubting novelty.")

    def all_points(self) -> list[str]:
        """Every point, positive then neutral then negative."""
        return [*self.positive, *self.neutral, *self.negative]


class Claim(_Record):
    """A claim made by a paper, ideally an exact span of its text (CLAIMCHECK §3)."""

    text: str = Field(description="The claim as written in the paper.")
    start: int | None = Field(default=None, description="Character offset of the span start in the paper text.")
    end: int | None = Field(default=None, description="Character offset one past the span end.")
    custom: bool = Field(default=False, description="True when written by an annotator rather than copied.")


class Weakness(_Record):
    """A claim-related weakness: a span of a review (CLAIMCHECK §3)."""

    text: str = Field(description="The weakness text.")
    start: int | None = Field(default=None, description="Character offset of the span in the review text.")
    end: int | None = Field(default=None, description="One past the span end.")
    groundedness: int | None = Field(default=None, ge=1, le=5, description="1-5 groundedness label.")


__all__ = [
    "Paper",
    "RelatedWork",
    "Idea",
    "Review",
    "ReviewPoint",
    "NoveltyEvaluation",
    "Claim",
    "Weakness",
    "Polarity",
]
