"""Related works a CLAIMCHECK prompt may see (§3.2, §4.2, §4.3).

The paper gives the model, besides the reviewed paper, "the full contents of related
work(s) mentioned either by the target claim(s) or the weakness" (§4.3; CV §4.2 the
same; the works were found by hand in the reviews, §3.2). noveval finds them from the
reviewed paper's own reference list and a corpus of titles and abstracts
(``options.corpus``, e.g. ``corpus/papers.jsonl.gz``):

1. **Reference list.** The entries of the full text's References section
   (:func:`~noveval.corpus.parse_references`), numbered by their
   printed ``[n]`` marker, else by position (1-based).
2. **Corpus match.** An entry matches a corpus paper when the paper's normalised title
   (lower case, letters and digits only, single spaces) occurs as a contiguous word
   sequence in the normalised entry; titles shorter than four words are not matched;
   when several titles occur the longest wins
   (:class:`~noveval.corpus.TitleIndex`). A match with the reviewed
   paper's own title is dropped. Unmatched entries are left out (the corpus has no
   text for them).
3. **Mention.** A matched work is *mentioned* by a text (a weakness, a target claim)
   when the text (a) cites its number: ``[7]``, ``[3, 7]``, ``[5-8]``; or (b) names
   its first author's surname (3+ letters) followed by "et al."/"and"/"&", or followed
   by the entry's year within 20 characters ("Smith (2021)", "Smith, 2021"); or (c)
   contains its normalised title; or (d) names the method its title introduces: the
   part before a colon when that is one to three words ("MACE" for "MACE: Mass Concept
   Erasure in Diffusion Models"), matched as a whole word, case-sensitive.
4. **Works the review cites that the paper does not** (§3.2 took them from the
   reviews): a corpus title (4+ words) that occurs in a line or a quoted part of the
   weakness itself (:meth:`RelatedCorpus.cited_titles`); these have no reference number.
5. A prompt shows at most ``max_works`` works (the paper's references first, by
   number), each as title and abstract (abstract cut at ``abstract_chars``). The paper
   gave full texts, tables and figures; the corpus holds titles and abstracts only.

Which texts are searched for mentions: the weakness (CA), the weakness and its target
claims (WL/WLE), the weakness and the focal claim (CV).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from noveval.errors import InputError

__all__ = [
    "MatchedReference",
    "RelatedCorpus",
    "numbered_references",
    "cited_numbers",
    "first_author_surname",
    "mentioned_works",
    "format_related",
    "method_name",
]


@dataclass(frozen=True)
class MatchedReference:
    """One reference of the reviewed paper that matched a corpus paper."""

    number: int | None
    """Its number in the reference list (the ``[n]`` the paper cites it by); ``None``
    for a work the review cites that is not in the paper's references."""
    reference: str
    """The reference entry as printed (marker removed)."""
    corpus_id: str
    title: str
    abstract: str
    surname: str = ""
    """First author's surname as parsed from the entry ("" when none was found)."""
    year: str = ""
    """Year in the entry ("" when none)."""

    def as_record(self) -> dict:
        """What a prediction row records about the work (no abstract)."""
        return {"number": self.number, "corpus_id": self.corpus_id, "title": self.title}


_MARKER = re.compile(r"^\s*(?:[-*]\s+)?\[(\d+)\]\s*")
_LIST_MARK = re.compile(r"^\s*(?:[-*]\s+|\d+\.\s+)")
_YEAR = re.compile(r"\b(19\d\d|20\d\d)\b")


def numbered_references(fulltext: str) -> list[tuple[int, str]]:
    """The reference list of a Markdown full text as ``(number, entry)`` pairs.

    The number is the entry's printed ``[n]`` marker when it has one, else its 1-based
    position; the marker (and a list bullet) is removed from the entry.
    """
    from noveval.corpus import parse_references

    out = []
    for pos, entry in enumerate(parse_references(fulltext), 1):
        m = _MARKER.match(entry)
        if m:
            out.append((int(m.group(1)), entry[m.end():].strip()))
        else:
            out.append((pos, _LIST_MARK.sub("", entry, count=1).strip()))
    return out


_CITE = re.compile(r"\[(\d+(?:\s*[-–,;]\s*\d+)*)\]")


def cited_numbers(text: str) -> set[int]:
    """Reference numbers a text cites: ``[7]`` -> {7}, ``[3, 7]`` -> {3, 7}, ``[5-8]`` -> {5..8}.

    Ranges longer than 50 are ignored (they are not citations).
    """
    out: set[int] = set()
    for m in _CITE.finditer(text):
        for part in re.split(r"\s*[,;]\s*", m.group(1)):
            bounds = [int(x) for x in re.split(r"\s*[-–]\s*", part) if x]
            if len(bounds) == 1:
                out.add(bounds[0])
            elif len(bounds) == 2 and 0 <= bounds[1] - bounds[0] <= 50:
                out.update(range(bounds[0], bounds[1] + 1))
    return out


def first_author_surname(entry: str) -> str:
    """Surname of an entry's first author: last word before the first comma or " and ".

    ``"Thomas Steinke, Milad Nasr, ..."`` -> ``"Steinke"``; ``"J. Achiam, S. Adler"`` ->
    ``"Achiam"``. Returns ``""`` when the result is not a capitalised word of 3+ letters.
    """
    head = re.split(r",| and | & ", entry, maxsplit=1)[0].strip()
    words = head.split()
    if not words:
        return ""
    name = re.sub(r"[^\w'-]", "", words[-1])
    letters = name.replace("-", "").replace("'", "")
    return name if len(letters) >= 3 and name[0].isupper() and letters.isalpha() else ""


