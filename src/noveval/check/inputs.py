"""Read the thing to check, in the forms people have it, and say how each part was found.

Accepted forms (``CheckInput.source``):

* ``markdown idea`` — Markdown with ``## Problem`` / ``## Objective`` / ``## Approach``
  headings (spellings in :data:`IDEA_KEYS`; optional ``# Title`` and ``## Contributions``);
* ``markdown paper`` — a full paper or title + abstract in Markdown: a title heading (any
  level) or first line, an ``Abstract`` heading, other sections (the introduction's
  contribution list is used);
* ``markdown`` — a ``# Title`` (any heading) and free paragraphs;
* ``json idea`` / ``json paper`` / ``json text`` — ``problem``/``objective``/``approach``
  (also under ``research_idea``), or ``title`` + ``abstract`` (+ ``fulltext``,
  ``contributions``), or ``text``;
* ``pdf`` — a paper as PDF (text through ``pypdf``, :mod:`noveval.check.pdf`);
* ``text`` — plain text; a short first line without a full stop is its title.

Whatever the form, the result has a title (or says there is none), a problem, an
objective and an approach (given, or found by :func:`noveval.check.parse.heuristic_idea`)
and 1-5 contributions (:func:`noveval.check.parse.find_contributions`), each with how it
was found (``found``). Every problem raises :class:`~noveval.errors.InputError` naming
file, line and field.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from noveval.check.parse import (
    CONTRIB_HEAD,
    Part,
    find_contributions,
    heuristic_idea,
    looks_like_title,
    sentences,
)
from noveval.corpus import parse_year
from noveval.errors import InputError
from noveval.io import read_bytes, read_json
from noveval.records import Idea

__all__ = ["CheckInput", "load_input", "from_markdown", "IDEA_KEYS"]

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
        kind: ``"idea"`` (problem/objective/approach given), ``"paper"`` (title +
            abstract) or ``"text"`` (prose: parts found by heuristics, and by the model
            when it judges).
        path: Where it was read from.
        title: Paper or idea title ("" when none).
        abstract: Paper abstract ("" for ideas and text).
        fulltext: Full text of a paper beyond the abstract ("" when not given).
        idea: The idea as given (None unless the input had the three parts).
        text: The prose (kind ``"text"``).
        year: Publication/intended year, when given.
        source: The form it was read as (see the module docstring).
        found: Part name -> how it was found (``title``, ``abstract``, ...).
        parts: ``problem_statement``/``objective``/``solution_approach`` -> :class:`Part`
            (given or heuristic).
        contributions: The claimed contributions, each with how it was found.
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
    source: str = ""
    found: dict[str, str] = field(default_factory=dict)
    parts: dict[str, Part] = field(default_factory=dict)
    contributions: list[Part] = field(default_factory=list)

    def embedding_text(self) -> str:
        """The text embedded and searched for retrieval and metrics (title + abstract, the idea, or the text)."""
        head = f"{self.title.strip()}\n\n" if self.title else ""
        if self.kind == "paper":
            return f"{head}{self.abstract.strip()}"
        if self.idea is not None:
            i = self.idea
            return f"{head}{i.problem_statement.strip()} {i.objective.strip()} {i.solution_approach.strip()}".strip()
        return f"{head}{self.text.strip()}".strip()

    def describe(self) -> str:
        """A short plain-text rendering for prompts."""
        if self.kind == "paper":
            return f"Title: {self.title}\nAbstract: {self.abstract}"
        if self.idea is not None:
            i = self.idea
            return (f"Title: {self.title}\n" if self.title else "") + (
                f"Problem: {i.problem_statement}\nObjective: {i.objective}\nApproach: {i.solution_approach}"
            )
        return (f"Title: {self.title}\n" if self.title else "") + self.text

    def heuristic_idea(self) -> Idea | None:
        """The idea from :attr:`parts` (given or heuristic), or None when there are none."""
        if self.idea is not None:
            return self.idea
        if len(self.parts) < 3:
            return None
        return Idea(**{k: p.text for k, p in self.parts.items()})

    def parsed(self) -> dict[str, Any]:
        """JSON-ready: every part with how it was found (``check.json``'s ``input.parsed``)."""
        out: dict[str, Any] = {"source": self.source, "title": {"text": self.title, "how": self.found.get("title", "")}}
        if self.abstract:
            out["abstract"] = {"text": self.abstract, "how": self.found.get("abstract", "")}
        for k, p in self.parts.items():
            out[k] = {"text": p.text, "how": p.how}
        out["contributions"] = [{"text": c.text, "how": c.how} for c in self.contributions]
        return out


def _line_of(text: str, key: str) -> int | None:
    m = re.search(r'"' + re.escape(key) + r'"\s*:', text)
    return text.count("\n", 0, m.start()) + 1 if m else None


def _year(v: Any, path: str | Path | None = None) -> int | None:
    """The input's year (None when absent); a value that is not a year is an InputError."""
    return parse_year(v, path=path)


def _complete(inp: CheckInput, sections: list[tuple[str, str]]) -> CheckInput:
    """Fill :attr:`CheckInput.parts` and :attr:`CheckInput.contributions` (heuristics where not given)."""
    if inp.idea is not None:
        summary = f"{inp.idea.objective} {inp.idea.solution_approach}"
        if not inp.contributions and not any(CONTRIB_HEAD.search(h) for h, _b in sections):
            inp.contributions = [Part(x, f"a sentence of the {name}") for name, text in
                                 (("objective", inp.idea.objective), ("approach", inp.idea.solution_approach))
                                 for x in sentences(text)][:5]
    elif inp.kind == "paper":
        inp.parts = heuristic_idea(inp.abstract)
        summary = inp.abstract
    else:
        inp.parts = heuristic_idea(inp.text)
        summary = inp.text
    if not inp.contributions:
        inp.contributions = find_contributions(sections, summary)
    if not inp.title:
        inp.found["title"] = inp.found.get("title") or "none found"
    return inp


def _contrib_list(path: Path, text: str, obj: dict[str, Any]) -> list[Part]:
    raw = obj.get("contributions")
    if raw is None:
        return []
    if not isinstance(raw, list) or not all(isinstance(x, str) and x.strip() for x in raw):
        raise InputError(path, _line_of(text, "contributions"), "contributions", "must be a list of non-empty strings")
    return [Part(x.strip(), "the 'contributions' field") for x in raw[:5]]


def _from_json(path: Path, text: str) -> CheckInput:
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
    title = raw_title.strip() if isinstance(raw_title, str) else ""
    how_title = {"title": "the 'title' field"} if title else {}
    contribs = _contrib_list(path, text, obj)
    if any(found.values()):
        values: dict[str, str] = {}
        for f, key in found.items():
            if key is None:
                raise InputError(path, None, f, f"missing; an idea needs {', '.join(IDEA_KEYS)}")
            v = idea_obj[key]
            if not isinstance(v, str) or not v.strip():
                raise InputError(path, _line_of(text, key), key, "must be a non-empty string")
            values[f] = v.strip()
        inp = CheckInput("idea", str(path), title=title, idea=Idea(**values), year=_year(obj.get("year"), path),
                         source="json idea", found=how_title, contributions=contribs)
        inp.parts = {f: Part(values[f], f"the '{found[f]}' field") for f in IDEA_KEYS}
        return _complete(inp, [])
    if "title" in obj or "abstract" in obj:
        for key in ("title", "abstract"):
            v = obj.get(key)
            if not isinstance(v, str) or not v.strip():
                raise InputError(path, _line_of(text, key), key, "a paper needs a non-empty title and abstract")
        ft = obj.get("fulltext") or obj.get("full_text") or ""
        ft = ft if isinstance(ft, str) else ""
        inp = CheckInput("paper", str(path), title=title, abstract=obj["abstract"].strip(), fulltext=ft,
                         year=_year(obj.get("year"), path), source="json paper",
                         found={**how_title, "abstract": "the 'abstract' field"}, contributions=contribs)
        return _complete(inp, _sections(ft) if ft else [])
    if isinstance(obj.get("text"), str):
        inp = _from_text(path, obj["text"], line=_line_of(text, "text"), fieldname="text", source="json text")
        if title:
            inp.title, inp.found["title"] = title, "the 'title' field"
        return inp
    keys = ", ".join(map(str, list(obj)[:6])) or "none"
    raise InputError(path, 1, None, f"unrecognised fields ({keys}); expected problem/objective/approach, "
                     "title/abstract, or text")


def _sections(text: str) -> list[tuple[str, str]]:
    """``(heading, body)`` pairs of Markdown text; text before the first heading has heading ""."""
    return [(h, b) for h, _n, b, _lv in _headed(text)]


def _headed(text: str) -> list[tuple[str, int, str, int]]:
    """(heading as written, 1-based line, body, level) per heading; leading text under heading "" (level 0)."""
    out: list[tuple[str, int, list[str], int]] = [("", 0, [], 0)]
    for n, line in enumerate(text.splitlines(), 1):
        m = _HEADING.match(line)
        if m:
            out.append((m.group(2).strip().rstrip(":"), n, [], len(m.group(1))))
        else:
            out[-1][2].append(line)
    res = [(h, n, "\n".join(b).strip(), lv) for h, n, b, lv in out]
    return res if res[0][2] else res[1:]


_ABSTRACT_LINE = re.compile(r"^\s*(?:\*\*|__)?abstract(?:\*\*|__)?\s*[.:—–-]?\s*(?:\*\*|__)?\s*(.*)$", re.I)


def _markdown_idea(path: Path, secs: list[tuple[str, int, str, int]], title: str, how_title: str) -> CheckInput | None:
    by_name = {h.lower(): (n, body) for h, n, body, _lv in secs if h}
    hits = {f: next((a for a in alts if a in by_name), None) for f, alts in IDEA_KEYS.items()}
    if not any(hits.values()):
        return None
    values: dict[str, str] = {}
    parts: dict[str, Part] = {}
    for f, h in hits.items():
        if h is None:
            raise InputError(path, None, f, f"missing section; an idea needs headings for {', '.join(IDEA_KEYS)}")
        n, body = by_name[h]
        if not body:
            raise InputError(path, n, f, f"section '{h}' is empty")
        values[f] = body
        parts[f] = Part(body, f"the '{h}' heading (line {n})")
    inp = CheckInput("idea", str(path), title=title, idea=Idea(**values), source="markdown idea",
                     found={"title": how_title} if title else {}, parts=parts)
    return _complete(inp, [(h, b) for h, _n, b, _lv in secs])


def _from_markdown(path: Path, text: str, *, need_title: bool = True) -> CheckInput:
    """Markdown in any of the accepted layouts; ``need_title`` False: a paper without a title is read untitled (PDF)."""
    secs = _headed(text)
    named = [x for x in secs if x[0]]
    if not named:
        return _from_text(path, text)
    known = {a for alts in IDEA_KEYS.values() for a in alts} | {"abstract", "title", "contributions"}
    first = next(((h, n) for h, n, _b, _lv in named if h.lower() not in known), None)
    title, how_title = ("", "")
    if any(h.lower() == "title" for h, *_ in named):
        n, body = next((n, b) for h, n, b, _lv in named if h.lower() == "title")
        title, how_title = body.strip(), f"the 'Title' heading (line {n})"
    elif first is not None and first[1] == named[0][1]:
        title, how_title = first[0], f"the first heading (line {first[1]})"
    idea = _markdown_idea(path, secs, title, how_title)
    if idea is not None:
        return idea
    abstract = next(((n, b) for h, n, b, _lv in named if h.lower() == "abstract"), None)
    body_secs = [("" if h == title else h, b) for h, _n, b, _lv in secs if h.lower() not in ("abstract", "title")]
    if abstract is None:  # "Abstract: ..." written as a line, not a heading
        for _h, n, b, _lv in secs:
            lines = b.splitlines()
            for j, ln in enumerate(lines):
                m = _ABSTRACT_LINE.match(ln)
                if m and (m.group(1) or j + 1 < len(lines)):
                    rest = "\n".join([m.group(1), *lines[j + 1:]]).strip().split("\n\n")[0]
                    abstract = (n + j + 1, rest)
                    break
            if abstract:
                break
    if abstract is not None:
        n, body = abstract
        if not body.strip():
            raise InputError(path, n, "abstract", "section is empty")
        if not title and need_title:
            raise InputError(path, 1, "title", "a paper needs a title (a heading before the abstract)")
        ft = "\n\n".join(f"## {h}\n{b}" if h else b for h, b in body_secs if b)
        inp = CheckInput("paper", str(path), title=title, abstract=re.sub(r"\s+", " ", body).strip(), fulltext=ft,
                         source="markdown paper", found={"title": how_title, "abstract": f"the Abstract (line {n})"})
        return _complete(inp, body_secs)
    prose = "\n\n".join(b for h, b in body_secs if b)
    inp = _from_text(path, prose or text, source="markdown", complete=False)
    if title:
        inp.title, inp.found["title"] = title, how_title
    return _complete(inp, body_secs)


def _from_text(path: Path, text: str, *, line: int | None = 1, fieldname: str = "text", source: str = "text",
               complete: bool = True) -> CheckInput:
    body = text.strip()
    if not body:
        raise InputError(path, line, fieldname, "the idea is empty")
    if len(body.split()) < 5:
        raise InputError(path, line, fieldname, "the idea is too short to judge (fewer than 5 words)")
    title, how = "", ""
    first, _, rest = body.partition("\n")
    m = re.match(r"^\s*title\s*:\s*(.+)$", first, re.I)
    if m and rest.strip():
        title, how, body = m.group(1).strip(), "a 'Title:' first line", rest.strip()
    elif source == "text" and rest.strip() and looks_like_title(first) and len(rest.split()) >= 5:
        title, how, body = first.strip(), "the first line (short, no full stop)", rest.strip()
    inp = CheckInput("text", str(path), text=body, title=title, source=source, found={"title": how} if title else {})
    return _complete(inp, [("", body)]) if complete else inp


def from_markdown(text: str, path: str | Path = "<text>") -> CheckInput:
    """Read Markdown given as a string (a full paper, an idea, or a title and paragraphs)."""
    return _from_markdown(Path(path), text)


def load_input(path: str | Path) -> CheckInput:
    """Read INPUT (see the module docstring).

    Raises:
        InputError: missing file, empty idea, empty or missing fields, unknown layout,
            an unreadable PDF.
    """
    p = Path(path)
    if not p.is_file():
        raise InputError(p, None, None, "no such file")

    raw = read_bytes(p)
    if p.suffix.lower() == ".pdf" or raw[:5] == b"%PDF-":
        return _from_pdf(p)
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


def _from_pdf(p: Path) -> CheckInput:
    from noveval.check.pdf import pdf_to_markdown

    md, pdf_title, how, pages = pdf_to_markdown(p)
    inp = _from_markdown(p, md, need_title=False)  # no title found: checked untitled, and the report says so
    inp.source = "pdf"
    inp.extra["pages"] = pages
    if pdf_title and inp.title == pdf_title:
        inp.found["title"] = how
    inp.found = {k: v.replace("(line ", "(line of the extracted text ") for k, v in inp.found.items()}
    return inp
