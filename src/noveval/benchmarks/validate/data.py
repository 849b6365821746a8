"""Human originality ratings: papers with their reviewers' scores, keyword groups, PeerRead.

Input format (the shared ``reviews/neurips-2025.jsonl.gz``; JSON Lines, ``.gz`` allowed)::

    {"id": "...", "title": "...", "abstract": "...", "year": 2025, "keywords": ["..."],
     "reviews": [{"scores": {"originality": 3, ...}, ...}, ...]}

Each review's ``scores.<aspect>`` is an integer on the rating scale (NeurIPS 2025
originality: 1-4); a review without it is left out of that paper's ratings. The human
target of a paper is the mean (and median) of its ratings.

The PeerRead ICLR 2017 aspect-score file (``labels/peerread-iclr2017-aspect-scores.tsv``)
holds reviews with an ``id`` column and 1-5 aspect scores but no title or abstract: the
ids are PeerRead's own file numbers, which nothing in the shared data maps to papers, so
only its human ceiling can be computed (:func:`load_peerread_ratings`).
"""

from __future__ import annotations

import csv
import re
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import ConfigDict, Field

from noveval.errors import InputError
from noveval.io import iter_jsonl
from noveval.records import Paper

__all__ = [
    "ASPECT",
    "SCALE",
    "RatedPaper",
    "load_rated_papers",
    "load_peerread_ratings",
    "normalize_keyword",
    "keyword_groups",
    "sample_paths",
]

ASPECT = "originality"
"""The review score a validity run takes as the human rating (NeurIPS 2025)."""

SCALE = (1, 4)
"""Its valid range (NeurIPS 2025 originality: 1-4)."""


def sample_paths() -> tuple[Path, Path]:
    """Paths of the shipped synthetic sample: ``(reviews.jsonl, corpus.jsonl)`` (see its make_sample.py)."""
    here = Path(__file__).resolve().parents[2] / "samples" / "validate"
    return here / "reviews.jsonl", here / "corpus.jsonl"


class RatedPaper(Paper):
    """A paper and its reviewers' ratings of one aspect.

    A :class:`~noveval.records.Paper` (``id``, ``title``, ``abstract``) with what the
    validity analysis adds. Built by :func:`load_rated_papers` only; unknown fields are refused.
    """

    model_config = ConfigDict(extra="forbid")

    year: int | None = Field(description="Publication year (prior work must be older); None if unknown.")
    keywords: list[str] = Field(default_factory=list, description="Author keywords.")
    ratings: list[int] = Field(default_factory=list,
                               description="The reviewers' scores, in file order (reviews without one are left out).")
    line: int = Field(default=0, description="Line of the input file the paper came from.")

    @property
    def mean(self) -> float | None:
        """Mean rating (None without ratings)."""
        return statistics.fmean(self.ratings) if self.ratings else None

    @property
    def median(self) -> float | None:
        """Median rating (None without ratings)."""
        return float(statistics.median(self.ratings)) if self.ratings else None


def _year(v: Any) -> int | None:
    if v is None or isinstance(v, bool):
        return None
    try:
        y = int(str(v).strip()[:4])
    except ValueError:
        return None
    return y if 1000 <= y <= 3000 else None


def load_rated_papers(
    path: str | Path, *, aspect: str = ASPECT, scale: tuple[int, int] = SCALE
) -> list[RatedPaper]:
    """Read papers and their reviewers' ``aspect`` scores.

    Args:
        path: JSONL(.gz) file in the format of the module docstring.
        aspect: Key under each review's ``scores``.
        scale: Inclusive range of valid scores.

    Returns:
        The papers in file order (papers without any rating included, with ``ratings=[]``).

    Raises:
        InputError: naming file, line and field: not an object, missing id/title, a
            non-string abstract, a duplicate id, ``reviews`` not a list, or a score that is
            not an integer in ``scale``; or a file with no rating at all.
    """
    from noveval.corpus import check_title_abstract

    p = Path(path)
    out: list[RatedPaper] = []
    seen: dict[str, int] = {}
    lo, hi = scale
    for line, row in iter_jsonl(p):
        if not isinstance(row, dict):
            raise InputError(p, line, None, "each line must be a JSON object (a paper with its reviews)")
        pid = row.get("id")
        if pid is None or (isinstance(pid, str) and not pid.strip()) or isinstance(pid, (dict, list, bool)):
            raise InputError(p, line, "id", "each paper needs an id (string or number)")
        pid = str(pid)
        if pid in seen:
            raise InputError(p, line, "id", f"duplicate paper id {pid!r} (first on line {seen[pid]})")
        seen[pid] = line
        title, abstract = check_title_abstract(p, line, row)
        reviews = row.get("reviews")
        if reviews is None:
            reviews = []
        if not isinstance(reviews, list):
            raise InputError(p, line, "reviews", "must be a list of reviews")
        ratings: list[int] = []
        for i, rev in enumerate(reviews):
            scores = rev.get("scores") if isinstance(rev, dict) else None
            if scores is None:
                continue
            if not isinstance(scores, dict):
                raise InputError(p, line, f"reviews.{i}.scores", "must be an object of aspect scores")
            v = scores.get(aspect)
            if v is None:
                continue
            if isinstance(v, bool) or not isinstance(v, (int, float)) or float(v) != int(v) or not lo <= v <= hi:
                raise InputError(p, line, f"reviews.{i}.scores.{aspect}",
                                 f"must be an integer from {lo} to {hi}, got {v!r}")
            ratings.append(int(v))
        kws = row.get("keywords") or []
        if not isinstance(kws, list):
            raise InputError(p, line, "keywords", "must be a list of strings")
        out.append(RatedPaper(id=pid, title=title.strip(), abstract=(abstract or "").strip(), year=_year(row.get("year")),
                              keywords=[str(k) for k in kws if str(k).strip()], ratings=ratings, line=line))
    if not out:
        raise InputError(p, None, None, "no papers in the file")
    if not any(r.ratings for r in out):
        raise InputError(p, None, f"reviews.scores.{aspect}", f"no review in the file has a {aspect!r} score")
    return out


