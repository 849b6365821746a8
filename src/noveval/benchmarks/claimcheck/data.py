"""CLAIMCHECK records, the annotation file format, and loaders for the shared data.

The paper's annotations (§3) cannot be read from here: the submission promises a
release on acceptance, and the format of the published repository (JHU-CLSP/CLAIMCHECK)
is not visible, so noveval defines its own format (docs/claimcheck.md maps the paper's
fields onto it, one by one). An **annotation file** is JSON Lines (or a JSON array; ``.gz`` allowed) where
each record is *one annotator's annotation of one (paper, review) pair*::

    {
      "paper_id": "004uTlSufe",          # id of the paper (fulltext corpus id)
      "review_index": 0,                 # index into the paper's ``reviews`` list
      "review_id": "004uTlSufe#0",       # optional; default "<paper_id>#<review_index>"
      "review_text": "...",              # optional; else read from the shared data
      "annotator": "A1",
      "claims": [                        # candidate claims shown to the annotator
        {"id": "c1", "start": 1032, "end": 1187},      # offsets into the full text
        {"id": "c2", "text": "Our method ..."}         # or the text itself
      ],
      "weaknesses": [                    # WI + CA + WL for this review
        {"id": "w1",
         "start": 812, "end": 1040,      # WI span: character offsets into review_text
         "text": "...",                  # optional; checked against the offsets
         "groundedness": 4,              # WI, 1-5 (Appendix B.3)
         "target_claims": ["c1"],        # CA: candidate ids (<= 3 incl. custom)
         "custom_claim": {"text": "..."},# CA: at most one, copied from the paper
         "objectivity": 3, "agreement": 4,          # WL, ordinal 1-5 (optional)
         "types": ["insufficient", "novelty"]}      # WL, multi-label (optional)
      ]
    }

Rules (violations raise :class:`~noveval.errors.InputError` naming file, line and
field): offsets are half-open ``[start, end)`` and must lie inside the text; a span
given both as offsets and ``text`` must match after whitespace normalisation; target
claims must name candidate ids; at most three targets including the custom claim;
``types`` come from :data:`WEAKNESS_TYPES` and, once any WL label is given, at least one
type is required. A review annotated with no weakness has ``"weaknesses": []``.
Texts left out of the file are filled from the shared NeurIPS 2025 full texts
(``fulltext/neurips-2025-fulltext.jsonl.gz``), so a gold file can hold offsets only.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from noveval.data.folders import data_folder
from noveval.errors import InputError
from noveval.hfdata import is_hf_source
from noveval.io import (
    _decode,
    _json_array_items,
    iter_jsonl,
    read_bytes,
    read_json,
    read_records,
    validation_field,
)
from noveval.records import Claim, Paper, Weakness

__all__ = [
    "WEAKNESS_TYPES",
    "WeaknessType",
    "ClaimItem",
    "CustomClaim",
    "WeaknessAnnotation",
    "ReviewAnnotation",
    "PaperText",
    "FULLTEXT_PATH",
    "iter_fulltext_papers",
    "load_fulltext_papers",
    "load_annotations",
    "resolve_annotations",
    "normalize_ws",
    "load_papers_file",
    "sample_dir",
    "find_span",
    "align_span",
    "ALIGN_THRESHOLD",
    "ALIGN_MIN_CHARS",
]

WEAKNESS_TYPES: tuple[str, ...] = (
    "insufficient",
    "contradictory",
    "novelty",
    "clarity",
    "related_work",
    "other",
)
"""Weakness type labels (Appendix B.3), in the column order of Tables 2 and 5."""

WeaknessType = Literal["insufficient", "contradictory", "novelty", "clarity", "related_work", "other"]

FULLTEXT_PATH = Path("fulltext") / "neurips-2025-fulltext.jsonl.gz"


_FORBID = ConfigDict(extra="forbid")
"""Annotation records reject unknown fields (a misspelt label must not pass silently)."""


class _Strict(BaseModel):
    model_config = _FORBID


class ClaimItem(Claim):
    """A candidate claim: a :class:`~noveval.records.Claim` with its id in the record."""

    model_config = _FORBID

    id: str = Field(description="Claim id, unique within the record (c1, c2, ...).")


class CustomClaim(Claim):
    """A target claim copied by the annotator (or model) from the paper (§3.3 CA)."""

    model_config = _FORBID


class WeaknessAnnotation(Weakness):
    """One claim-related weakness with its WI, CA and WL labels (§3.3).

    A :class:`~noveval.records.Weakness` (span and WI groundedness) plus its id and the
    CA and WL labels.
    """

    model_config = _FORBID

    id: str = Field(description="Weakness id, unique within the record.")
    target_claims: list[str] = Field(default_factory=list, description="CA: candidate claim ids.")
    custom_claim: CustomClaim | None = Field(default=None, description="CA: custom target claim.")
    objectivity: int | None = Field(default=None, ge=1, le=5, description="WL objectivity 1-5.")
    agreement: int | None = Field(default=None, ge=1, le=5, description="WL agreement 1-5.")
    types: list[WeaknessType] = Field(default_factory=list, description="WL weakness types.")

    @field_validator("types")
    @classmethod
    def _unique_types(cls, v: list[str]) -> list[str]:
        if len(set(v)) != len(v):
            raise ValueError("types are repeated")
        return v

    @property
    def labeled(self) -> bool:
        """True when any WL label is present."""
        return self.objectivity is not None or self.agreement is not None or bool(self.types)


class ReviewAnnotation(_Strict):
    """One annotator's annotation of one (paper, review) pair — one file record."""

    paper_id: str = Field(description="Paper id (fulltext corpus id).")
    review_index: int | None = Field(default=None, ge=0, description="Index in the paper's reviews.")
    review_id: str | None = Field(default=None, description="Default '<paper_id>#<review_index>'.")
    review_text: str | None = Field(default=None, description="Review text; else from shared data.")
    annotator: str = Field(description="Annotator name (or model id).")
    claims: list[ClaimItem] = Field(default_factory=list, description="Candidate claims.")
    weaknesses: list[WeaknessAnnotation] = Field(default_factory=list, description="Weaknesses.")

    @property
    def key(self) -> str:
        """The review id used to align annotators."""
        return self.review_id or f"{self.paper_id}#{self.review_index}"

    def claim_text(self, claim_id: str) -> str:
        """Text of a candidate claim by id (after resolution)."""
        for c in self.claims:
            if c.id == claim_id:
                return c.text or ""
        raise KeyError(claim_id)

    def target_texts(self, weakness: WeaknessAnnotation) -> list[str]:
        """Target-claim texts of a weakness, candidates then the custom claim (§3.4 CA F1)."""
        out = [self.claim_text(cid) for cid in weakness.target_claims]
        if weakness.custom_claim is not None and weakness.custom_claim.text:
            out.append(weakness.custom_claim.text)
        return out


