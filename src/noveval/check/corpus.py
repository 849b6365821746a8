"""Load a corpus of prior work (JSONL / JSONL.gz of ``{id?, title, abstract, year}``) and embed it.

Papers without an abstract are skipped and counted; a corpus where no paper has one
is an error. ``before_year`` keeps papers published strictly before that year (papers
without a year are then dropped), ``fields`` keeps papers of the named ``field`` values,
and ``max_papers`` draws a seeded random sample (kept in file order) for speed.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from noveval.errors import InputError

__all__ = ["Corpus", "load_corpus", "embed_corpus"]


@dataclass
class Corpus:
    """Papers kept from a corpus file, with what was left out and why.

    Attributes:
        path: The corpus file.
        papers: Kept papers: dicts with ``id, title, abstract, year`` (year may be None).
        n_read: Rows read.
        skipped_no_abstract: Rows without an abstract.
        dropped_by_year: Rows removed by ``before_year`` (or lacking a year under it).
        dropped_by_field: Rows removed by ``fields``.
        sampled_from: Size before ``max_papers`` sampling (None: not sampled).
        filters: The filters applied.
    """

    path: str
    papers: list[dict[str, Any]]
    n_read: int = 0
    skipped_no_abstract: int = 0
    dropped_by_year: int = 0
    dropped_by_field: int = 0
    sampled_from: int | None = None
    filters: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.papers)

    def years(self) -> list[int]:
        """Known publication years of the kept papers."""
        return [p["year"] for p in self.papers if p["year"] is not None]

    def summary(self) -> dict[str, Any]:
        """JSON-ready description (no papers)."""
        ys = self.years()
        return {
            "path": self.path, "papers": len(self.papers), "read": self.n_read,
            "skipped_no_abstract": self.skipped_no_abstract, "dropped_by_year": self.dropped_by_year,
            "dropped_by_field": self.dropped_by_field, "sampled_from": self.sampled_from,
            "year_min": min(ys) if ys else None, "year_max": max(ys) if ys else None, "filters": self.filters,
        }


def _year(v: Any, path: str | Path | None = None, line: int | None = None) -> int | None:
    """The record's year (None when absent); a value that is not a year is an InputError."""
    from noveval.io import parse_year

    return parse_year(v, path=path, line=line)


def load_corpus(
    path: str | Path,
    *,
    before_year: int | None = None,
    fields: Sequence[str] | None = None,
    max_papers: int | None = None,
    seed: int = 0,
) -> Corpus:
    """Read and filter a corpus file.

    Raises:
        InputError: unreadable file, a row that is not an object or lacks a title, a
            non-string abstract, no paper with an abstract, or nothing left after filters.
    """
    from noveval.io import iter_jsonl

    p = Path(path)
    want = {f.lower() for f in fields} if fields else None
    c = Corpus(str(p), [], filters={"before_year": before_year, "fields": list(fields or []) or None,
                                    "max_papers": max_papers, "seed": seed})
    first_no_abstract: int | None = None
    for line, row in iter_jsonl(p):
        c.n_read += 1
        if not isinstance(row, dict):
            raise InputError(p, line, None, "each corpus line must be a JSON object with title, abstract, year")
        title = row.get("title")
        if not isinstance(title, str) or not title.strip():
            raise InputError(p, line, "title", "each corpus paper needs a non-empty title")
        abstract = row.get("abstract")
        if abstract is not None and not isinstance(abstract, str):
            raise InputError(p, line, "abstract", "must be a string")
        if not (abstract or "").strip():
            c.skipped_no_abstract += 1
            first_no_abstract = first_no_abstract or line
            continue
        year = _year(row.get("year"), p, line)
        if before_year is not None and (year is None or year >= before_year):
            c.dropped_by_year += 1
            continue
        if want is not None and str(row.get("field") or "").lower() not in want:
            c.dropped_by_field += 1
            continue
        c.papers.append({"id": str(row.get("id") or f"line{line}"), "title": title.strip(),
                         "abstract": abstract.strip(), "year": year})  # type: ignore[union-attr]
    if c.n_read == 0:
        raise InputError(p, None, None, "the corpus is empty")
    if c.n_read == c.skipped_no_abstract:
        raise InputError(p, first_no_abstract, "abstract",
                         f"no corpus paper has an abstract ({c.n_read} read); novelty is judged on title + abstract")
    if not c.papers:
        raise InputError(p, None, "year" if before_year else "field",
                         f"no paper left after the filters ({c.filters})")
    if max_papers is not None and len(c.papers) > max_papers:
        c.sampled_from = len(c.papers)
        keep = sorted(random.Random(seed).sample(range(len(c.papers)), max_papers))
        c.papers = [c.papers[i] for i in keep]
    return c


def embed_corpus(corpus: Corpus, embedder: Any, *, batch_size: int = 64) -> np.ndarray:
    """Embeddings (n, d) of title + abstract for every kept paper (cached on disk by the embedder)."""
    from noveval.benchmarks.axioms.pools import paper_text

    texts = [paper_text(p["title"], p["abstract"]) for p in corpus.papers]
    return np.asarray(embedder.encode(texts, batch_size=batch_size, progress="check: embedding corpus"), dtype=np.float32)
