"""PDF -> the Markdown the paper reader understands, through ``pypdf``.

Text comes from :meth:`pypdf.PageObject.extract_text`; the title is the largest text on
page 1 (font size x text matrix scale, from pypdf's text visitor). Lines are turned into
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
    """Text set in the largest size on the page (2-30 words), else None."""
    sized = [(s, t) for s, t in pieces if t.strip()]
    if not sized:
        return None
    top = max(s for s, _ in sized)
    text = re.sub(r"\s+", " ", " ".join(t for s, t in sized if s >= 0.95 * top)).strip()
    return text if 2 <= len(text.split()) <= 30 else None


def pdf_to_markdown(path: str | Path) -> tuple[str, str | None, int]:
    """Read a PDF as Markdown.

    Returns:
        ``(markdown, title from font sizes or None, pages)``.

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
    title = _title(pieces)
    return _markdown(raw, title), title, len(pages)


def _markdown(raw: str, title: str | None) -> str:
    text = re.sub(r"(\w)-\n(\w)", r"\1\2", raw.replace("\r", ""))
    out: list[str] = [f"# {title}", ""] if title else []
    para: list[str] = []
    skip_title = title.split() if title else []

    def flush() -> None:
        if para:
            out.extend([" ".join(para), ""])
            para.clear()

    for line in text.split("\n"):
        s = line.strip()
        if skip_title and s and s.split() == skip_title[: len(s.split())]:
            skip_title = skip_title[len(s.split()):]
            continue
        skip_title = []
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
