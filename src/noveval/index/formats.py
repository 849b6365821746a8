"""Read papers from public metadata dumps for ``noveval index add``, and the keys that deduplicate them.

Formats (JSON lines, ``.gz`` read transparently; detected from the first record, or named):

* ``arxiv`` — the arXiv metadata snapshot (Kaggle ``arxiv-metadata-oai-snapshot.json``):
  ``id``, ``title``, ``abstract``, ``categories``, ``doi``, ``versions[{version, created}]``,
  ``update_date``. Year: the first version's date (else ``update_date``). Field: the first
  category mapped to the corpus's fields (:data:`ARXIV_FIELDS`; "other" otherwise).
* ``openalex`` — OpenAlex works (snapshot ``works`` or API results): ``id``, ``doi``,
  ``title``/``display_name``, ``publication_year``, ``abstract_inverted_index``
  (``{word: [positions]}``, turned back into text), arXiv id from an arxiv.org location or
  an arXiv DOI. Field: the primary topic's subfield when it is one of
  :data:`OPENALEX_FIELDS`, else unknown.
* ``s2`` — Semantic Scholar Datasets: ``papers`` records (``corpusid``, ``title``,
  ``year``, ``externalids{DOI, ArXiv}``) joined on ``corpusid`` with ``abstracts``
  records (``corpusid``, ``abstract``); give both files. Field unknown.
* ``noveval`` — the corpus format ``{id?, title, abstract, year?, field?}``
  (:func:`noveval.corpus.iter_papers`).

Every reader yields ``{id, title, abstract, year, field, doi?, arxiv?}`` (year 0 =
unknown). Papers without an abstract are counted, not kept. A record that is not an
object, lacks a title or has a year that is not a year is an :class:`InputError` naming
the file, line and field.

Deduplication keys (:func:`dedup_keys`): the DOI (lower case, without a resolver
prefix), the arXiv id (without ``arXiv:`` and version suffix; arXiv DOIs
``10.48550/arXiv.X`` count as arXiv id X) and the normalised title
(:func:`noveval.corpus.normalize_title`) when it has at least 3 words (a shorter title
counts only together with the same id). Two papers sharing any key are the same paper.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from noveval.corpus import iter_papers, normalize_title, parse_year
from noveval.errors import InputError
from noveval.io import iter_jsonl

__all__ = ["FORMATS", "ARXIV_FIELDS", "OPENALEX_FIELDS", "detect_format", "read_papers", "dedup_keys"]

FORMATS = ("auto", "noveval", "arxiv", "openalex", "s2")

ARXIV_FIELDS: dict[str, str] = {
    "cs.LG": "ML", "stat.ML": "ML", "cs.NE": "ML", "cs.CV": "CV", "eess.IV": "CV", "cs.CL": "NLP", "cs.RO": "Robotics",
    "cs.AI": "AI", "cs.MA": "AI", "cs.IR": "WebDM", "cs.SI": "WebDM", "cs.DB": "WebDM", "cs.GR": "Graphics",
    "cs.MM": "MM",
}
"""arXiv primary category -> the shared corpus's ``field`` (others: "other")."""

OPENALEX_FIELDS: dict[str, str] = {
    "Computer Vision and Pattern Recognition": "CV", "Artificial Intelligence": "AI",
    "Information Systems": "WebDM",
}
"""OpenAlex primary-topic subfield -> ``field`` (others: unknown)."""

_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(.+)$", re.I)
_ARXIV_URL = re.compile(r"arxiv\.org/(?:abs|pdf)/([^\s?#]+?)(?:\.pdf)?(?:[?#].*)?$", re.I)
_VERSION = re.compile(r"v\d+$")
_SPACES = re.compile(r"\s+")


def _clean(text: Any) -> str:
    return _SPACES.sub(" ", text).strip() if isinstance(text, str) else ""


def norm_doi(doi: Any) -> str:
    """``10.x/y`` in lower case from a DOI or DOI URL ("" when none)."""
    if not isinstance(doi, str) or not doi.strip():
        return ""
    d = doi.strip().lower()
    for prefix in ("https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/", "doi:"):
        if d.startswith(prefix):
            d = d[len(prefix):]
    return d


