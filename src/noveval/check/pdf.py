"""PDF -> the Markdown the paper reader understands, through ``pypdf``.

Text comes from :meth:`pypdf.PageObject.extract_text`. The title, in this order: the
document's metadata title (when it reads as a title, not a file name or "untitled"); the
largest text on page 1 (font size x text matrix scale, from pypdf's text visitor) when it
is set larger than the body text; the first line of page 1 when it reads as a title and
stands apart (before an Abstract, or shorter than the paragraph that follows). Only page 1
is looked at, so a page-2 heading is never the title. Lines are turned into
Markdown: numbered headings (``2.1 Related Work``) and the usual unnumbered ones
(Abstract, Introduction, Conclusion, References, ...) become ``##`` headings, an
``Abstract.``/``Abstract—`` lead-in becomes an Abstract heading, words hyphenated across
line ends are joined, and the other lines are joined into paragraphs.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from noveval.check.parse import looks_like_title
from noveval.errors import ConfigError, InputError

__all__ = ["pdf_to_markdown"]

_KNOWN = {"abstract", "introduction", "related work", "related works", "background", "preliminaries", "method",
          "methods", "methodology", "approach", "experiments", "experimental results", "results", "evaluation",
          "discussion", "conclusion", "conclusions", "references", "bibliography", "acknowledgments",
          "acknowledgements", "appendix", "limitations", "our contributions", "contributions"}
_NUMBERED = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[A-Z]\.\d*)\s+([A-Z][^\n]{1,90})$")
_ABSTRACT_LEAD = re.compile(r"^abstract\s*[.:—–-]\s*(\S.*)$", re.I)
_BULLET = re.compile(r"^(?:[-•*‣▪–]|\(?\d{1,2}[.)]|\([ivx]{1,4}\))\s+\S")


def _heading(line: str) -> str | None:
    s = line.strip()
    if not s or len(s.split()) > 12 or s.endswith((".", ",", ";")):
        return None
    if s.lower().rstrip(":") in _KNOWN:
        return s.rstrip(":")
    m = _NUMBERED.match(s)
    if m and not re.search(r"\d{3,}", m.group(1)):
        return s
    return None


def _scale(m: Any) -> float:
    try:
        return math.sqrt(abs(float(m[0]) * float(m[3]) - float(m[1]) * float(m[2]))) or 1.0
    except (TypeError, IndexError, ValueError):
        return 1.0


def _title(pieces: list[tuple[float, str]]) -> str | None:
    """Text set in the largest size on the page (2-30 words) when that size is above the body's, else None.

    The body size is the size of most characters; one-font-size documents have no such title.
    """
    sized = [(s, t) for s, t in pieces if t.strip()]
    if not sized:
        return None
    top = max(s for s, _ in sized)
    weight: dict[float, int] = {}
    for s, t in sized:
        weight[round(s, 1)] = weight.get(round(s, 1), 0) + len(t.strip())
    body = max(weight, key=lambda k: (weight[k], -k))
    if top < 1.15 * body:
        return None
    text = re.sub(r"\s+", " ", " ".join(t for s, t in sized if s >= 0.95 * top)).strip()
    return text if 2 <= len(text.split()) <= 30 else None


_NOT_A_TITLE = re.compile(r"^(untitled|microsoft word|document\d*$|title$)|\.(docx?|tex|pdf|dvi|ps)$", re.I)


def _meta_title(reader: Any) -> str | None:
    """The document's metadata title when it reads as one (2-30 words, not a file name), else None."""
    try:
        raw = reader.metadata.title if reader.metadata is not None else None
    except Exception:  # noqa: BLE001 - a malformed info dictionary is no title
        return None
    t = re.sub(r"\s+", " ", str(raw or "")).strip()
    return t if 2 <= len(t.split()) <= 30 and not _NOT_A_TITLE.search(t) else None


def _first_line_title(page: str) -> str | None:
    """Page 1's first line when it reads as a title and stands apart from the text after it.

    It stands apart when an Abstract heading or lead-in follows within the next four lines
    (authors and affiliations may come between), or when it is shorter than 80% of the
    longest of the next three lines (the first line of a paragraph fills the width).
    """
    lines = [ln.strip() for ln in page.replace("\r", "").split("\n") if ln.strip()]
    if len(lines) < 2 or not looks_like_title(lines[0]) or _heading(lines[0]) or _ABSTRACT_LEAD.match(lines[0]):
        return None
    first = re.sub(r"\s+", " ", lines[0])
    after = lines[1:5]
    if any(ln.lower().rstrip(":") == "abstract" or _ABSTRACT_LEAD.match(ln) for ln in after):
        return first
    return first if len(first) < 0.8 * max(len(ln) for ln in lines[1:4]) else None