class PaperText(Paper):
    """A :class:`~noveval.records.Paper` with full text and its review texts (shared NeurIPS 2025 file)."""

    fulltext: str = Field(default="", description="Full text (Markdown).")
    reviews: list[str] = Field(default_factory=list, description="Review texts, in file order.")


# ------------------------------------------------------------------ text helpers
def normalize_ws(text: str) -> str:
    """Collapse whitespace runs to one space and strip (the span-matching rule)."""
    return " ".join(text.split())


def _norm_with_map(text: str) -> tuple[str, list[int]]:
    """Whitespace-normalised text plus, for each of its chars, the source index."""
    out: list[str] = []
    index: list[int] = []
    pending_space = False
    for i, ch in enumerate(text):
        if ch.isspace():
            pending_space = bool(out)
            continue
        if pending_space:
            out.append(" ")
            index.append(i - 1)
            pending_space = False
        out.append(ch)
        index.append(i)
    return "".join(out), index


def find_span(document: str, span: str, *, start_at: int = 0) -> tuple[int, int] | None:
    """Locate ``span`` in ``document`` after whitespace normalisation of both.

    Matching is case-sensitive and exact up to whitespace: runs of spaces, tabs and
    newlines are equivalent to one space and leading/trailing whitespace is ignored.

    Args:
        document: The text to search (paper full text or review).
        span: The text a model or annotator copied.
        start_at: Search from this character offset of ``document``.

    Returns:
        Half-open ``(start, end)`` offsets into ``document`` of the first match at or
        after ``start_at``, or ``None`` when ``span`` is not a substring (or is empty).
    """
    needle = normalize_ws(span)
    if not needle:
        return None
    hay, index = _norm_with_map(document)
    pos = 0
    while True:
        k = hay.find(needle, pos)
        if k < 0:
            return None
        start = index[k]
        if start >= start_at:
            return start, index[k + len(needle) - 1] + 1
        pos = k + 1


