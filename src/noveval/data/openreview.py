"""Converters for the NeurIPS 2023-2025 OpenReview export (djroytburg/10718peerread).

Upstream layout (one JSON file per paper, ``output/neurips_<year>[_full]/reviews/<id>.json``)::

    {"id", "title", "abstract", "authors", "accepted", "keywords", "conference": "NeurIPS 2025",
     "reviews": [{"IS_META_REVIEW": false, "comments": "SUMMARY:\\n...", "TITLE", "DATE",
                  "RECOMMENDATION": 5, "REVIEWER_CONFIDENCE": 4, ...},
                 {"IS_META_REVIEW": true, "comments": "DECISION:\\n...", "RECOMMENDATION": "Accept (poster)", ...}],
     "histories": []}

and, for the 2025 papers, the PDF converted to Markdown (``parsed_pdfs/<id>.pdf.md``).

noveval's layout (``reviews/neurips-<year>.jsonl.gz``, docs/data.md): one record per paper
``{id, venue, year, title, abstract, keywords, accepted, reviews[], meta_review}``; each
review ``{text, sections, scores}`` where ``sections`` splits the comment at its header
lines (``SUMMARY:``, ``STRENGTHS AND WEAKNESSES:`` -> ``summary``,
``strengths_and_weaknesses``) and ``scores`` holds the numeric fields lower-cased; the
meta-review ``{text, sections, recommendation}`` (the decision).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from noveval.data.inputs import Inputs
from noveval.errors import InputError
from noveval.io import iter_jsonl, read_json, write_jsonl
from noveval.progress import track

__all__ = ["FULLTEXT_PAPERS", "YEARS", "convert_fulltext", "convert_reviews", "review_record", "sections"]

YEARS = (2023, 2024, 2025)
"""The NeurIPS years of the export."""

FULLTEXT_PAPERS = 400
"""How many 2025 papers get their full text (the first by id with a References heading)."""

HEADER = re.compile(r"^([A-Z][A-Z0-9 /_]+):[ \t]*$", re.MULTILINE)
"""A section header line of an OpenReview comment: capitals, digits, spaces, ``/`` or ``_``, then ``:``."""

REFERENCES = re.compile(r"^#+\s*References\s*$", re.MULTILINE | re.IGNORECASE)
NOT_SCORES = {"IS_META_REVIEW", "comments", "TITLE", "DATE"}


def sections(text: str) -> dict[str, str]:
    """A comment split at its header lines: ``{"summary": ..., "strengths_and_weaknesses": ...}``.

    A header is a whole line of capitals (digits, spaces, ``/`` and ``_`` allowed) ending in
    ``:``; its key is the header lower-cased with spaces as ``_``; its text runs to the next
    header, stripped. Text before the first header is dropped.
    """
    found = list(HEADER.finditer(text))
    out: dict[str, str] = {}
    for i, m in enumerate(found):
        end = found[i + 1].start() if i + 1 < len(found) else len(text)
        out[m.group(1).strip().lower().replace(" ", "_")] = text[m.end():end].strip()
    return out


def _review(raw: dict[str, Any]) -> dict[str, Any]:
    text = str(raw.get("comments") or "")
    scores = {k.lower(): v for k, v in raw.items() if k not in NOT_SCORES}
    return {"text": text, "sections": sections(text), "scores": scores}


def _meta(raw: dict[str, Any]) -> dict[str, Any]:
    text = str(raw.get("comments") or "")
    out: dict[str, Any] = {"text": text, "sections": sections(text)}
    if "RECOMMENDATION" in raw:
        out["recommendation"] = raw["RECOMMENDATION"]
    return out


def review_record(raw: Any, year: int, path: Path | str) -> dict[str, Any] | None:
    """One paper of the export in noveval's layout (None: another year's paper, or no review).

    Raises:
        InputError: the file is not a paper record (names the file and field).
    """
    if not isinstance(raw, dict) or not isinstance(raw.get("reviews"), list) or not raw.get("id"):
        raise InputError(path, None, "reviews" if isinstance(raw, dict) and raw.get("id") else "id",
                         "expected a paper record of the OpenReview export (id, title, abstract, reviews[])")
    if raw.get("conference") and raw["conference"] != f"NeurIPS {year}":
        return None
    reviews = [r for r in raw["reviews"] if isinstance(r, dict) and not r.get("IS_META_REVIEW")]
    metas = [r for r in raw["reviews"] if isinstance(r, dict) and r.get("IS_META_REVIEW")]
    if not reviews:
        return None
    return {"id": str(raw["id"]), "venue": "NeurIPS", "year": year, "title": raw.get("title"),
            "abstract": raw.get("abstract"), "keywords": raw.get("keywords") or [], "accepted": raw.get("accepted"),
            "reviews": [_review(r) for r in reviews], "meta_review": _meta(metas[-1]) if metas else None}


def convert_reviews(inputs: Inputs, out: Path) -> None:
    """``reviews/neurips-<year>.jsonl.gz`` for 2023-2025 from the export's per-paper files (sorted by id)."""
    for year in YEARS:
        folder = inputs.folder(f"reviews-{year}")
        names = folder.names()
        if not names:
            raise InputError(None, None, f"reviews-{year}", "the export folder holds no paper files")
        rows = []
        with track(len(names), f"NeurIPS {year} reviews") as t:
            for _, path in folder.paths(names):
                rec = review_record(read_json(path), year, path)
                if rec is not None:
                    rows.append(rec)
                t.advance()
        write_jsonl(out / "reviews" / f"neurips-{year}.jsonl.gz", rows)


def convert_fulltext(inputs: Inputs, out: Path) -> None:
    """``fulltext/neurips-2025-fulltext.jsonl.gz``: the 2025 review records of the first
    :data:`FULLTEXT_PAPERS` papers (by id) whose Markdown full text has a References heading,
    each with ``fulltext_markdown``."""
    papers = {str(r["id"]): r for _, r in iter_jsonl(inputs.data("reviews/neurips-2025.jsonl.gz"))}
    folder = inputs.folder("parsed-2025")
    suffix = ".pdf.md"
    names = [n for n in folder.names() if n.endswith(suffix) and n[: -len(suffix)] in papers]
    rows: list[dict[str, Any]] = []
    with track(FULLTEXT_PAPERS, "NeurIPS 2025 full texts") as t:
        for start in range(0, len(names), 32):
            for name, path in folder.paths(names[start:start + 32]):
                text = path.read_text(encoding="utf-8")
                if len(rows) < FULLTEXT_PAPERS and REFERENCES.search(text):
                    rows.append({**papers[name[: -len(suffix)]], "fulltext_markdown": text})
                    t.advance()
            if len(rows) >= FULLTEXT_PAPERS:
                break
    if not rows:
        raise InputError(None, None, "parsed-2025", "no paper has both a review record and a Markdown full text")
    write_jsonl(out / "fulltext" / "neurips-2025-fulltext.jsonl.gz", rows)
