"""Loaders for the formats released with NovBench (Wu et al.).

* Benchmark records (``Final_data.json``-style, Section 3.1 / Fig. 2): ``id, title,
  abstract, keywords, decision, paper_novelty, review_novelty, output_format,
  retrieved_title, retrieved_abstract``. List fields may be JSON lists or
  Python-literal strings; some released strings contain unescaped apostrophes that
  :func:`ast.literal_eval` rejects, which :func:`parse_list_field` recovers.
* Labelled introduction sentences for stage 1 (Appendix A): CSV
  ``paper_id, sentence[, label]``.
* Labelled review sentences for stage 2 (Appendix B): ``[sentence, "NOVELTY"]``
  pairs, ``{text, labels}`` objects, or CSV/JSONL ``sentence|text[, label]``.
* The ReviewAdvisor novelty-sentence pool used by the RAG extraction prompt.
* A retrieval corpus of papers (JSONL with ``title`` and ``abstract``) for RAG
  generation (Appendix E).
"""

from __future__ import annotations

import ast
import csv
import io
import json
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from noveval.benchmarks._contract import sample_file
from noveval.benchmarks.novbench.evaluation_text import StructuredEvaluation, parse_evaluation
from noveval.errors import InputError
from noveval.io import _decode, iter_jsonl, read_bytes, read_json, read_records, require_unique_ids
from noveval.records import Paper

__all__ = [
    "SAMPLE",
    "NovBenchRecord",
    "IntroSentence",
    "ReviewSentence",
    "CorpusPaper",
    "parse_list_field",
    "load_records",
    "records_source",
    "load_intro_sentences",
    "load_review_sentences",
    "load_sentence_pool",
    "load_corpus",
]


def _unescape(body: str) -> str:
    return re.sub(r"\\(['\"\\])", r"\1", body).replace("\\n", "\n").replace("\\t", "\t")


def _tolerant_list(text: str) -> list[str]:
    """Split ``['a', "b's", 'c's']`` where quotes inside items are not escaped.

    An item opens with a quote character ``q`` and closes at the first ``q`` that
    is followed by ``, <quote>`` or by the closing ``]``; a last item whose closing
    quote is missing runs to the ``]``.
    """
    s = text.strip()
    if not (s.startswith("[") and s.endswith("]")):
        raise ValueError("not a list literal")
    s = s[1:-1].strip()
    items: list[str] = []
    pos = 0
    while pos < len(s):
        q = s[pos]
        if q not in "'\"":
            raise ValueError(f"expected a quoted item at offset {pos}")
        end_re = re.compile(re.escape(q) + r"\s*(?:,\s*(?=['\"])|$)")
        m = end_re.search(s, pos + 1)
        if m is None:  # released data has a last item missing its closing quote
            body, end = s[pos + 1 :], len(s)
        else:
            body, end = s[pos + 1 : m.start()], m.end()
        try:
            items.append(ast.literal_eval(q + body + q))
        except (ValueError, SyntaxError):
            items.append(_unescape(body))
        pos = end
    return items


def parse_list_field(value: Any) -> list[str]:
    """Read a list-of-strings field stored as a list, JSON text or Python literal.

    Args:
        value: A list, ``None``, or a string holding a JSON / Python list literal.
            A plain string that is not a list becomes a one-item list.

    Returns:
        The strings (non-string items are converted with ``str``).

    Raises:
        ValueError: the string looks like a list but cannot be read.
    """
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return [v if isinstance(v, str) else str(v) for v in value]
    if not isinstance(value, str):
        raise ValueError(f"expected a list of strings, got {type(value).__name__}")
    s = value.strip()
    if not s:
        return []
    if not s.startswith("["):
        return [s]
    for parse in (json.loads, ast.literal_eval):
        try:
            out = parse(s)
        except (ValueError, SyntaxError, RecursionError):
            continue
        if isinstance(out, list):
            return [v if isinstance(v, str) else str(v) for v in out]
    return _tolerant_list(s)