ALIGN_THRESHOLD = 85.0
"""Least similarity (0-100) for a fuzzy alignment to count (:func:`align_span`)."""

ALIGN_MIN_CHARS = 20
"""Shortest passage (whitespace-normalised characters) that may be aligned fuzzily."""


def align_span(
    document: str,
    span: str,
    *,
    threshold: float = ALIGN_THRESHOLD,
    min_chars: int = ALIGN_MIN_CHARS,
) -> tuple[int, int, float] | None:
    """Align a near-verbatim ``span`` to the stretch of ``document`` it was copied from.

    For passages a model was asked to copy but did not copy exactly. Both texts are
    whitespace-normalised; :func:`rapidfuzz.fuzz.partial_ratio_alignment` finds the
    window of ``document`` most similar to ``span``; the window is widened to whole
    words and each end may move by up to three words to where the similarity to
    ``span`` -- ``rapidfuzz.fuzz.ratio``, normalised Indel similarity x 100,
    case-sensitive -- is highest. The alignment counts when that similarity is at
    least ``threshold``. With the default 85, changing two words of a thirteen-word
    sentence still aligns (about 91), a reformulation does not (about 75 and lower).

    Args:
        document: The text the span should come from (a review, a paper).
        span: The model's passage.
        threshold: Least similarity in [0, 100]; 100 accepts exact copies only.
        min_chars: Passages shorter than this (after normalisation) are not aligned:
            a few words match somewhere by chance.

    Returns:
        ``(start, end, similarity)`` with half-open offsets into ``document``, or
        ``None`` when no window is similar enough (or ``span`` is too short or longer
        than ``document``).
    """
    from rapidfuzz import fuzz

    needle = normalize_ws(span)
    hay, index = _norm_with_map(document)
    if len(needle) < min_chars or len(needle) > len(hay):
        return None
    found = fuzz.partial_ratio_alignment(needle, hay)
    if found is None:
        return None
    s, e = found.dest_start, found.dest_end
    while s > 0 and hay[s - 1].isalnum():
        s -= 1
    while e < len(hay) and hay[e].isalnum():
        e += 1
    # the window has the passage's length; move each end by up to three word boundaries
    # (with or without punctuation) to where it fits the passage best (a passage with an
    # extra word would otherwise pull in a neighbouring word)
    tokens = [(m.start(), m.end()) for pat in (r"\S+", r"\w+") for m in re.finditer(pat, hay)]
    starts = sorted({a for a, _ in tokens})
    ends = sorted({b for _, b in tokens})
    if not starts:
        return None
    i = min(range(len(starts)), key=lambda k: abs(starts[k] - s))
    j = min(range(len(ends)), key=lambda k: abs(ends[k] - e))
    best = (-1.0, s, e)
    for a in starts[max(0, i - 3): i + 4]:
        for b in ends[max(0, j - 3): j + 4]:
            if b > a:
                r = float(fuzz.ratio(needle, hay[a:b]))
                if r > best[0]:
                    best = (r, a, b)
    score, s, e = best
    if score < threshold:
        return None
    return index[s], index[e - 1] + 1, score


# --------------------------------------------------------------- shared data
def _open_text(path: Path) -> Iterator[str]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:  # type: ignore[operator]
        yield from fh


def iter_fulltext_papers(
    data_dir: str | Path, *, ids: Iterable[str] | None = None
) -> Iterator[PaperText]:
    """Stream papers (full text + review texts) from the shared NeurIPS 2025 file.

    Args:
        data_dir: The shared data folder, or the ``.jsonl.gz`` file itself.
        ids: Only yield these paper ids (in file order).

    Yields:
        :class:`PaperText` records.

    Raises:
        InputError: When the file is missing or a line is not valid JSON.
    """
    path = Path(data_dir)
    if path.is_dir():
        path = path / FULLTEXT_PATH
    if not path.exists():
        raise InputError(path, None, None, "full-text file not found")
    wanted = set(ids) if ids is not None else None
    for n, line in enumerate(_open_text(path), 1):
        if wanted is not None and not wanted:
            return
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(path, n, None, f"invalid JSON: {e.msg}") from None
        if wanted is not None:
            if row.get("id") not in wanted:
                continue
            wanted.discard(row["id"])
        reviews = [r.get("text", "") for r in row.get("reviews") or []]
        yield PaperText(
            id=row["id"],
            title=row.get("title", ""),
            abstract=row.get("abstract", ""),
            fulltext=row.get("fulltext_markdown") or "",
            reviews=reviews,
        )