def norm_arxiv(aid: Any) -> str:
    """An arXiv id without ``arXiv:`` prefix and version suffix, lower case ("" when none)."""
    if not isinstance(aid, str) or not aid.strip():
        return ""
    a = aid.strip().lower()
    if a.startswith("arxiv:"):
        a = a[6:]
    return _VERSION.sub("", a)


def dedup_keys(paper: dict[str, Any]) -> list[str]:
    """The keys under which ``paper`` is the same as another (see the module docstring)."""
    keys = []
    doi = norm_doi(paper.get("doi"))
    arxiv = norm_arxiv(paper.get("arxiv"))
    m = _ARXIV_DOI.match(doi)
    if m:
        arxiv = arxiv or norm_arxiv(m.group(1))
        doi = ""
    if doi:
        keys.append("doi:" + doi)
    if arxiv:
        keys.append("arxiv:" + arxiv)
    title = normalize_title(str(paper.get("title") or ""))
    if len(title.split()) >= 3:
        keys.append("title:" + title)
    elif title and paper.get("id"):
        keys.append(f"id+title:{paper['id']}|{title}")
    return keys


def _row_year(path: Path, line: int, value: Any, fieldname: str) -> int:
    return parse_year(value, path=path, line=line, field=fieldname) or 0


def _date_year(path: Path, line: int, text: Any, fieldname: str) -> int:
    """Year of an arXiv date ('Mon, 2 Apr 2007 19:18:42 GMT' or '2008-11-13')."""
    if not isinstance(text, str) or not text.strip():
        return 0
    m = re.search(r"\b(1[89]\d\d|20\d\d)\b", text)
    if not m:
        raise InputError(path, line, fieldname, f"no year in {text[:40]!r}")
    return int(m.group(1))


def _need_title(path: Path, line: int, row: dict[str, Any], *keys: str) -> str:
    for k in keys:
        t = _clean(row.get(k))
        if t:
            return t
    raise InputError(path, line, keys[0], "missing or empty title")


def _from_arxiv(path: Path, line: int, row: dict[str, Any]) -> dict[str, Any]:
    aid = norm_arxiv(row.get("id"))
    if not aid:
        raise InputError(path, line, "id", "an arXiv record needs its id")
    versions = row.get("versions")
    v0 = versions[0] if isinstance(versions, list) and versions else None
    first = v0.get("created") if isinstance(v0, dict) else None
    year = _date_year(path, line, first, "versions") or _date_year(path, line, row.get("update_date"), "update_date")
    cats = str(row.get("categories") or "").split()
    return {"id": f"arxiv:{aid}", "title": _need_title(path, line, row, "title"), "abstract": _clean(row.get("abstract")),
            "year": year, "field": ARXIV_FIELDS.get(cats[0], "other") if cats else "", "doi": norm_doi(row.get("doi")),
            "arxiv": aid}


def inverted_to_text(inv: Any) -> str:
    """Text from OpenAlex's ``abstract_inverted_index`` (``{word: [positions]}``)."""
    if not isinstance(inv, dict):
        return ""
    pos: dict[int, str] = {}
    for word, where in inv.items():
        for p in where or []:
            if isinstance(p, int):
                pos[p] = str(word)
    return " ".join(pos[i] for i in sorted(pos))


def _openalex_arxiv(row: dict[str, Any]) -> str:
    for loc in [row.get("primary_location"), *(row.get("locations") or [])]:
        if isinstance(loc, dict):
            for key in ("landing_page_url", "pdf_url"):
                m = _ARXIV_URL.search(str(loc.get(key) or ""))
                if m:
                    return norm_arxiv(m.group(1))
    return ""


def _from_openalex(path: Path, line: int, row: dict[str, Any]) -> dict[str, Any]:
    oid = str(row.get("id") or "").rsplit("/", 1)[-1]
    if not oid:
        raise InputError(path, line, "id", "an OpenAlex work needs its id")
    topic = row.get("primary_topic")
    subfield = topic.get("subfield") if isinstance(topic, dict) else None
    sub = subfield.get("display_name") if isinstance(subfield, dict) else None
    return {"id": f"openalex:{oid}", "title": _need_title(path, line, row, "title", "display_name"),
            "abstract": _clean(inverted_to_text(row.get("abstract_inverted_index"))),
            "year": _row_year(path, line, row.get("publication_year"), "publication_year"),
            "field": OPENALEX_FIELDS.get(str(sub), ""), "doi": norm_doi(row.get("doi")), "arxiv": _openalex_arxiv(row)}


