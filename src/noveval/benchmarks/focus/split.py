"""Deterministic splitter of a strengths or weaknesses section into review points.

"Mind the Blind Spots" counts and labels *points* (Section 2: "review points (e.g.,
a list of strengths and weaknesses)"; Figure 3). OpenReview sections are free
text, so this module turns one section into a list of points without a model.

Rules, in order (each line of the section is classified first):

1. **Item markers** start a point: bullets (``-``, ``*``, ``•``, ``+``, ``–``),
   numbers (``1.``, ``1)``, ``(1)``), letters (``a)``, ``(b)``), tags (``W1:``,
   ``[S2]``, ``Weakness 3:``), and lines that open with a bold lead
   (``**Limited novelty.** The method ...``). The least-indented marker level is
   the point level; deeper markers (sub-bullets) stay inside their parent point.
2. **Header lines** (Markdown ``#`` headings, bold-only lines, or a short line of
   at most six words ending with ``:``) label what follows: a header followed by
   prose becomes a point "header + body"; a header followed by items is a group
   label and is dropped (its items are the points); it also resets the point
   level.
3. **Prose**: before any item, each blank-line-separated paragraph is a point; once
   a list has started, unmarked text continues the current item (continuation
   lines, display math, a closing remark).
4. **No structure at all** (no marker, no header) and a single paragraph: one point
   per sentence.
5. Points with fewer than three words (``N/A``, ``None.``) and lead-in lines that
   end with ``:`` before a list (``The paper has these strengths:``) are dropped.

The splitter is pure and deterministic; it never calls a model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["split_points", "split_review_sections"]

_MARKER = re.compile(
    r"""^(?P<indent>[ \t]*)
    (?:
        [-*•●▪◦+–—]\s+                                   # bullets
      | \(?\d{1,2}[.)](?!\d)\s*                          # 1.  1)  (1)
      | \([a-zA-Z]\)\s+ | [a-h][.)]\s+                     # (a) a)
      | \[?[SsWw]\d{1,2}\]?\s*[:.)\]-]?\s+                 # W1: [S2] S1.
      | (?:Strength|Weakness|Point|Concern|Issue)s?\s*\#?\d{1,2}\s*[:.)-]\s*
    )
    (?P<body>\S.*)$""",
    re.VERBOSE,
)
_BOLD_LEAD = re.compile(r"^(?P<indent>[ \t]*)(?P<body>(?:\*\*|__)[^*_\n]{2,120}(?:\*\*|__).*)$")
_MD_HEADER = re.compile(r"^\s*#{1,6}\s+(?P<body>.+)$")
_BOLD_ONLY = re.compile(r"^\s*(?:\*\*|__)(?P<body>[^*_]{1,120})(?:\*\*|__)\s*:?\s*$")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"'])")
_TRIVIAL = re.compile(r"^\W*(n/?a|none|nothing|no|na|-+)\W*$", re.IGNORECASE)


@dataclass
class _Line:
    kind: str  # "blank" | "header" | "item" | "text"
    indent: int
    text: str


def _indent_width(s: str) -> int:
    return len(s.expandtabs(4))


def _classify(line: str) -> _Line:
    if not line.strip():
        return _Line("blank", 0, "")
    m = _MD_HEADER.match(line)
    if m:
        return _Line("header", 0, m.group("body").strip())
    m = _BOLD_ONLY.match(line)
    if m:
        return _Line("header", 0, m.group("body").strip())
    m = _MARKER.match(line)
    if m:
        return _Line("item", _indent_width(m.group("indent")), m.group("body").strip())
    m = _BOLD_LEAD.match(line)
    if m:
        return _Line("item", _indent_width(m.group("indent")), m.group("body").strip())
    stripped = line.strip()
    indent = _indent_width(line[: len(line) - len(line.lstrip())])
    if stripped.endswith(":") and len(stripped.split()) <= 6:
        return _Line("header", indent, stripped.rstrip(":").strip())
    return _Line("text", indent, stripped)


def _words(text: str) -> int:
    return len(re.findall(r"\w+", text))


def split_points(section: str | None) -> list[str]:
    """Split one strengths or weaknesses section into points.

    Args:
        section: The section text (Markdown-ish, as written by reviewers or models).

    Returns:
        The points in reading order, each a single string with internal whitespace
        collapsed; an empty list for an empty or trivial section.
    """
    if not section or not section.strip():
        return []
    lines = [_classify(raw) for raw in section.replace("\r\n", "\n").split("\n")]
    structured = any(ln.kind in ("item", "header") for ln in lines)

    points: list[list[str]] = []
    current: list[str] | None = None
    current_is_item = False
    level: int | None = None
    pending_header: str | None = None
    prev_blank = False

    def flush() -> None:
        nonlocal current
        if current:
            points.append(current)
        current = None

    for i, ln in enumerate(lines):
        if ln.kind == "blank":
            prev_blank = True
            continue
        if ln.kind == "header":
            flush()
            if pending_header is not None:
                points.append([pending_header])  # a header with nothing under it
            pending_header, level, current_is_item = ln.text, None, False
        elif ln.kind == "item" and (level is None or ln.indent <= level):
            flush()
            pending_header = None  # group label over a list: dropped
            level = ln.indent if level is None else min(level, ln.indent)
            current, current_is_item = [ln.text], True
        elif ln.kind == "item":  # deeper marker: sub-item of the current point
            if current is None:
                current, current_is_item = [ln.text], True
            else:
                current.append(ln.text)
        else:  # plain text
            if current is None:
                if pending_header is not None:
                    current, pending_header = [pending_header + ":", ln.text], None
                else:
                    current = [ln.text]
                current_is_item = False
            elif not current_is_item and prev_blank:
                flush()  # a new prose paragraph
                current, current_is_item = [ln.text], False
            else:
                current.append(ln.text)
        prev_blank = False
        del i
    flush()
    if pending_header is not None:
        points.append([pending_header])

    texts = [re.sub(r"\s+", " ", " ".join(p)).strip() for p in points]
    if not structured and len(texts) == 1:
        texts = [s.strip() for s in _SENTENCE.split(texts[0]) if s.strip()]
    # lead-ins like "The main strengths are:" right before a list carry no content
    texts = [
        t
        for k, t in enumerate(texts)
        if not (t.endswith(":") and k + 1 < len(texts) and _words(t) <= 12)
    ]
    return [t for t in texts if _words(t) >= 3 and not _TRIVIAL.match(t)]


_SECTION_NAMES = (
    r"summary(?: of the paper)?|strengths?|weaknesses?|pros|cons|questions|limitations|"
    r"final judge?ment|overall(?: assessment)?|recommendation|conclusion"
)
_SECTION_HEADER = re.compile(
    r"^\s*(?:#{1,6}\s*)?(?:\*\*|__)?\s*(?P<name>" + _SECTION_NAMES + r")\s*(?:\*\*|__)?"
    r"\s*(?:(?::|\*\*:|:\*\*)\s*(?P<rest>.*))?$",
    re.IGNORECASE,
)
_CANON = {
    "summary": "summary",
    "summary of the paper": "summary",
    "strength": "strengths",
    "strengths": "strengths",
    "pros": "strengths",
    "weakness": "weaknesses",
    "weaknesses": "weaknesses",
    "cons": "weaknesses",
}


def split_review_sections(text: str) -> dict[str, str]:
    """Cut a review text into ``summary``, ``strengths``, ``weaknesses`` (and others).

    A section starts at a line naming it (``Strengths:``, ``## Weaknesses``,
    ``**Pros**``); text on the same line after the colon belongs to it. Used for
    model reviews (Appendix A.1.2 asks for summary, strengths and weaknesses) and
    for the expert chain's final review (Figure 7).

    Args:
        text: A whole review.

    Returns:
        Lower-case section name -> section text (only the sections found; text
        before the first header goes to ``"preamble"``).
    """
    sections: dict[str, list[str]] = {}
    name = "preamble"
    for line in (text or "").replace("\r\n", "\n").split("\n"):
        m = _SECTION_HEADER.match(line)
        if m:
            raw = m.group("name").lower()
            name = _CANON.get(raw, raw.split()[0])
            sections.setdefault(name, [])
            rest = (m.group("rest") or "").strip().strip("*_").strip()
            if rest:
                sections[name].append(rest)
            continue
        sections.setdefault(name, []).append(line)
    return {k: "\n".join(v).strip() for k, v in sections.items() if "\n".join(v).strip()}