def load_fulltext_papers(
    data_dir: str | Path, *, ids: Iterable[str] | None = None, limit: int | None = None
) -> list[PaperText]:
    """Load papers from the shared full-text file (see :func:`iter_fulltext_papers`).

    Args:
        data_dir: The shared data folder or the file.
        ids: Only these paper ids.
        limit: Stop after this many papers.

    Returns:
        The papers, in file order.
    """
    out: list[PaperText] = []
    for p in iter_fulltext_papers(data_dir, ids=ids):
        out.append(p)
        if limit is not None and len(out) >= limit:
            break
    return out


# ----------------------------------------------------------- annotation files
def _resolve_span(
    text: str | None,
    start: int | None,
    end: int | None,
    document: str | None,
    where: tuple[Path, int | None, str],
) -> str:
    path, line, fld = where
    if (start is None) != (end is None):
        raise InputError(path, line, fld, "give both start and end, or neither")
    if start is None:
        if not text:
            raise InputError(path, line, fld, "needs text or start/end offsets")
        return text
    if document is None:
        raise InputError(path, line, fld, "offsets given but the source text is unavailable "
                         "(add the text or pass the shared data folder)")
    if not (0 <= start < end <= len(document)):  # type: ignore[operator]
        raise InputError(path, line, fld, f"offsets [{start}, {end}) outside text of "
                         f"{len(document)} characters")
    cut = document[start:end]
    if text is not None and normalize_ws(text) != normalize_ws(cut):
        raise InputError(path, line, fld, "text does not match the text at its offsets")
    return cut


def resolve_annotations(
    records: list[tuple[int | None, ReviewAnnotation]],
    *,
    path: Path,
    papers: dict[str, PaperText] | None = None,
) -> list[ReviewAnnotation]:
    """Validate cross-references and fill texts from offsets (see module docstring).

    Args:
        records: ``(line, record)`` pairs as read from ``path``.
        path: The file, for error messages.
        papers: Papers by id supplying full texts and review texts.

    Returns:
        Records with every ``text`` / ``review_text`` filled.

    Raises:
        InputError: On the first violation, naming file, line and field.
    """
    out = []
    for line, rec in records:
        paper = (papers or {}).get(rec.paper_id)
        review_text = rec.review_text
        if review_text is None:
            if rec.review_index is None:
                raise InputError(path, line, "review_text", "give review_text or review_index")
            if paper is None:
                raise InputError(path, line, "paper_id", f"paper {rec.paper_id!r} not found; "
                                 "give review_text or pass the shared data folder")
            if rec.review_index >= len(paper.reviews):
                raise InputError(path, line, "review_index", f"paper has {len(paper.reviews)} reviews")
            review_text = paper.reviews[rec.review_index]
        fulltext = paper.fulltext if paper is not None else None
        claims = []
        seen: set[str] = set()
        for i, c in enumerate(rec.claims):
            if c.id in seen:
                raise InputError(path, line, f"claims.{i}.id", f"duplicate claim id {c.id!r}")
            seen.add(c.id)
            txt = _resolve_span(c.text, c.start, c.end, fulltext, (path, line, f"claims.{i}"))
            claims.append(c.model_copy(update={"text": txt}))
        weaknesses = []
        wseen: set[str] = set()
        for i, w in enumerate(rec.weaknesses):
            fld = f"weaknesses.{i}"
            if w.id in wseen:
                raise InputError(path, line, f"{fld}.id", f"duplicate weakness id {w.id!r}")
            wseen.add(w.id)
            txt = _resolve_span(w.text, w.start, w.end, review_text, (path, line, fld))
            for cid in w.target_claims:
                if cid not in seen:
                    raise InputError(path, line, f"{fld}.target_claims", f"unknown claim id {cid!r}")
            if len(set(w.target_claims)) != len(w.target_claims):
                raise InputError(path, line, f"{fld}.target_claims", "repeated claim id")
            n_targets = len(w.target_claims) + (w.custom_claim is not None)
            if n_targets > 3:
                raise InputError(path, line, f"{fld}.target_claims",
                                 f"{n_targets} target claims; at most 3 including the custom one")
            custom = w.custom_claim
            if custom is not None:
                ctext = _resolve_span(custom.text, custom.start, custom.end, fulltext,
                                      (path, line, f"{fld}.custom_claim"))
                custom = custom.model_copy(update={"text": ctext})
            if w.labeled and not w.types:
                raise InputError(path, line, f"{fld}.types", "at least one weakness type is required")
            weaknesses.append(w.model_copy(update={"text": txt, "custom_claim": custom}))
        out.append(rec.model_copy(update={"review_text": review_text, "claims": claims,
                                          "weaknesses": weaknesses}))
    return out


