"""Pair construction for ``novelty-pairs``: seeded, documented, gold = the more original side.

Two sources:

- **RINoBench** (:func:`rinobench_sides`): any two items of a file in the published
  ``test.json`` format whose gold ``novelty_score`` (1-5) differs. A side shows the
  research idea (problem statement, objective, solution approach); related works are not
  shown (the task compares the two ideas with each other). The file is read by the shared
  RINoBench item loader (:func:`noveval.judging.items.load_items`).
- **NeurIPS 2025** (:func:`load_neurips`, :func:`neurips_pairs`): papers of
  ``reviews/neurips-2025.jsonl.gz`` with at least ``min_reviews`` reviews carrying
  ``scores.originality`` (1-4); a paper's gold is the mean originality of its reviews. Two
  papers form a candidate pair when they share an author keyword (case- and
  space-normalised) and their means differ by at least ``min_diff`` (default 1). The file
  has no primary-area field, so a shared author keyword stands in for "same area"
  (docs/fidelity.md). A side shows title and abstract.

Sampling (:func:`sample_pairs`): the candidates are sorted by id, shuffled with
``random.Random(seed)``, and taken greedily so that **no item appears in two pairs** (the
pairs are then independent units for the bootstrap); ``limit`` caps the count. Which side
is shown first in the canonical order ``ab`` is drawn from the same generator, so the more
original side is first in about half the pairs; both orders are asked anyway.
"""

from __future__ import annotations

import itertools
import random
import re
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from noveval.errors import InputError
from noveval.io import read_records
from noveval.judging.items import load_items
from noveval.records import Paper, Review

__all__ = ["PairSide", "Pair", "NeurIPSPaper", "NeurIPSReview", "build_pairs", "rinobench_sides", "load_neurips", "neurips_pairs", "sample_pairs"]


class PairSide(BaseModel):
    """One side of a pair: an item id, the text shown to the model, and its gold novelty.

    Attributes:
        id: The item's id in its source file.
        text: What the model reads.
        gold: Gold novelty (RINoBench score 1-5, or NeurIPS mean originality 1-4).
    """

    id: str
    text: str
    gold: float


class Pair(BaseModel):
    """Two sides with different gold novelty; ``a`` is shown first in order ``ab``.

    Attributes:
        id: ``<a.id>|<b.id>``.
        a: The side shown first in order ``ab`` (second in ``ba``).
        b: The other side.
        kind: ``research idea`` or ``paper`` (fills the prompt).
        area: The shared author keyword (NeurIPS pairs), else None.
    """

    id: str
    a: PairSide
    b: PairSide
    kind: str
    area: str | None = None

    @property
    def gold(self) -> str:
        """``"a"`` or ``"b"``: the more original side (never equal by construction)."""
        return "a" if self.a.gold > self.b.gold else "b"


def _idea_text(item: Any) -> str:
    idea = item.research_idea
    return (f"Problem statement: {idea.problem_statement.strip()}\nObjective: {idea.objective.strip()}\n"
            f"Solution approach: {idea.solution_approach.strip()}")


def rinobench_sides(path: str | Path | Sequence[Any]) -> list[PairSide]:
    """The sides of RINoBench items (those with a gold score), for :func:`sample_pairs`.

    Args:
        path: A file in the published test.json format (or its records).

    Returns:
        One :class:`PairSide` per item with ``novelty_score``.

    Raises:
        InputError: a bad file (file, line, field), or fewer than two distinct gold scores.
    """
    items = load_items(path)
    sides = [PairSide(id=str(it.id), text=_idea_text(it), gold=float(it.novelty_score))
             for it in items if it.novelty_score is not None]
    if len({s.gold for s in sides}) < 2:
        raise InputError(path if isinstance(path, (str, Path)) else None, None, "novelty_score",
                         "pairs need items with at least two different gold novelty_score values")
    return sides


class _Scores(BaseModel):
    model_config = ConfigDict(extra="allow")
    originality: int | None = Field(default=None, ge=1, le=4, description="Originality, 1-4.")


class NeurIPSReview(Review):
    """A NeurIPS 2025 :class:`~noveval.records.Review` with its scores (originality is what pairs use)."""

    scores: _Scores = Field(default_factory=lambda: _Scores(), description="The review's scores.")


class NeurIPSPaper(Paper):
    """The fields of a ``reviews/neurips-2025.jsonl.gz`` record that pairs use (a :class:`~noveval.records.Paper`)."""

    abstract: str = Field(description="Abstract (required: a side shows title and abstract).")
    keywords: list[str] = Field(default_factory=list, description="Author keywords (a shared one stands in for the area).")
    reviews: list[NeurIPSReview] = Field(default_factory=list, description="The reviews.")

    def originality(self) -> list[int]:
        """The reviews' originality scores (1-4), missing ones left out."""
        return [r.scores.originality for r in self.reviews if r.scores.originality is not None]