@dataclass
class RelatedCorpus:
    """Corpus titles and abstracts with a title matcher, loaded once per run."""

    ids: list[str]
    titles: list[str]
    abstracts: list[str]
    path: str = ""
    _index: object = field(default=None, repr=False)

    @classmethod
    def load(cls, path: str | Path) -> RelatedCorpus:
        """Read a corpus JSONL(.gz) with ``id, title, abstract`` per line.

        Raises:
            InputError: The file is missing or a line is not a corpus record.
        """
        from noveval.corpus import load_corpus

        if not Path(path).exists():
            raise InputError(path, None, "options.corpus", "corpus file not found")
        c = load_corpus(path)
        return cls(ids=c.ids, titles=c.titles, abstracts=c.abstracts, path=str(path))

    def _matcher(self) -> object:
        if self._index is None:
            from noveval.corpus import TitleIndex

            self._index = TitleIndex(self.titles)
        return self._index

    def cited_titles(self, text: str) -> list[MatchedReference]:
        """Corpus papers whose title (4+ words) occurs in a line or quoted part of ``text``.

        Each line and each quoted span is matched on its own (the longest contained title
        wins per piece); results keep first-seen order.
        """
        index = self._matcher()
        pieces = [ln for ln in text.splitlines() if ln.strip()]
        pieces += re.findall(r"[\"“]([^\"“”]{10,})[\"”]", text)
        out: dict[str, MatchedReference] = {}
        for piece in pieces:
            j = index.match(piece)  # type: ignore[attr-defined]
            if j is not None and self.ids[j] not in out:
                out[self.ids[j]] = MatchedReference(number=None, reference=piece.strip(), corpus_id=self.ids[j],
                                               title=self.titles[j], abstract=self.abstracts[j])
        return list(out.values())

    def references_of(self, fulltext: str, *, own_title: str = "") -> list[MatchedReference]:
        """The reviewed paper's references that match a corpus paper (module docstring)."""
        from noveval.corpus import normalize_title

        index = self._matcher()
        own = normalize_title(own_title)
        out = []
        for number, entry in numbered_references(fulltext):
            j = index.match(entry)  # type: ignore[attr-defined]
            if j is None or (own and normalize_title(self.titles[j]) == own):
                continue
            years = _YEAR.findall(entry)
            out.append(MatchedReference(number=number, reference=entry, corpus_id=self.ids[j],
                                   title=self.titles[j], abstract=self.abstracts[j],
                                   surname=first_author_surname(entry), year=years[-1] if years else ""))
        return out


def _mentions(text: str, work: MatchedReference, cited: set[int], norm_text: str) -> bool:
    from noveval.corpus import normalize_title

    if work.number in cited:
        return True
    if work.surname:
        name = re.escape(work.surname)
        if re.search(rf"\b{name}\s+(et\s+al\b|and\b|&)", text):
            return True
        if work.year and re.search(rf"\b{name}\b.{{0,20}}?\b{work.year}\b", text):
            return True
    title = normalize_title(work.title)
    if len(title.split()) >= 4 and f" {title} " in f" {norm_text} ":
        return True
    name = method_name(work.title)
    return bool(name) and re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) is not None


def method_name(title: str) -> str:
    """The name a title introduces before a colon ("MACE: Mass Concept ..." -> "MACE").

    Returns ``""`` unless the part before the first colon is one to three words and at
    least three characters long.
    """
    head, sep, _ = title.partition(":")
    head = head.strip()
    return head if sep and 1 <= len(head.split()) <= 3 and len(head) >= 3 else ""


def mentioned_works(texts: list[str], works: list[MatchedReference], *, max_works: int = 3) -> list[MatchedReference]:
    """The works that any of ``texts`` mentions (module docstring, step 3).

    Args:
        texts: The weakness, target or focal claims.
        works: The paper's matched references (:meth:`RelatedCorpus.references_of`).
        max_works: Keep at most this many (lowest reference number first).

    Returns:
        Mentioned works ordered by reference number, at most ``max_works``.
    """
    from noveval.corpus import normalize_title

    text = "\n".join(t for t in texts if t)
    cited = cited_numbers(text)
    norm = normalize_title(text)
    hits = sorted({w.number: w for w in works if _mentions(text, w, cited, norm)}.values(),
                  key=lambda w: (w.number is None, w.number or 0))
    return hits[:max_works]


def format_related(works: list[MatchedReference], *, abstract_chars: int = 1200) -> str:
    """The related-works block of a prompt ("" when there is none).

    The block starts with two newlines so a template can place ``{{ related }}`` right after
    the paper context: with no related work the prompt is unchanged.
    """
    if not works:
        return ""
    parts = ["\n\nRelated work(s) cited by the weakness or the claim(s), from the paper's reference list "
             "(title and abstract):"]
    for w in works:
        abstract = w.abstract if len(w.abstract) <= abstract_chars else w.abstract[:abstract_chars] + " ..."
        mark = f"[{w.number}]" if w.number is not None else "[cited in the review]"
        parts.append(f"{mark} {w.title}\n{abstract}")
    return "\n\n".join(parts)