class NovBenchRecord(Paper):
    """One NovBench paper (Section 3.1, Fig. 2): a :class:`~noveval.records.Paper` with its novelty texts."""

    model_config = ConfigDict(extra="ignore")

    id: str = Field(description="Paper id.")
    title: str = Field(default="", description="Paper title.")
    abstract: str = Field(default="", description="Paper abstract (RAG query, paper-type input).")
    keywords: list[str] = Field(default_factory=list, description="Author keywords, if any.")
    decision: str | None = Field(default=None, description="Venue decision, if known.")
    paper_novelty: list[str] = Field(
        description="Novelty-description sentences from the introduction (the model input)."
    )
    review_novelty: list[str] = Field(
        default_factory=list, description="Raw novelty-related review sentences."
    )
    output_format: str | None = Field(
        default=None, description="Gold structured novelty evaluation (Positive/Neutral/Negative)."
    )
    retrieved_title: list[str] = Field(default_factory=list, description="RAG titles (top-5).")
    retrieved_abstract: list[str] = Field(
        default_factory=list, description="RAG abstracts, aligned with ``retrieved_title``."
    )

    @field_validator("id", mode="before")
    @classmethod
    def _id_to_str(cls, v: Any) -> Any:
        return str(v) if isinstance(v, int) else v

    @field_validator(
        "keywords",
        "paper_novelty",
        "review_novelty",
        "retrieved_title",
        "retrieved_abstract",
        mode="before",
    )
    @classmethod
    def _lists(cls, v: Any) -> list[str]:
        return parse_list_field(v)

    @field_validator("paper_novelty")
    @classmethod
    def _non_empty(cls, v: list[str]) -> list[str]:
        v = [s.strip() for s in v if s and s.strip()]
        if not v:
            raise ValueError("needs at least one novelty-description sentence")
        return v

    @property
    def gold(self) -> StructuredEvaluation | None:
        """The parsed gold evaluation, or ``None`` when the record has none."""
        return parse_evaluation(self.output_format) if self.output_format else None

    @property
    def retrieved(self) -> list[tuple[str, str]]:
        """``(title, abstract)`` pairs shipped with the record (may be empty)."""
        return list(zip(self.retrieved_title, self.retrieved_abstract, strict=False))


def load_records(path: str | Path) -> list[NovBenchRecord]:
    """Load NovBench records from a JSON array or JSONL file (``.gz`` accepted).

    Raises:
        InputError: unreadable file, bad JSON, a missing/invalid field (with line),
            or duplicate ids.
    """
    recs = read_records(path, NovBenchRecord)
    require_unique_ids(path, (r.id for r in recs))
    return recs


SAMPLE = ("novbench", "records.json")
"""The shipped sample: 4 invented records in the released coling2020.json layout."""


def records_source(data: str | Path | None) -> str | Path:
    """The records a run answers: ``data``, or the shipped sample when None."""
    if data is not None:
        return data

    return sample_file(*SAMPLE)


class IntroSentence(BaseModel):
    """One introduction sentence for stage-1 extraction (Appendix A)."""

    paper_id: str
    index: int = Field(description="Position of the sentence within its paper (0-based).")
    sentence: str
    label: int | None = Field(default=None, description="1 = novelty description, 0 = not.")


class ReviewSentence(BaseModel):
    """One review sentence for stage-2 extraction (Appendix B)."""

    id: str
    sentence: str
    label: int | None = Field(default=None, description="1 = novelty evaluation, 0 = not.")


_TRUE = {"1", "yes", "true", "novelty", "y"}
_FALSE = {"0", "no", "false", "n", "non-novelty", "non_novelty"}


def _label(path: Path, line: int, field: str, raw: Any) -> int | None:
    if raw is None:
        return None
    s = str(raw).strip().lower()
    if s == "":
        return None
    if s in _TRUE:
        return 1
    if s in _FALSE:
        return 0
    raise InputError(path, line, field, f"label must be 0/1 (or yes/no), got {raw!r}")


