"""Corpora of papers: one reader, one text rule, one title matcher for every system.

A corpus file is JSONL (``.gz`` transparently) with one paper per line:
``{"id"?, "title", "abstract"?, "year"?, "field"?, ...}``. :func:`iter_papers` validates
each line (errors name file, line and field); :func:`load_corpus` keeps the papers that
have an abstract, applies the filters and returns a column view (:class:`Corpus`) that the
axiomatic benchmark, the validity study, CLAIMCHECK's related works, ``noveval check``
and the corpus index all read. :func:`paper_text` is the one rule that turns a paper into
the text that is embedded or BM25-indexed. Reference lists of full texts are parsed by
:func:`parse_references` and matched to corpus titles by :class:`TitleIndex`. The checks
every paper reader shares live here too: :func:`check_title_abstract` (a non-empty title, a
string abstract) and :func:`parse_year` (a publication year, or an input error).

Pure: no model, no cache; numpy only.
"""

from __future__ import annotations

import json
import random
import re
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from noveval.errors import InputError
from noveval.io import iter_jsonl

__all__ = [
    "Corpus",
    "TitleIndex",
    "check_title_abstract",
    "iter_papers",
    "load_corpus",
    "match_reference_to_title",
    "normalize_title",
    "paper_text",
    "parse_references",
    "parse_year",
]


def check_title_abstract(path: str | Path, line: int | None, row: dict[str, Any], *,
                         what: str = "paper") -> tuple[str, str | None]:
    """The ``title`` (a non-empty string) and ``abstract`` (a string or absent) of a raw record.

    Raises:
        InputError: a missing or empty title, or an abstract that is not a string (named by line and field).
    """
    title = row.get("title")
    if not isinstance(title, str) or not title.strip():
        raise InputError(path, line, "title", f"each {what} needs a non-empty title")
    abstract = row.get("abstract")
    if abstract is not None and not isinstance(abstract, str):
        raise InputError(path, line, "abstract", "must be a string")
    return title, abstract


_YEAR = re.compile(r"\s*(\d{4})(?:[-/.]\d{1,2}(?:[-/.]\d{1,2})?)?(?:[T ].*)?\s*")


