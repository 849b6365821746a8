"""Parse and write NovBench's structured novelty-evaluation text.

The task output (Section 3.2; prompts in Appendix E, Figs. 16-18) and the gold
``output_format`` field are plain text with three sections::

    Positive Novelty Evaluations
    - item
    - item

    Neutral Novelty Evaluations
    - None

    Negative Novelty Evaluations
    - item

Models decorate this in many ways: ``**Positive Novelty Evaluations**``, ``### ...``,
``Positive:``, ``* item``, ``1. item``, placeholders such as ``- None.``,
``- [No negative comments]`` or ``*(No positive comments provided)*``. The parser
accepts all of these; placeholders mark an empty section and produce no item.

Placeholders and the released scorer. The authors' gold files contain such
placeholders too: in ``coling2020.json`` records 1317 and 1644 have the bullets
``- [No positive comments identified]``, ``- [No positive comments provided]`` and
``- [No negative comments provided]``, and records 889, 996, 1367 and 1566 an italic
line such as ``*(No positive comments provided)*``. The
released ``comment_evaluate.py`` keeps every item of 10 characters or more that is not
"none", so a placeholder that reached it would be scored as an evaluation item (one
more "positive" point: it shifts the sentiment distribution, enters Coverage's gold
set and the Human row's Relevance and Clarity). Its text-to-sections step is not
released. ``placeholders="drop"`` (default) removes them; ``placeholders="keep"``
treats them as ordinary items, the released scorer's behaviour on them.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import ConfigDict, Field

from noveval.metrics.novbench import SENTIMENTS, filter_items
from noveval.records import NoveltyEvaluation

__all__ = ["StructuredEvaluation", "parse_evaluation", "format_evaluation", "is_placeholder"]

_HEADER_RE = re.compile(
    r"^(?P<label>positive|neutral|negative)"
    r"(?:\s+novelty)?(?:\s+evaluations?|\s+comments?|\s+points?)?\s*:?\s*(?P<rest>.*)$",
    re.IGNORECASE,
)
_BULLET_RE = re.compile(r"^(?:[-*•+–—]|\d{1,2}[.)])(?:\s+|$)")
_DECOR = " \t*_#>`"
_RULE_RE = re.compile(r"^[-*_=]{3,}$")
_BARE_PLACEHOLDERS = {
    "",
    "none",
    "n/a",
    "na",
    "nil",
    "none identified",
    "none found",
    "none provided",
    "not applicable",
}


class StructuredEvaluation(NoveltyEvaluation):
    """A novelty evaluation sorted by sentiment (NovBench Section 3.1.3, Fig. 13), parsed from text.

    A :class:`~noveval.records.NoveltyEvaluation` plus how many section headers the text had.
    """

    model_config = ConfigDict(extra="ignore")

    found_headers: int = Field(
        default=0, description="How many of the three section headers the text contained."
    )

    def section(self, label: str) -> list[str]:
        """The items of one section (``"positive"``, ``"neutral"`` or ``"negative"``)."""
        return getattr(self, label)

    def labelled_items(self, *, filtered: bool = True) -> list[tuple[str, str]]:
        """``(sentiment, text)`` pairs in section order.

        Args:
            filtered: Drop items shorter than 10 characters or equal to "none"
                (:func:`noveval.metrics.novbench.filter_items`), as scoring does.
        """
        out: list[tuple[str, str]] = []
        for label in SENTIMENTS:
            items = self.section(label)
            for text in filter_items(items) if filtered else items:
                out.append((label, text))
        return out

    def counts(self) -> dict[str, int]:
        """Number of (unfiltered) items per section."""
        return {label: len(self.section(label)) for label in SENTIMENTS}

    def is_empty(self) -> bool:
        """True when no section has an item left after filtering."""
        return not self.labelled_items()


def _strip_decor(s: str) -> str:
    s = re.sub(r"</?(?:b|strong|em|i|p|li|ul)>", "", s, flags=re.IGNORECASE)
    return s.strip(_DECOR).strip()


def is_placeholder(text: str) -> bool:
    """True for bullet texts that only say "nothing here".

    Examples: ``None``, ``None.``, ``N/A``, ``[None]``, ``[No negative comments]``,
    ``(No positive comments were identified.)``, an empty string.
    """
    s = text.strip().strip("*_ ").strip()
    bare = s.strip(" .;:").lower()
    if bare in _BARE_PLACEHOLDERS:
        return True
    m = re.fullmatch(r"[\[(](.*)[\])]\.?", s, flags=re.DOTALL)
    if m:
        inner = m.group(1).strip(" *_.").lower()
        return inner in _BARE_PLACEHOLDERS or inner.startswith(("no ", "none"))
    return False


def _header(line: str) -> tuple[str, str] | None:
    core = _strip_decor(re.sub(r"^\d{1,2}[.)]\s+", "", line.strip()))
    m = _HEADER_RE.match(core)
    if not m:
        return None
    rest = m.group("rest").strip()
    # "Positive aspects of the method are ..." is prose, not a header: require
    # the header to be the whole line, or to be followed by a colon / a bullet.
    if rest:
        head_len = len(core) - len(m.group("rest"))
        if ":" not in core[:head_len] and not _BULLET_RE.match(rest):
            return None
        rest = _BULLET_RE.sub("", rest, count=1).strip()
    return m.group("label").lower(), _strip_decor(rest) if rest else ""


def parse_evaluation(text: str | None, *, placeholders: Literal["drop", "keep"] = "drop") -> StructuredEvaluation:
    """Parse structured evaluation text into its three sections.

    Lines before the first section header are ignored (model preambles). Inside a
    section each bullet (``-``, ``*``, ``•``, ``1.``) or non-empty plain line is one
    item; horizontal rules are skipped, and so are placeholders (:func:`is_placeholder`)
    unless ``placeholders="keep"``. A repeated header appends to the same section.

    Args:
        text: The evaluation text (``None`` is treated as empty).
        placeholders: ``"drop"`` (default): "nothing here" lines produce no item;
            ``"keep"``: they are items like any other (the released scorer keeps every
            item of 10 characters or more that is not "none"; see the module notes).

    Returns:
        The parsed evaluation; ``found_headers`` tells how many distinct section
        headers were seen (0 means the text did not follow the format at all).

    Raises:
        ValueError: unknown ``placeholders`` rule.
    """
    if placeholders not in ("drop", "keep"):
        raise ValueError(f"placeholders must be 'drop' or 'keep', got {placeholders!r}")
    drop = placeholders == "drop"
    sections: dict[str, list[str]] = {label: [] for label in SENTIMENTS}
    seen: set[str] = set()
    current: str | None = None
    for raw in (text or "").splitlines():
        line = raw.strip()
        if not line or _RULE_RE.match(line):
            continue
        head = _header(line)
        if head is not None:
            current, rest = head
            seen.add(current)
            if rest and not (drop and is_placeholder(rest)):
                sections[current].append(rest)
            continue
        if current is None:
            continue
        body = _BULLET_RE.sub("", line, count=1).strip()
        if not body or (drop and is_placeholder(body)):
            continue
        sections[current].append(body)
    return StructuredEvaluation(**sections, found_headers=len(seen))


def format_evaluation(evaluation: StructuredEvaluation, *, empty: str = "None") -> str:
    """Write an evaluation in the canonical NovBench text format.

    Each section gets its header line and ``- `` bullets; an empty section gets
    ``- None``. Newlines inside an item are replaced by spaces, so
    ``parse_evaluation(format_evaluation(e))`` returns the same items.

    Args:
        evaluation: The evaluation to write.
        empty: The placeholder written for an empty section.
    """
    blocks = []
    for label in SENTIMENTS:
        lines = [f"{label.capitalize()} Novelty Evaluations"]
        items = [" ".join(i.split()) for i in evaluation.section(label)]
        items = [i for i in items if i]
        lines += [f"- {i}" for i in items] or [f"- {empty}"]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"