def _read_with_lines(path: Path) -> list[tuple[int | None, object]]:
    if is_hf_source(path):
        return list(iter_jsonl(path))
    name = path.name[:-3] if path.name.endswith(".gz") else path.name
    text = _decode(path, read_bytes(path))
    if not text.strip():
        raise InputError(path, None, None, "file is empty")
    if name.endswith(".jsonl") or (text.lstrip().startswith("{") and "\n{" in text.strip()):
        rows: list[tuple[int | None, object]] = list(iter_jsonl(path))
    elif text.lstrip().startswith("{"):
        rows = [(1, read_json(path))]
    else:
        rows = list(_json_array_items(path, text))
    if not rows:
        raise InputError(path, None, None, "no records")
    return rows


def load_annotations(
    path: str | Path,
    *,
    data_dir: str | Path | None = None,
    papers: dict[str, PaperText] | None = None,
) -> list[ReviewAnnotation]:
    """Read and validate a CLAIMCHECK annotation file (format in the module docstring).

    Args:
        path: ``.json`` (object or list) or ``.jsonl`` (``.gz`` allowed).
        data_dir: Shared data folder used to fill texts given only as offsets.
        papers: Already-loaded papers by id (skips reading ``data_dir``).

    Returns:
        Resolved :class:`ReviewAnnotation` records in file order.

    Raises:
        InputError: Any schema or cross-reference violation (nothing is written).
    """
    p = Path(path)
    parsed: list[tuple[int | None, ReviewAnnotation]] = []
    for k, (line, row) in enumerate(_read_with_lines(p)):
        if not isinstance(row, dict):
            raise InputError(p, line, f"[{k}]", "expected a JSON object")
        try:
            parsed.append((line, ReviewAnnotation.model_validate(row)))
        except ValidationError as e:
            fld, msg = validation_field(e)
            raise InputError(p, line, fld, msg) from None
    keys = [(r.annotator, r.key) for _, r in parsed]
    for (line, rec), key in zip(parsed, keys, strict=True):
        if keys.count(key) > 1:
            raise InputError(p, line, "annotator", f"{rec.annotator!r} annotated {rec.key!r} twice")
    needs_papers = any(
        r.review_text is None
        or any(c.text is None or c.start is not None for c in r.claims)
        or any(w.custom_claim is not None and w.custom_claim.start is not None for w in r.weaknesses)
        for _, r in parsed
    )
    if papers is None and needs_papers:
        root = data_folder([FULLTEXT_PATH], data_dir)
        if root is not None:
            ids = {r.paper_id for _, r in parsed}
            papers = {pp.id: pp for pp in iter_fulltext_papers(root, ids=ids)}
    return resolve_annotations(parsed, path=p, papers=papers)


def load_papers_file(path: str | Path) -> dict[str, PaperText]:
    """Read papers (``id, title, abstract, fulltext, reviews[str]``) from JSON/JSONL.

    This is the format of the shipped sample and of user-supplied papers that are not
    in the shared NeurIPS 2025 file.

    Args:
        path: ``.json`` list or ``.jsonl`` (``.gz`` allowed).

    Returns:
        Papers by id, in file order.
    """
    return {p.id: p for p in read_records(path, PaperText)}


def sample_dir() -> Path:
    """Folder of the shipped demo sample (a made-up paper, review and gold file)."""
    return Path(__file__).resolve().parents[2] / "samples" / "claimcheck"