def parse_year(value: Any, *, path: str | Path | None = None, line: int | None = None, field: str = "year") -> int | None:
    """Read a publication year from a record; a value that cannot be a year is an input error.

    Accepted: an integer 1000-2999, the same as an integral float or a string, or a date
    string that starts with the year (``"2021-05-03"``). ``None`` and ``""`` mean unknown.

    Args:
        value: The field's value.
        path: The file (for the error message).
        line: 1-based line of the record.
        field: The field's name.

    Returns:
        The year, or None when it is not given.

    Raises:
        InputError: ``"n.d."``, ``"twenty"``, ``21``, ``20210``, ``true``, a list, ...
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    year: int | None = None
    if isinstance(value, bool):
        year = None
    elif isinstance(value, int):
        year = value
    elif isinstance(value, float) and value.is_integer():
        year = int(value)
    elif isinstance(value, str):
        m = _YEAR.fullmatch(value)
        year = int(m.group(1)) if m else None
    if year is None or not 1000 <= year <= 2999:
        shown = json.dumps(value, ensure_ascii=False, default=str)
        raise InputError(path, line, field, f"{shown} is not a year (expected e.g. 2021, \"2021\" or \"2021-05-03\"; "
                                            "leave it out or null when unknown)")
    return year


def paper_text(title: str, abstract: str) -> str:
    """Title and abstract joined as one text (the axiomatic paper, §4: concatenated, not separate).

    Every embedding and BM25 text of a paper in noveval is made here, so vectors cached by
    one system are reused by the others.
    """
    return f"{title.strip()}\n\n{abstract.strip()}"


def iter_papers(path: str | Path) -> Iterator[dict[str, Any]]:
    """Validated papers of a corpus-format JSONL(.gz) file, every line kept, in file order.

    Yields:
        ``{"id", "title", "abstract", "year", "field", "line"}``: ``id`` defaults to
        ``<file name>:<line>``, ``abstract`` and ``field`` to ``""``, ``year`` is None when
        absent; ``line`` is the 1-based line number.

    Raises:
        InputError: a missing file, a line that is not a JSON object, a missing or empty
            title, a non-string abstract or field, a year that is not a year.
    """
    from noveval.hfdata import is_hf_source

    p = Path(path)
    if not is_hf_source(path) and not p.is_file():
        raise InputError(p, None, None, "file not found")
    for line, row in iter_jsonl(path):
        if not isinstance(row, dict):
            raise InputError(p, line, None, "each corpus line must be a JSON object with title, abstract, year")
        title, abstract = check_title_abstract(p, line, row, what="corpus paper")
        fld = row.get("field")
        if fld is not None and not isinstance(fld, str):
            raise InputError(p, line, "field", "must be a string")
        rid = row.get("id")
        yield {"id": str(rid) if rid not in (None, "") else f"{p.name}:{line}", "title": title.strip(),
               "abstract": (abstract or "").strip(), "year": parse_year(row.get("year"), path=p, line=line),
               "field": (fld or "").strip(), "line": line}


@dataclass
class Corpus:
    """Column view of the papers kept from a corpus file, with what was left out and why.

    Attributes:
        ids, titles, abstracts, fields: One entry per kept paper (``field`` "" = unknown).
        years: Publication years (int64; 0 = unknown).
        path: The corpus file ("" for a corpus built in memory).
        n_read: Rows read.
        skipped_no_abstract: Rows without an abstract (never kept: novelty is judged on
            title and abstract).
        dropped_by_year: Rows removed by ``before_year`` (or lacking a year under it).
        dropped_by_field: Rows removed by ``fields``.
        sampled_from: Size before ``max_papers`` sampling (None: not sampled).
        filters: The filters applied.
    """

    ids: list[str]
    titles: list[str]
    abstracts: list[str]
    years: np.ndarray
    fields: list[str]
    path: str = ""
    n_read: int = 0
    skipped_no_abstract: int = 0
    dropped_by_year: int = 0
    dropped_by_field: int = 0
    sampled_from: int | None = None
    filters: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.ids)

    def text(self, i: int) -> str:
        """Embedding text of paper ``i`` (:func:`paper_text`)."""
        return paper_text(self.titles[i], self.abstracts[i])

    def texts(self) -> list[str]:
        """Embedding texts of every paper, in order."""
        return [self.text(i) for i in range(len(self))]

    def paper(self, i: int) -> dict[str, Any]:
        """Paper ``i`` as a dict: ``id, title, abstract, year`` (None when unknown), ``field``."""
        y = int(self.years[i])
        return {"id": self.ids[i], "title": self.titles[i], "abstract": self.abstracts[i],
                "year": y or None, "field": self.fields[i]}

    @property
    def papers(self) -> list[dict[str, Any]]:
        """Every paper as a dict (:meth:`paper`)."""
        return [self.paper(i) for i in range(len(self))]

    def known_years(self) -> list[int]:
        """Known publication years of the kept papers."""
        return [int(y) for y in self.years if y]

    def summary(self) -> dict[str, Any]:
        """JSON-ready description (no papers)."""
        ys = self.known_years()
        return {
            "path": self.path, "papers": len(self), "read": self.n_read,
            "skipped_no_abstract": self.skipped_no_abstract, "dropped_by_year": self.dropped_by_year,
            "dropped_by_field": self.dropped_by_field, "sampled_from": self.sampled_from,
            "year_min": min(ys) if ys else None, "year_max": max(ys) if ys else None, "filters": self.filters,
        }


def load_corpus(
    path: str | Path,
    *,
    before_year: int | None = None,
    fields: Sequence[str] | None = None,
    max_papers: int | None = None,
    seed: int = 0,
) -> Corpus:
    """Read a corpus file (:func:`iter_papers`), keep papers with an abstract, filter, sample.

    Args:
        path: JSONL(.gz) of papers.
        before_year: Keep papers published strictly before this year (papers without a
            year are then dropped).
        fields: Keep papers whose ``field`` is one of these (case-insensitive).
        max_papers: Keep a seeded random sample of at most this many (in file order).
        seed: Seed of that sample.

    Returns:
        The :class:`Corpus`.

    Raises:
        InputError: a bad line (see :func:`iter_papers`), an empty file, no paper with an
            abstract, or nothing left after the filters.
    """
    p = Path(path)
    want = {f.lower() for f in fields} if fields else None
    kept: list[dict[str, Any]] = []
    n_read = no_abstract = by_year = by_field = 0
    first_no_abstract: int | None = None
    for paper in iter_papers(p):
        n_read += 1
        if not paper["abstract"]:
            no_abstract += 1
            first_no_abstract = first_no_abstract or paper["line"]
            continue
        if before_year is not None and (paper["year"] is None or paper["year"] >= before_year):
            by_year += 1
            continue
        if want is not None and paper["field"].lower() not in want:
            by_field += 1
            continue
        kept.append(paper)
    filters = {"before_year": before_year, "fields": list(fields or []) or None, "max_papers": max_papers, "seed": seed}
    if n_read == 0:
        raise InputError(p, None, None, "the corpus is empty")
    if n_read == no_abstract:
        raise InputError(p, first_no_abstract, "abstract",
                         f"no corpus paper has an abstract ({n_read} read); novelty is judged on title + abstract")
    if not kept:
        raise InputError(p, None, "year" if before_year else "field", f"no paper left after the filters ({filters})")
    sampled_from = None
    if max_papers is not None and len(kept) > max_papers:
        sampled_from = len(kept)
        keep = sorted(random.Random(seed).sample(range(len(kept)), max_papers))
        kept = [kept[i] for i in keep]
    return Corpus(
        ids=[x["id"] for x in kept], titles=[x["title"] for x in kept], abstracts=[x["abstract"] for x in kept],
        years=np.array([x["year"] or 0 for x in kept], dtype=np.int64), fields=[x["field"] for x in kept],
        path=str(p), n_read=n_read, skipped_no_abstract=no_abstract, dropped_by_year=by_year,
        dropped_by_field=by_field, sampled_from=sampled_from, filters=filters,
    )


# ---------------------------------------------------------------- titles and references

_NON_ALNUM = re.compile(r"[^0-9a-z]+")


def normalize_title(text: str) -> str:
    """Lower-case, ASCII letters/digits only, single spaces (hyphens and quotes become spaces)."""
    return _NON_ALNUM.sub(" ", text.lower()).strip()


class TitleIndex:
    """Exact normalised-title containment matcher for reference strings.

    A corpus title matches a reference when its normalised word sequence occurs
    contiguously in the normalised reference. Titles shorter than ``min_words`` words
    are not indexed (generic short titles would match by chance). When several titles
    match, the longest wins (ties: the lowest index).
    """

    def __init__(self, titles: Sequence[str], *, min_words: int = 4) -> None:
        self.min_words = min_words
        self._words: list[tuple[str, ...]] = []
        self._by_prefix: dict[tuple[str, ...], list[int]] = defaultdict(list)
        for i, t in enumerate(titles):
            w = tuple(normalize_title(t).split())
            self._words.append(w)
            if len(w) >= min_words:
                self._by_prefix[w[:min_words]].append(i)

    def match(self, reference: str) -> int | None:
        """Index of the corpus title contained in ``reference``, or None."""
        ref = normalize_title(reference).split()
        best: tuple[int, int] | None = None
        m = self.min_words
        for s in range(len(ref) - m + 1):
            for i in self._by_prefix.get(tuple(ref[s:s + m]), ()):
                w = self._words[i]
                if tuple(ref[s:s + len(w)]) == w and (best is None or (len(w), -i) > (best[0], -best[1])):
                    best = (len(w), i)
        return None if best is None else best[1]


def match_reference_to_title(reference: str, titles: Sequence[str], *, min_words: int = 4) -> int | None:
    """Match one reference string to a list of titles (see :class:`TitleIndex`)."""
    return TitleIndex(titles, min_words=min_words).match(reference)


_REF_HEAD = re.compile(r"^#+\s*(references|bibliography)\s*$", re.I | re.M)
_HEAD = re.compile(r"^#+\s", re.M)
_ITEM = re.compile(r"^\s*(?:[-*]\s+|\[\d+\]\s*|\d+\.\s+)", re.M)


def parse_references(markdown: str) -> list[str]:
    """Reference entries of a paper's Markdown full text (first References section).

    The section runs from a ``References``/``Bibliography`` heading to the next heading;
    entries are list items (``- [1] ...``, ``[1] ...``, ``1. ...``) or, failing that,
    non-empty lines.
    """
    m = _REF_HEAD.search(markdown)
    if not m:
        return []
    rest = markdown[m.end():]
    nxt = _HEAD.search(rest)
    body = rest[: nxt.start()] if nxt else rest
    starts = [x.start() for x in _ITEM.finditer(body)]
    if not starts:
        return [ln.strip() for ln in body.splitlines() if ln.strip()]
    starts.append(len(body))
    return [" ".join(body[a:b].split()) for a, b in zip(starts, starts[1:], strict=False)
            if body[a:b].strip()]
