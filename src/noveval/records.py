"""Typed records shared by every benchmark: one vocabulary for the whole toolkit.

Each system's records are these types or subclasses of them that add only the system's
own fields (docs/internals.md, "Records", lists which extends which). A base holds just
the fields every one of its subclasses has, in the order their files use, so a subclass
validates and dumps exactly what it did on its own. Extra fields in input files are kept
(``extra="allow"``) so nothing a user supplies is silently lost; a subclass whose format
is stricter (CLAIMCHECK annotations forbid unknown fields) or that never kept extras
overrides ``model_config``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class _Record(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class Paper(_Record):
    """A scientific paper: the fields every paper source has.

    Extended by the focus papers with reviews ("Mind the Blind Spots" §3.2), NovBench
    records (NovBench §3.1) and its RAG corpus (App. E), the NeurIPS papers of the pairs
    task, RINoBench's construction input (RINoBench §4.1.1), CLAIMCHECK's full-text
    papers (CLAIMCHECK §3.2), the validity check's rated papers and the retrieval
    benchmark's query papers with their citation gold.
    """

    id: str = Field(description="Stable identifier (OpenReview id, corpus id, ...).")
    title: str = Field(description="Title.")
    abstract: str = Field(default="", description="Abstract; may be empty for title-only sources.")


class RelatedWork(_Record):
    """A prior work given to a model as context (RINoBench §4.1.1 related works, RAG results)."""

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
    """One peer review (or meta-review) of a paper.

    Extended by the focus reviews with named sections ("Mind the Blind Spots" §3.2), the
    ICLR reviews with novelty ratings RINoBench is built from (RINoBench §4.1.1) and the
    NeurIPS 2025 reviews with an originality score (pairs task).
    """

    text: str = Field(default="", description="Full review text.")


Polarity = Literal["strength", "weakness"]
"""Whether a review point praises or criticises the paper ("Mind the Blind Spots" §3.2)."""


class ReviewPoint(_Record):
    """One self-contained strength or weakness point about a paper ("Mind the Blind Spots" §3.2).

    A point comes from a human review or a model review (``source``) and is numbered per
    paper, source and polarity. The focus system's ``FocusPoint`` is this record.
    """

    id: str = Field(description="Unique id ``<paper>|<source>|<s|w><index>``.")
    paper_id: str = Field(description="Id of the paper the point is about.")
    source: str = Field(description='"human" or the id of the model that wrote the review.')
    polarity: Polarity = Field(description="Whether the point is a strength or a weakness.")
    index: int = Field(description="Position among the paper's points of this source and polarity (0-based).")
    text: str = Field(description="The point's text.")
    reviewer: int | None = Field(default=None, description="Index of the human review it came from, if any.")


class NoveltyEvaluation(_Record):
    """A structured novelty evaluation: points sorted by sentiment (NovBench §3.1.3, Fig. 13).

    Extended by NovBench's parsed evaluation text (``StructuredEvaluation``).
    """

    positive: list[str] = Field(default_factory=list, description="Points praising novelty.")
    neutral: list[str] = Field(default_factory=list, description="Neutral observations on novelty.")
    negative: list[str] = Field(default_factory=list, description="Points doubting novelty.")


class Claim(_Record):
    """A claim made by a paper, ideally an exact span of its text (CLAIMCHECK §3.3).

    The span may be given as offsets, as text, or both; a loader fills in whichever is
    missing. Extended by CLAIMCHECK's candidate and custom claims.
    """

    text: str | None = Field(default=None, description="The claim as written in the paper; filled from offsets if absent.")
    start: int | None = Field(default=None, ge=0, description="Character offset of the span start in the paper text.")
    end: int | None = Field(default=None, ge=0, description="Character offset one past the span end.")


class Weakness(_Record):
    """A claim-related weakness: a span of a review with its groundedness (CLAIMCHECK §3.3, WI).

    Extended by CLAIMCHECK's annotated weakness, which adds the CA and WL labels, and by
    its task item (one annotated weakness with the context a prompt shows).
    """

    start: int | None = Field(default=None, ge=0, description="Character offset of the span start in the review text.")
    end: int | None = Field(default=None, ge=0, description="Character offset one past the span end.")
    text: str | None = Field(default=None, description="The weakness text; filled from offsets if absent.")
    groundedness: int | None = Field(default=None, ge=1, le=5, description="Groundedness confidence 1-5: 5 = grounded in an explicit claim of the paper, 1 = in a claim the reviewer imputes.")


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
