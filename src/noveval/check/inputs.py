"""Read the thing to check: an idea (Markdown/JSON), a paper (title + abstract), or free text.

Accepted forms:

* JSON with ``problem``/``problem_statement``, ``objective`` and ``approach``/
  ``solution_approach`` (optionally nested under ``research_idea``, optionally a ``title``);
* JSON with ``title`` and ``abstract`` (optionally ``fulltext`` and ``year``): a paper;
* Markdown with headed sections (``## Problem``, ``## Objective``, ``## Approach``, or
  ``# Title`` + ``## Abstract``);
* anything else: free text, which the model structures into problem/objective/approach.

Every problem raises :class:`~noveval.errors.InputError` naming file, line and field.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from noveval.errors import InputError
from noveval.records import Idea

__all__ = ["CheckInput", "load_input", "IDEA_KEYS"]

IDEA_KEYS: dict[str, tuple[str, ...]] = {
    "problem_statement": ("problem_statement", "problem"),
    "objective": ("objective", "goal", "objectives"),
    "solution_approach": ("solution_approach", "approach", "method", "solution"),
}
"""Idea field -> accepted spellings (JSON keys and Markdown headings, case-insensitive)."""

_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")


@dataclass
class CheckInput:
    """What the user asked about.

    Attributes:
        kind: ``"idea"``, ``"paper"`` or ``"text"`` (free text, structured later).
        path: Where it was read from.
        title: Paper or idea title ("" when none).
        abstract: Paper abstract ("" for ideas).
        fulltext: Optional full text of a paper.
        idea: The structured idea (None until free text or a paper is structured).
        text: The free text (kind ``"text"``).
        year: Publication/intended year, when given.
    """

    kind: str
    path: str
    title: str = ""
    abstract: str = ""
    fulltext: str = ""
    idea: Idea | None = None
    text: str = ""
    year: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def embedding_text(self) -> str:
        """The text embedded for retrieval and metrics (title + abstract, or the idea)."""
        if self.kind == "paper":
            return f"{self.title.strip()}\n\n{self.abstract.strip()}"
        if self.idea is not None:
            i = self.idea
            head = f"{self.title.strip()}\n\n" if self.title else ""
            return f"{head}{i.problem_statement.strip()} {i.objective.strip()} {i.solution_approach.strip()}".strip()
        return self.text.strip()

    def describe(self) -> str:
        """A short plain-text rendering for prompts."""
        if self.kind == "paper":
            return f"Title: {self.title}\nAbstract: {self.abstract}"
        if self.idea is not None:
            i = self.idea
            return (f"Title: {self.title}\n" if self.title else "") + (
                f"Problem: {i.problem_statement}\nObjective: {i.objective}\nApproach: {i.solution_approach}"
            )
        return self.text


def _line_of(text: str, key: str) -> int | None:
    m = re.search(r'"' + re.escape(key) + r'"\s*:', text)
    return text.count("\n", 0, m.start()) + 1 if m else None


def _year(v: Any, path: str | Path | None = None) -> int | None:
    """The input's year (None when absent); a value that is not a year is an InputError."""
    from noveval.io import parse_year

    return parse_year(v, path=path)


def _from_json(path: Path, text: str) -> CheckInput:
    from noveval.io import read_json

    obj = read_json(path)
    if isinstance(obj, list) and len(obj) == 1:
        obj = obj[0]
    if not isinstance(obj, dict):
        raise InputError(path, 1, None, "expected one JSON object (an idea or a paper)")
    nested = obj.get("research_idea")
    idea_obj: dict = nested if isinstance(nested, dict) else obj
    lower = {str(k).lower(): k for k in idea_obj}
    found = {f: next((lower[a] for a in alts if a in lower), None) for f, alts in IDEA_KEYS.items()}
    raw_title = obj.get("title")
    title = raw_title if isinstance(raw_title, str) else ""
    if any(found.values()):
        values: dict[str, str] = {}
        for f, key in found.items():
            if key is None:
                raise InputError(path, None, f, f"missing; an idea needs {', '.join(IDEA_KEYS)}")
            v = idea_obj[key]
            if not isinstance(v, str) or not v.strip():
                raise InputError(path, _line_of(text, key), key, "must be a non-empty string")
            values[f] = v.strip()
        return CheckInput("idea", str(path), title=title.strip(), idea=Idea(**values), year=_year(obj.get("year"), path))
    if "title" in obj or "abstract" in obj:
        for key in ("title", "abstract"):
            v = obj.get(key)
            if not isinstance(v, str) or not v.strip():
                raise InputError(path, _line_of(text, key), key, "a paper needs a non-empty title and abstract")
        ft = obj.get("fulltext") or obj.get("full_text") or ""
        return CheckInput("paper", str(path), title=obj["title"].strip(), abstract=obj["abstract"].strip(),
                          fulltext=ft if isinstance(ft, str) else "", year=_year(obj.get("year"), path))
    if isinstance(obj.get("text"), str):
        return _from_text(path, obj["text"], line=_line_of(text, "text"), fieldname="text")
    keys = ", ".join(map(str, list(obj)[:6])) or "none"
    raise InputError(path, 1, None, f"unrecognised fields ({keys}); expected problem/objective/approach, "
                     "title/abstract, or text")