def _norm_kw(k: str) -> str:
    return re.sub(r"\s+", " ", k.strip().lower())


def load_neurips(path: str | Path, *, min_reviews: int = 2) -> list[tuple[PairSide, frozenset[str]]]:
    """The NeurIPS papers usable for pairs: a side (gold = mean originality) and its keywords.

    Args:
        path: ``reviews/neurips-2025.jsonl.gz`` (or any JSONL of that layout).
        min_reviews: Keep papers with at least this many originality scores.

    Returns:
        ``[(side, normalised keywords)]`` for papers with keywords and enough scores.

    Raises:
        InputError: a bad record (file, line, field).
    """
    out = []
    for p in read_records(path, NeurIPSPaper):
        orig = p.originality()
        kws = frozenset(k for k in (_norm_kw(k) for k in p.keywords) if k)
        if len(orig) >= min_reviews and kws:
            text = f"Title: {p.title.strip()}\nAbstract: {p.abstract.strip()}"
            out.append((PairSide(id=p.id, text=text, gold=sum(orig) / len(orig)), kws))
    return out


def neurips_pairs(papers: Sequence[tuple[PairSide, frozenset[str]]], *, min_diff: float = 1.0) -> list[tuple[PairSide, PairSide, str]]:
    """Candidate pairs: papers sharing an author keyword whose gold differs by >= ``min_diff``.

    Returns:
        ``[(x, y, keyword)]`` with ``x.id < y.id``, each unordered pair once; ``keyword``
        is the alphabetically first shared keyword.
    """
    by_kw: dict[str, list[int]] = defaultdict(list)
    for i, (_, kws) in enumerate(papers):
        for k in kws:
            by_kw[k].append(i)
    seen: dict[tuple[int, int], str] = {}
    for k in sorted(by_kw):
        for i, j in itertools.combinations(by_kw[k], 2):
            x, y = papers[i][0], papers[j][0]
            if abs(x.gold - y.gold) >= min_diff - 1e-9 and (i, j) not in seen:
                seen[(i, j)] = k
    out = []
    for (i, j), k in seen.items():
        x, y = papers[i][0], papers[j][0]
        out.append((x, y, k) if x.id < y.id else (y, x, k))
    return sorted(out, key=lambda t: (t[0].id, t[1].id))


def _rinobench_candidates(sides: Sequence[PairSide]) -> list[tuple[PairSide, PairSide, str | None]]:
    return [(x, y, None) for x, y in itertools.combinations(sides, 2) if x.gold != y.gold]


def sample_pairs(candidates: Sequence[tuple[PairSide, PairSide, str | None]], *, kind: str,
                 limit: int | None = None, seed: int = 0) -> list[Pair]:
    """Seeded sample of pairs in which no item appears twice (see the module docstring).

    Args:
        candidates: ``(x, y, area)`` triples (from :func:`neurips_pairs`, or all RINoBench
            pairs with different gold).
        kind: ``research idea`` or ``paper``.
        limit: At most this many pairs (None: as many as the no-reuse rule allows).
        seed: Shuffle and order seed.

    Returns:
        The pairs, in sampled order.
    """
    rng = random.Random(seed)
    cands = sorted(candidates, key=lambda t: (t[0].id, t[1].id))
    rng.shuffle(cands)
    used: set[str] = set()
    pairs: list[Pair] = []
    for x, y, area in cands:
        if limit is not None and len(pairs) >= limit:
            break
        if x.id in used or y.id in used:
            continue
        used.update((x.id, y.id))
        a, b = (x, y) if rng.random() < 0.5 else (y, x)
        pairs.append(Pair(id=f"{a.id}|{b.id}", a=a, b=b, kind=kind, area=area))
    return pairs


def build_pairs(source: str, path: str | Path, *, limit: int | None = None, seed: int = 0,
                min_diff: float = 1.0, min_reviews: int = 2) -> list[Pair]:
    """Pairs from ``path`` read as ``source`` (``rinobench`` or ``neurips``); see the module docstring.

    Raises:
        InputError: a bad file, or no pair can be formed.
    """
    if source == "rinobench":
        pairs = sample_pairs(_rinobench_candidates(rinobench_sides(path)), kind="research idea", limit=limit, seed=seed)
    elif source == "neurips":
        papers = load_neurips(path, min_reviews=min_reviews)
        pairs = sample_pairs(neurips_pairs(papers, min_diff=min_diff), kind="paper", limit=limit, seed=seed)
    else:
        raise InputError(None, None, "source", f"source must be 'rinobench' or 'neurips', got {source!r}")
    if not pairs:
        raise InputError(path, None, None, "no pair of items with different gold novelty could be formed")
    return pairs