def load_peerread_ratings(path: str | Path, *, aspect: str = "ORIGINALITY") -> tuple[list[list[int]], dict[str, int]]:
    """Per-paper ``aspect`` scores from the PeerRead aspect-score TSV (``id`` column groups reviews).

    Values that are not integers (``-`` = not rated; the ICLR 2017 file also has one ``s``)
    are left out and counted.

    Returns:
        ``(ratings, counts)``: one list of scores per paper id (file order of first
        appearance), and counts ``{"reviews", "papers", "rated", "not_rated", "non_numeric"}``.

    Raises:
        InputError: no ``id`` or ``aspect`` column.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(p, None, None, f"cannot read: {e}") from e
    rows = list(csv.reader(text.splitlines(), delimiter="\t"))
    if not rows:
        raise InputError(p, None, None, "empty file")
    header = [h.strip() for h in rows[0]]
    for col in ("id", aspect):
        if col not in header:
            raise InputError(p, 1, col, f"no {col!r} column (columns: {', '.join(h for h in header if h)})")
    ci, ca = header.index("id"), header.index(aspect)
    by_paper: dict[str, list[int]] = {}
    counts = {"reviews": 0, "papers": 0, "rated": 0, "not_rated": 0, "non_numeric": 0}
    for row in rows[1:]:
        if len(row) <= max(ci, ca):
            continue
        counts["reviews"] += 1
        scores = by_paper.setdefault(row[ci].strip(), [])
        v = row[ca].strip()
        if v in ("", "-"):
            counts["not_rated"] += 1
        elif v.isdigit():
            scores.append(int(v))
            counts["rated"] += 1
        else:
            counts["non_numeric"] += 1
    counts["papers"] = len(by_paper)
    return list(by_paper.values()), counts


_SPACES = re.compile(r"[\s_\-]+")
_ALIASES = {"llm": "large language model", "vlm": "vision language model", "rl": "reinforcement learning",
            "gnn": "graph neural network"}


def normalize_keyword(keyword: str) -> str:
    """Group key of an author keyword: lower case, hyphens/underscores as spaces, the last word
    singular (a trailing ``s`` dropped unless the word ends in ``ss``/``is``/``us`` or has <= 3
    letters), and a few abbreviations spelled out (``llm`` -> ``large language model``).

    Example: ``"Large Language Models"``, ``"LLMs"`` and ``"large-language model"`` share a group.
    """
    k = _SPACES.sub(" ", keyword.strip().lower()).strip()
    words = k.split(" ")
    last = words[-1]
    if len(last) > 3 and last.endswith("s") and not last.endswith(("ss", "is", "us")):
        words[-1] = last[:-1]
    k = " ".join(words)
    return _ALIASES.get(k, k)


def keyword_groups(keywords: Sequence[Sequence[str]], *, min_size: int = 100) -> dict[str, list[int]]:
    """Papers per normalised keyword, for the keywords at least ``min_size`` papers share.

    Args:
        keywords: Each paper's author keywords.
        min_size: Smallest group kept.

    Returns:
        ``{group: [paper positions]}``, largest group first (ties by name). A paper may be
        in several groups.
    """
    groups: dict[str, list[int]] = {}
    for i, kws in enumerate(keywords):
        for g in dict.fromkeys(normalize_keyword(k) for k in kws if k.strip()):
            groups.setdefault(g, []).append(i)
    kept = {g: v for g, v in groups.items() if len(v) >= min_size}
    return dict(sorted(kept.items(), key=lambda kv: (-len(kv[1]), kv[0])))