def _from_s2(path: Path, line: int, row: dict[str, Any], abstracts: dict[int, str]) -> dict[str, Any]:
    cid = row.get("corpusid")
    if not isinstance(cid, int):
        raise InputError(path, line, "corpusid", "must be an integer")
    ext_raw = row.get("externalids")
    ext: dict[str, Any] = ext_raw if isinstance(ext_raw, dict) else {}
    return {"id": f"s2:{cid}", "title": _need_title(path, line, row, "title"), "abstract": _clean(abstracts.get(cid)),
            "year": _row_year(path, line, row.get("year"), "year"), "field": "", "doi": norm_doi(ext.get("DOI")),
            "arxiv": norm_arxiv(ext.get("ArXiv"))}


def _records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    if not path.is_file():
        raise InputError(path, None, None, "file not found")
    for line, row in iter_jsonl(path):
        if not isinstance(row, dict):
            raise InputError(path, line, None, "each line must be a JSON object (one paper)")
        yield line, row


def detect_format(path: str | Path) -> str:
    """``arxiv``, ``openalex``, ``s2-papers``, ``s2-abstracts`` or ``noveval`` from the first record."""
    p = Path(path)
    for _line, row in _records(p):
        if "abstract_inverted_index" in row or str(row.get("id") or "").startswith("https://openalex.org/"):
            return "openalex"
        if "corpusid" in row:
            return "s2-papers" if "title" in row else "s2-abstracts"
        if "categories" in row and ("versions" in row or "update_date" in row):
            return "arxiv"
        return "noveval"
    raise InputError(p, 1, None, "the file has no record")


def read_papers(paths: Sequence[str | Path], fmt: str = "auto") -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Papers of one or more files (S2: the ``papers`` and ``abstracts`` files together).

    Args:
        paths: JSONL(.gz) files.
        fmt: One of :data:`FORMATS` (``auto``: detected per file).

    Returns:
        ``(papers with an abstract, counts)``; counts has ``read``, ``skipped_no_abstract``
        and ``formats`` (file -> format).

    Raises:
        InputError: unknown format, a bad record, S2 papers without an abstracts file.
    """
    if fmt not in FORMATS:
        raise InputError(None, None, "--format", f"must be one of {', '.join(FORMATS)}, got {fmt!r}")
    kinds = {Path(p): detect_format(p) for p in paths}
    if fmt != "auto":
        for p, k in kinds.items():
            if not (k == fmt or (fmt == "s2" and k.startswith("s2-"))):
                raise InputError(p, 1, None, f"this reads as {k} records, not {fmt}")
    abstracts: dict[int, str] = {}
    for p, k in kinds.items():
        if k == "s2-abstracts":
            for line, row in _records(p):
                cid = row.get("corpusid")
                if not isinstance(cid, int):
                    raise InputError(p, line, "corpusid", "must be an integer")
                abstracts[cid] = str(row.get("abstract") or "")
    if any(k == "s2-papers" for k in kinds.values()) and not any(k == "s2-abstracts" for k in kinds.values()):
        raise InputError(next(p for p, k in kinds.items() if k == "s2-papers"), None, None,
                         "Semantic Scholar papers need the abstracts dataset too (give both files)")
    out: list[dict[str, Any]] = []
    read = skipped = 0
    for p, k in kinds.items():
        if k == "s2-abstracts":
            continue
        if k == "noveval":
            rows: Iterator[dict[str, Any]] = ({**r, "year": r["year"] or 0} for r in iter_papers(p))
        else:
            conv = {"arxiv": _from_arxiv, "openalex": _from_openalex,
                    "s2-papers": lambda a, b, c: _from_s2(a, b, c, abstracts)}[k]
            rows = (conv(p, line, row) for line, row in _records(p))
        for r in rows:
            read += 1
            if not r["abstract"]:
                skipped += 1
                continue
            r.pop("line", None)
            out.append({k2: v for k2, v in r.items() if v not in ("", None) or k2 in ("abstract", "field", "year")})
    return out, {"read": read, "skipped_no_abstract": skipped, "formats": {str(p): k for p, k in kinds.items()}}
