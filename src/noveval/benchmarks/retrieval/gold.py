"""Citation gold for retrieval: the references of a paper that are corpus papers.

For each full-text paper (NeurIPS 2025 in the shared data), its known prior work is the
set of corpus papers that its References section cites, restricted to papers published
before ``before_year``. Nobody here wrote these labels: they come from the authors'
own bibliographies.

Matching rule (:func:`match_references`), applied to each entry of the References
section (:func:`noveval.corpus.parse_references`: from a
``References``/``Bibliography`` heading to the next heading, one list item per entry):

1. normalise the entry and every corpus title: lower-case, every run of characters other
   than ASCII letters and digits becomes one space (:func:`~noveval.corpus.normalize_title`);
2. a corpus title matches the entry when its normalised words occur contiguously in the
   normalised entry, and the normalised title has at least ``min_words`` words (4) and
   more than ``min_chars`` characters (20) — short generic titles ("Attention is all you
   need" passes; "Deep learning" does not) would match by chance;
3. of several matching titles, the longest wins (ties: the lowest row), so "Adam" inside
   "Adam: a method for stochastic optimization" can never win over the full title;
4. one gold paper per corpus row (an entry cited twice counts once); the citing paper's
   own row (same normalised title) is never gold. Duplicate corpus titles: the matched
   row stands for all rows with that normalised title (any of them counts as found).
"""

from __future__ import annotations

import gzip
import json
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import ConfigDict, Field

from noveval.corpus import TitleIndex, normalize_title, parse_references
from noveval.records import Paper

__all__ = ["GoldPaper", "match_references", "citation_gold"]


class GoldPaper(Paper):
    """One query paper and its cited corpus papers.

    A :class:`~noveval.records.Paper` (``id``, ``title``, ``abstract``: the query is
    title + abstract) with its citation gold. Built by :func:`citation_gold` only;
    unknown fields are refused.
    """

    model_config = ConfigDict(extra="forbid")

    gold: list[list[int]] = Field(default_factory=list, description="Sets of equivalent corpus rows (same "
                                  "normalised title), one set per cited paper.")
    n_references: int = Field(default=0, description="Entries parsed from its References section.")


class _Matcher:
    def __init__(self, titles: Sequence[str], min_words: int, min_chars: int) -> None:
        norm = [normalize_title(t) for t in titles]
        ok = [len(t) > min_chars for t in norm]
        # TitleIndex applies the word minimum; titles at or under min_chars are hidden from it.
        self.index = TitleIndex([t if good else "" for t, good in zip(titles, ok)], min_words=min_words)
        self.same: dict[str, list[int]] = defaultdict(list)
        for i, t in enumerate(norm):
            self.same[t].append(i)
        self.norm = norm

    def match(self, entry: str) -> int | None:
        return self.index.match(entry)


def match_references(entries: Sequence[str], titles: Sequence[str], *, min_words: int = 4,
                     min_chars: int = 20, exclude_title: str | None = None) -> list[int]:
    """Corpus rows cited by reference entries (rule in the module docstring), in first-cited order."""
    m = _Matcher(titles, min_words, min_chars)
    me = normalize_title(exclude_title) if exclude_title else None
    out: list[int] = []
    for e in entries:
        j = m.match(e)
        if j is not None and j not in out and m.norm[j] != me:
            out.append(j)
    return out


def citation_gold(fulltext: str | Path, titles: Sequence[str], eligible: Sequence[bool], *,
                  min_words: int = 4, min_chars: int = 20) -> list[GoldPaper]:
    """Gold cited papers of every full-text paper.

    Args:
        fulltext: JSONL(.gz) with ``id, title, abstract, fulltext_markdown``.
        titles: Corpus titles (row = position).
        eligible: Per row, may it be gold (e.g. published before 2025 and in the index).
        min_words, min_chars: The matching rule's minimum title length.

    Returns:
        One :class:`GoldPaper` per full text, in file order (``gold`` may be empty).
    """
    m = _Matcher(titles, min_words, min_chars)
    opener: Any = gzip.open if str(fulltext).endswith(".gz") else open
    out: list[GoldPaper] = []
    with opener(fulltext, "rt", encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            r = json.loads(line)
            entries = parse_references(str(r.get("fulltext_markdown") or ""))

            me = normalize_title(str(r.get("title") or ""))
            gp = GoldPaper(id=str(r.get("id")), title=str(r.get("title") or ""), abstract=str(r.get("abstract") or ""),
                           n_references=len(entries))
            seen: set[str] = set()
            for e in entries:
                j = m.match(e)
                if j is None or m.norm[j] == me or m.norm[j] in seen:
                    continue
                rows = [i for i in m.same[m.norm[j]] if eligible[i]]
                if rows:
                    seen.add(m.norm[j])
                    gp.gold.append(rows)
            out.append(gp)
    return out