def _read_csv(path: Path) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    text = _decode(path, read_bytes(path))
    if not text.strip():
        raise InputError(path, None, None, "file is empty")
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = [h.strip() for h in (reader.fieldnames or [])]
    reader.fieldnames = header
    rows = []
    try:
        for row in reader:
            rows.append((reader.line_num, row))
    except csv.Error as e:
        raise InputError(path, reader.line_num, None, f"invalid CSV: {e}") from e
    return header, rows


def load_intro_sentences(path: str | Path) -> list[IntroSentence]:
    """Load a stage-1 CSV ``paper_id, sentence[, label]`` (Appendix A).

    Sentences keep file order; ``index`` counts sentences within each paper so that
    the context strategy can take neighbours.

    Raises:
        InputError: missing columns, empty sentence, or a label that is not 0/1.
    """
    p = Path(path)
    header, rows = _read_csv(p)
    for col in ("paper_id", "sentence"):
        if col not in header:
            raise InputError(p, 1, col, f"missing column (have {header})")
    out: list[IntroSentence] = []
    counters: dict[str, int] = {}
    for line, row in rows:
        pid = (row.get("paper_id") or "").strip()
        sent = (row.get("sentence") or "").strip()
        if not pid:
            raise InputError(p, line, "paper_id", "empty paper id")
        if not sent:
            raise InputError(p, line, "sentence", "empty sentence")
        label = _label(p, line, "label", row.get("label")) if "label" in header else None
        idx = counters.get(pid, 0)
        counters[pid] = idx + 1
        out.append(IntroSentence(paper_id=pid, index=idx, sentence=sent, label=label))
    if not out:
        raise InputError(p, None, None, "no sentences")
    return out


def _review_rows_from_json(p: Path, data: Any) -> list[ReviewSentence]:
    if not isinstance(data, list):
        raise InputError(p, None, None, "expected a JSON list of sentences")
    out = []
    for i, item in enumerate(data):
        label: int | None
        if isinstance(item, list | tuple) and len(item) == 2 and isinstance(item[0], str):
            text, tag = item
            label = 1 if str(tag).strip().upper() == "NOVELTY" else 0
        elif isinstance(item, dict):
            text = item.get("text", item.get("sentence"))
            if not isinstance(text, str):
                raise InputError(p, None, f"[{i}].text", "missing sentence text")
            if "labels" in item:
                labels = item["labels"] or []
                if isinstance(labels, str):
                    labels = [labels]
                label = int(any("novel" in str(x).lower() for x in labels))
            else:
                label = _label(p, 0, f"[{i}].label", item.get("label"))
        else:
            raise InputError(p, None, f"[{i}]", "expected [sentence, tag] or {text, labels}")
        if not text.strip():
            raise InputError(p, None, f"[{i}]", "empty sentence")
        out.append(ReviewSentence(id=f"{p.stem}:{i}", sentence=text.strip(), label=label))
    return out


def load_review_sentences(*paths: str | Path) -> list[ReviewSentence]:
    """Load stage-2 review sentences from one or more files (Appendix B).

    Accepted formats, by content:

    * JSON list of ``[sentence, "NOVELTY"]`` pairs (label 1 when the tag is NOVELTY);
    * JSON list of ``{"text": ..., "labels": [...]}`` (label 1 when an aspect label
      mentions novelty; the released non-novelty file never does);
    * CSV or JSONL with ``sentence`` (or ``text``) and optional ``label`` (0/1).

    Raises:
        InputError: unreadable file or an entry that fits none of the formats.
    """
    out: list[ReviewSentence] = []
    for path in paths:
        p = Path(path)
        name = p.name[:-3] if p.name.endswith(".gz") else p.name
        if name.endswith(".csv"):
            header, rows = _read_csv(p)
            col = "sentence" if "sentence" in header else "text" if "text" in header else None
            if col is None:
                raise InputError(p, 1, "sentence", f"missing column (have {header})")
            for line, row in rows:
                text = (row.get(col) or "").strip()
                if not text:
                    raise InputError(p, line, col, "empty sentence")
                label = _label(p, line, "label", row.get("label")) if "label" in header else None
                rid = (row.get("id") or "").strip() or f"{p.stem}:{line}"
                out.append(ReviewSentence(id=rid, sentence=text, label=label))
        elif name.endswith(".jsonl"):
            for line, obj in iter_jsonl(p):
                if not isinstance(obj, dict):
                    raise InputError(p, line, None, "expected a JSON object")
                raw_text = obj.get("sentence", obj.get("text"))
                if not isinstance(raw_text, str) or not raw_text.strip():
                    raise InputError(p, line, "sentence", "missing or empty sentence")
                label = _label(p, line, "label", obj.get("label"))
                rid = str(obj.get("id") or f"{p.stem}:{line}")
                out.append(ReviewSentence(id=rid, sentence=raw_text.strip(), label=label))
        else:
            out.extend(_review_rows_from_json(p, read_json(p)))
    if not out:
        raise InputError(paths[0] if paths else None, None, None, "no review sentences")
    return out