def pdf_to_markdown(path: str | Path) -> tuple[str, str | None, str, int]:
    """Read a PDF as Markdown.

    Returns:
        ``(markdown, title or None, how the title was found ("" when none), pages)``.

    Raises:
        ConfigError: pypdf is not installed.
        InputError: an unreadable or encrypted PDF, or one without extractable text.
    """
    try:
        from pypdf import PdfReader
        from pypdf.errors import PdfReadError
    except ImportError as e:
        raise ConfigError("PDF input needs pypdf: pip install pypdf") from e
    p = Path(path)
    pieces: list[tuple[float, str]] = []

    def visit(text: str, cm: Any, tm: Any, font: Any, size: Any) -> None:
        if text and size:
            pieces.append((float(size) * _scale(tm) * _scale(cm), text))

    try:
        reader = PdfReader(str(p))
        if reader.is_encrypted and not reader.decrypt(""):
            raise InputError(p, None, None, "the PDF is encrypted")
        pages = [pg.extract_text(visitor_text=visit) if i == 0 else pg.extract_text()
                 for i, pg in enumerate(reader.pages)]
    except (PdfReadError, ValueError, KeyError, OSError) as e:
        raise InputError(p, None, None, f"cannot read this PDF: {e}") from None
    raw = "\n".join(pages)
    if len(raw.split()) < 5:
        raise InputError(p, None, None, "the PDF has no extractable text (a scanned document?)")
    found = [(_meta_title(reader), "the document's metadata title (PDF)"),
             (_title(pieces), "the largest text on page 1 (PDF)"),
             (_first_line_title(pages[0]), "the first line of page 1, set apart from the text after it (PDF)")]
    title, how = next(((t, h) for t, h in found if t), (None, ""))
    # the title as printed on page 1 is not body text: the metadata title when page 1 prints it, else the visible one
    shown = title if title and _printed_title(pages[0].split("\n"), title) else found[1][0] or found[2][0] or title
    return _markdown(raw, title, shown), title, how, len(pages)


def _printed_title(lines: list[str], title: str, within: int = 12) -> set[int]:
    """Indices of the consecutive lines, among the first ``within`` non-empty ones, that spell ``title``."""
    words = title.split()
    if not words:
        return set()
    starts = [i for i, ln in enumerate(lines) if ln.strip()][:within]
    for start in starts:
        got, i, k = set(), start, 0
        while i < len(lines) and k < len(words):
            w = lines[i].split()
            if not w:
                i += 1
                continue
            if w != words[k:k + len(w)]:
                break
            got.add(i)
            k, i = k + len(w), i + 1
        if k == len(words):
            return got
    return set()


def _markdown(raw: str, title: str | None, shown: str | None = None) -> str:
    """Markdown of the extracted text under ``# title``; the title as printed (``shown``) is left out of the body."""
    text = re.sub(r"(\w)-\n(\w)", r"\1\2", raw.replace("\r", ""))
    out: list[str] = [f"# {title}", ""] if title else []
    para: list[str] = []
    lines = text.split("\n")
    drop = _printed_title(lines, shown or title or "")

    def flush() -> None:
        if para:
            out.extend([" ".join(para), ""])
            para.clear()

    for n, line in enumerate(lines):
        s = line.strip()
        if n in drop:
            continue
        lead = _ABSTRACT_LEAD.match(s)
        head = _heading(s)
        if lead:
            flush()
            out.extend(["## Abstract", ""])
            para.append(lead.group(1))
        elif head:
            flush()
            out.extend([f"## {head}", ""])
        elif not s:
            flush()
        elif _BULLET.match(s):  # a list item starts its own line
            flush()
            para.append(s if s.startswith(("-", "(")) or s[0].isdigit() else "- " + s[1:].lstrip())
        else:
            para.append(s)
    flush()
    return "\n".join(out).strip() + "\n"
