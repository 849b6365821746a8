"""The paper corpus (``corpus/papers.jsonl.gz``) from conference lists and the NeurIPS export.

Upstream: papercopilot/paperlists, one JSON list per conference and year
(``iclr/iclr2018.json``), each paper ``{id (or pid), title, abstract, status, keywords
("a;b" or "a, b"), primary_area | session, gs_citation, rating, ...}``; and the NeurIPS
2023-2025 records of the OpenReview export (the ``neurips-reviews`` dataset, already
converted).

Rules (docs/data.md): files in path order, papers in file order, then NeurIPS 2023, 2024,
2025 by id; a paper needs a title and an abstract of at least :data:`MIN_ABSTRACT`
characters, and a title already taken (ignoring case, spaces and punctuation) drops it. Record:
``{id: "<file stem>:<paper id>" | "openreview:<id>", title, abstract, year, venue, field,
tags, keywords, status, gs_citation, rating, source}``; ``field`` from :data:`FIELDS`
(by venue), ``tags`` the primary area or session, ``keywords`` split at ``;`` and ``,``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from noveval.data.inputs import Inputs
from noveval.data.openreview import YEARS
from noveval.errors import InputError
from noveval.io import iter_jsonl, read_json, write_jsonl
from noveval.progress import track

__all__ = ["FIELDS", "MIN_ABSTRACT", "convert_corpus", "list_records", "neurips_records"]

MIN_ABSTRACT = 50
"""Papers whose abstract is shorter (in characters) are left out (prefaces, stubs)."""

FIELDS = {
    "NIPS": "ML", "NEURIPS": "ML", "ICML": "ML", "ICLR": "ML", "AISTATS": "ML", "UAI": "ML", "COLT": "ML",
    "ACML": "ML", "ALT": "ML", "AUTOML": "ML",
    "ACL": "NLP", "EMNLP": "NLP", "NAACL": "NLP", "COLING": "NLP", "COLM": "NLP",
    "CVPR": "CV", "ICCV": "CV", "ECCV": "CV", "WACV": "CV", "3DV": "CV",
    "AAAI": "AI", "IJCAI": "AI",
    "ICRA": "Robotics", "IROS": "Robotics", "RSS": "Robotics", "CORL": "Robotics",
    "WWW": "WebDM", "KDD": "WebDM", "SIGGRAPH": "Graphics", "SIGGRAPHASIA": "Graphics", "ACMMM": "MM",
}
"""Research field by venue (anything else: ``other``)."""

STEM = re.compile(r"^([a-z0-9]+?)(\d{4})$")


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _keywords(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(k).strip() for k in value if str(k).strip()]
    return [k.strip() for k in re.split(r"[;,]", str(value or "")) if k.strip()]


def list_records(path: Path, rel: str) -> Iterator[dict[str, Any]]:
    """The papers of one paperlists file (``rel`` = its repository path, e.g. ``iclr/iclr2018.json``).

    Raises:
        InputError: the file is not a JSON list of papers, or its name has no venue and year.
    """
    stem = Path(rel).stem
    m = STEM.match(stem)
    rows = read_json(path)
    if m is None or not isinstance(rows, list):
        raise InputError(path, None, None, "expected a paperlists file <venue><year>.json holding a JSON list of papers")
    venue, year = m.group(1).upper(), int(m.group(2))
    for i, rec in enumerate(rows):
        if not isinstance(rec, dict):
            raise InputError(path, None, f"[{i}]", "expected a paper object")
        tag = rec.get("primary_area") or rec.get("session") or ""
        yield {"id": f"{stem}:{rec.get('id') or rec.get('pid')}", "title": str(rec.get("title") or "").strip(),
               "abstract": str(rec.get("abstract") or "").strip(), "year": year, "venue": venue,
               "field": FIELDS.get(venue, "other"), "tags": [str(tag)] if tag else [],
               "keywords": _keywords(rec.get("keywords")), "status": rec.get("status"),
               "gs_citation": _int(rec.get("gs_citation")), "rating": rec.get("rating"),
               "source": "papercopilot/paperlists"}


def neurips_records(path: Path, year: int) -> Iterator[dict[str, Any]]:
    """The NeurIPS papers of one converted ``reviews/neurips-<year>.jsonl.gz``, by id."""
    rows = sorted((r for _, r in iter_jsonl(path)), key=lambda r: str(r.get("id")))
    for r in rows:
        yield {"id": f"openreview:{r['id']}", "title": r.get("title") or "", "abstract": r.get("abstract") or "",
               "year": year, "venue": "NEURIPS", "field": "ML", "tags": [], "keywords": list(r.get("keywords") or []),
               "status": "accepted" if r.get("accepted") else "rejected",
               "gs_citation": None, "rating": None, "source": "djroytburg/10718peerread"}


def _keep(rec: dict[str, Any], titles: set[str]) -> bool:
    title = re.sub(r"[\W_]+", "", str(rec["title"]).lower())
    if not title or len(str(rec["abstract"]).strip()) < MIN_ABSTRACT or title in titles:
        return False
    titles.add(title)
    return True


def convert_corpus(inputs: Inputs, out: Path) -> None:
    """``corpus/papers.jsonl.gz`` from every declared paperlists file and the NeurIPS reviews."""
    keys = [s.key for s in inputs.dataset.sources]
    titles: set[str] = set()
    rows: list[dict[str, Any]] = []
    with track(len(keys), "corpus: conference lists") as t:
        for key, path in inputs.files(keys):
            rows += [r for r in list_records(path, key) if _keep(r, titles)]
            t.advance()
    for year in YEARS:
        rows += [r for r in neurips_records(inputs.data(f"reviews/neurips-{year}.jsonl.gz"), year) if _keep(r, titles)]
    write_jsonl(out / "corpus" / "papers.jsonl.gz", rows)