def _sections(text: str) -> list[tuple[str, int, str]]:
    """(heading, 1-based line, body) for each Markdown heading."""
    out: list[tuple[str, int, list[str]]] = []
    for n, line in enumerate(text.splitlines(), 1):
        m = _HEADING.match(line)
        if m:
            out.append((m.group(2).strip().rstrip(":").lower(), n, []))
        elif out:
            out[-1][2].append(line)
    return [(h, n, "\n".join(b).strip()) for h, n, b in out]


def _from_markdown(path: Path, text: str) -> CheckInput:
    secs = _sections(text)
    if not secs:
        return _from_text(path, text)
    by_name = {h: (n, body) for h, n, body in secs}
    known = {a for alts in IDEA_KEYS.values() for a in alts} | {"abstract", "title"}
    first = _HEADING.match(text.splitlines()[secs[0][1] - 1])
    title = first.group(2).strip() if first and len(first.group(1)) == 1 and secs[0][0] not in known else ""
    if "title" in by_name:
        title = by_name["title"][1].strip() or title
    idea_hits = {f: next((a for a in alts if a in by_name), None) for f, alts in IDEA_KEYS.items()}
    if any(idea_hits.values()):
        values: dict[str, str] = {}
        for f, h in idea_hits.items():
            if h is None:
                raise InputError(path, None, f, f"missing section; an idea needs headings for {', '.join(IDEA_KEYS)}")
            n, body = by_name[h]
            if not body:
                raise InputError(path, n, f, f"section '{h}' is empty")
            values[f] = body
        return CheckInput("idea", str(path), title=title, idea=Idea(**values))
    if "abstract" in by_name:
        n, body = by_name["abstract"]
        if not body:
            raise InputError(path, n, "abstract", "section is empty")
        if not title:
            raise InputError(path, 1, "title", "a paper needs a title (a '# Title' heading)")
        ft = "\n\n".join(b for h, _n, b in secs if h not in ("abstract", "title", title.lower()) and b)
        return CheckInput("paper", str(path), title=title, abstract=body, fulltext=ft)
    return _from_text(path, text)


def _from_text(path: Path, text: str, *, line: int | None = 1, fieldname: str = "text") -> CheckInput:
    body = text.strip()
    if not body:
        raise InputError(path, line, fieldname, "the idea is empty")
    if len(body.split()) < 5:
        raise InputError(path, line, fieldname, "the idea is too short to judge (fewer than 5 words)")
    return CheckInput("text", str(path), text=body)


def load_input(path: str | Path) -> CheckInput:
    """Read INPUT (see module docstring).

    Raises:
        InputError: missing file, empty idea, empty or missing fields, unknown layout.
    """
    p = Path(path)
    if not p.is_file():
        raise InputError(p, None, None, "no such file")
    from noveval.io import read_bytes

    raw = read_bytes(p)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(p, raw[: e.start].count(b"\n") + 1, None, "not valid UTF-8") from None
    if not text.strip():
        raise InputError(p, 1, "text", "the idea is empty")
    if p.suffix.lower() == ".json" or (p.suffix.lower() not in (".md", ".markdown", ".txt") and text.lstrip().startswith("{")):
        return _from_json(p, text)
    if p.suffix.lower() in (".md", ".markdown"):
        return _from_markdown(p, text)
    return _from_text(p, text)