def load_sentence_pool(path: str | Path) -> list[str]:
    """Load a pool of labelled novelty sentences (e.g. the ReviewAdvisor file).

    Accepts a JSON list of strings, of ``[sentence, tag]`` pairs (only NOVELTY-tagged
    pairs are kept) or of ``{"text": ...}`` objects, or a text file with one
    sentence per line.
    """
    p = Path(path)
    name = p.name[:-3] if p.name.endswith(".gz") else p.name
    if name.endswith(".txt"):
        text = _decode(p, read_bytes(p))
        return [s.strip() for s in text.splitlines() if s.strip()]
    data = read_json(p)
    if not isinstance(data, list):
        raise InputError(p, None, None, "expected a JSON list")
    out = []
    for i, item in enumerate(data):
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, list | tuple) and item and isinstance(item[0], str):
            if len(item) < 2 or str(item[1]).upper() == "NOVELTY":
                out.append(item[0])
        elif isinstance(item, dict) and isinstance(item.get("text"), str):
            out.append(item["text"])
        else:
            raise InputError(p, None, f"[{i}]", "expected a sentence")
    out = [s.strip() for s in out if s and s.strip()]
    if not out:
        raise InputError(p, None, None, "empty sentence pool")
    return out


class CorpusPaper(Paper):
    """A paper of the RAG retrieval corpus (Appendix E): a :class:`~noveval.records.Paper` with year, field, venue."""

    model_config = ConfigDict(extra="ignore")

    id: str = Field(default="", description="Corpus id; empty when the file has none.")
    year: int | None = Field(default=None, description="Publication year.")
    field: str | None = Field(default=None, description="Research field (NLP, CV, ML, ...).")
    venue: str | None = Field(default=None, description="Venue name.")

    @field_validator("id", mode="before")
    @classmethod
    def _id_to_str(cls, v: Any) -> Any:
        return "" if v is None else str(v)

    @field_validator("abstract", mode="before")
    @classmethod
    def _abstract(cls, v: Any) -> Any:
        return "" if v is None else v


def _read_corpus(p: Path) -> list[CorpusPaper]:
    return read_records(p, CorpusPaper)


def load_corpus(
    path: str | Path,
    *,
    field: str | None = None,
    year_range: tuple[int, int] | None = None,
    limit: int | None = None,
) -> list[CorpusPaper]:
    """Load a retrieval corpus (JSON/JSONL, ``.gz`` ok) with optional filters.

    Args:
        path: The corpus file (e.g. ``corpus/papers.jsonl.gz``).
        field: Keep only papers whose ``field`` equals this (e.g. ``"NLP"``).
        year_range: Keep papers with ``lo <= year <= hi``.
        limit: Keep at most this many (after filtering, in file order).

    Raises:
        InputError: unreadable file, or no paper left after filtering.
    """
    papers = _read_corpus(Path(path))
    if field is not None:
        papers = [x for x in papers if (x.field or "").lower() == field.lower()]
    if year_range is not None:
        lo, hi = year_range
        papers = [x for x in papers if x.year is not None and lo <= x.year <= hi]
    papers = [x for x in papers if x.title.strip()]
    if limit is not None:
        papers = papers[:limit]
    if not papers:
        raise InputError(path, None, None, "no corpus paper left after filtering")
    return papers
