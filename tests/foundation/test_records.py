"""One vocabulary of records: every system record extends a ``noveval.records`` type.

Issue 15, item 5. The "before" values of the round trips are written by hand from the
shipped sample lines (what each old class produced: its declared fields with their
defaults, extras kept or dropped as its config said), not by importing old code.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from pydantic import BaseModel, ValidationError

from noveval import records
from noveval.benchmarks.claimcheck.data import ClaimItem, CustomClaim, PaperText, WeaknessAnnotation
from noveval.benchmarks.claimcheck.items import WeaknessItem
from noveval.benchmarks.focus.data import (
    FocusPaper,
    FocusPoint,
    FocusReview,
    load_papers,
    points_from_sections,
)
from noveval.benchmarks.novbench.data import CorpusPaper, NovBenchRecord, load_records
from noveval.benchmarks.novbench.evaluation_text import StructuredEvaluation
from noveval.benchmarks.pairs.data import NeurIPSPaper, NeurIPSReview
from noveval.benchmarks.retrieval.gold import GoldPaper
from noveval.benchmarks.rinobench.construct import IdeaReply, NoveltyReview, ReviewedPaper
from noveval.benchmarks.validate.data import RatedPaper

SRC = Path(records.__file__).resolve().parent
SAMPLES = SRC / "samples"

# (system record, the records.py type it extends) -- the list a new system record joins.
SYSTEM_RECORDS: list[tuple[type[BaseModel], type[BaseModel]]] = [
    (FocusPaper, records.Paper),
    (FocusReview, records.Review),
    (FocusPoint, records.ReviewPoint),
    (NovBenchRecord, records.Paper),
    (CorpusPaper, records.Paper),
    (StructuredEvaluation, records.NoveltyEvaluation),
    (NeurIPSPaper, records.Paper),
    (NeurIPSReview, records.Review),
    (ReviewedPaper, records.Paper),
    (NoveltyReview, records.Review),
    (PaperText, records.Paper),
    (ClaimItem, records.Claim),
    (CustomClaim, records.Claim),
    (WeaknessAnnotation, records.Weakness),
    (WeaknessItem, records.Weakness),
    (RatedPaper, records.Paper),
    (GoldPaper, records.Paper),
]

RECORD_TYPES = [n for n in records.__all__ if isinstance(getattr(records, n), type)]


@pytest.mark.parametrize(("cls", "base"), SYSTEM_RECORDS, ids=lambda c: getattr(c, "__name__", ""))
def test_system_record_extends_a_records_type(cls: type[BaseModel], base: type[BaseModel]) -> None:
    assert issubclass(cls, base)
    # a subclass adds fields; it never drops or renames one of the base's
    assert set(base.model_fields) <= set(cls.model_fields)
    # and the base's fields come first, in the base's order (the order files are written in)
    assert list(cls.model_fields)[: len(base.model_fields)] == list(base.model_fields)


def test_every_records_field_has_a_description() -> None:
    for name in RECORD_TYPES:
        for field, info in getattr(records, name).model_fields.items():
            assert info.description, f"records.{name}.{field} has no description"


def _modules() -> list[tuple[Path, ast.Module]]:
    return [(p, ast.parse(p.read_text(encoding="utf-8"))) for p in sorted(SRC.rglob("*.py"))]


def test_polarity_is_defined_once() -> None:
    where = []
    for path, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name == "Polarity":
                where.append(path)
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(isinstance(t, ast.Name) and t.id == "Polarity" for t in targets):
                    where.append(path)
    assert [p.relative_to(SRC).as_posix() for p in where] == ["records.py"]


def test_every_records_type_is_used_by_a_system_module() -> None:
    used: set[str] = set()
    for path, tree in _modules():
        if path.name == "records.py":
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "noveval.records":
                used.update(a.name for a in node.names)
    assert set(records.__all__) - used == set(), "records.py types nobody imports: remove them"
    assert len(records.__all__) == len(set(records.__all__))


def test_system_record_classes_are_not_redefined() -> None:
    """No module outside records.py defines a class named like a records.py type."""
    clashes = []
    for path, tree in _modules():
        if path.name == "records.py":
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name in RECORD_TYPES:
                clashes.append(f"{path.relative_to(SRC)}:{node.name}")
    assert clashes == []


# ------------------------------------------------------------- round trips on samples
def _first_line(rel: str) -> dict:
    return json.loads((SAMPLES / rel).read_text(encoding="utf-8").splitlines()[0])


def test_focus_sample_paper_round_trip() -> None:
    raw = _first_line("focus/sample_reviews.jsonl")
    (paper, *_) = load_papers(SAMPLES / "focus/sample_reviews.jsonl")
    # by hand: the line's own keys (extras kept, extra="allow") plus the declared defaults
    review_defaults = {"text": "", "sections": {}}
    expected = {**raw, "reviews": [{**review_defaults, **r} for r in raw["reviews"]]}
    expected.setdefault("fulltext_markdown", None)
    expected["meta_review"] = {**review_defaults, **raw["meta_review"]} if raw.get("meta_review") else None
    assert paper.model_dump() == expected
    assert list(paper.model_dump())[:3] == ["id", "title", "abstract"]


def test_focus_sample_point_round_trip() -> None:
    (paper, *_) = load_papers(SAMPLES / "focus/sample_reviews.jsonl")
    first = points_from_sections(paper)[0]
    dumped = first.model_dump()
    assert dumped == {
        "id": "demo-graph-sparsify|human|s0",
        "paper_id": "demo-graph-sparsify",
        "source": "human",
        "polarity": "strength",
        "index": 0,
        "text": "The idea of learning which edges to drop is simple and new.",
        "reviewer": 0,
    }
    # judgments.jsonl rows start from this dump: the key order must not move
    assert list(dumped) == ["id", "paper_id", "source", "polarity", "index", "text", "reviewer"]
    # FocusPoint drops unknown keys, as it always did (records keep them)
    assert "extra" not in FocusPoint.model_validate({**dumped, "extra": 1}).model_dump()
    assert records.ReviewPoint.model_validate({**dumped, "extra": 1}).model_dump()["extra"] == 1


def test_novbench_sample_record_round_trip() -> None:
    raw = json.loads((SAMPLES / "novbench/records.json").read_text(encoding="utf-8"))[0]
    (rec, *_) = load_records(SAMPLES / "novbench/records.json")
    expected = {k: raw[k] for k in ("id", "title", "abstract", "keywords", "paper_novelty", "review_novelty",
                                    "output_format", "retrieved_title", "retrieved_abstract")}
    expected["decision"] = None  # absent from the line: the declared default
    assert rec.model_dump() == expected
    assert "stray" not in NovBenchRecord.model_validate({**raw, "stray": 1}).model_dump()  # extras dropped
    gold = rec.gold
    assert gold is not None
    assert gold.model_dump() == {
        "positive": [
            "Sharing adapter parameters across a language family is an original way to help low-resource tagging.",
            "The newly annotated test sets are a valuable resource.",
        ],
        "neutral": [],  # "- None" is a placeholder
        "negative": ["Adapter modules are an established technique, so the methodological novelty is modest."],
        "found_headers": 3,
    }


def test_validation_is_as_strict_as_before() -> None:
    with pytest.raises(ValidationError):  # focus ids must be non-empty
        FocusPaper.model_validate({"id": "", "title": "T"})
    with pytest.raises(ValidationError):  # claimcheck annotations forbid unknown fields
        ClaimItem.model_validate({"id": "c1", "text": "x", "txet": "typo"})
    with pytest.raises(ValidationError):
        WeaknessAnnotation.model_validate({"id": "w1", "groundedness": 6})
    with pytest.raises(ValidationError):
        CustomClaim.model_validate({"text": "x", "start": -1, "end": 3})
    with pytest.raises(ValidationError):  # pairs need an abstract (a side shows it)
        NeurIPSPaper.model_validate({"id": "p", "title": "T"})
    assert CorpusPaper.model_validate({"id": 7, "title": "T", "abstract": None}).model_dump() == {
        "id": "7", "title": "T", "abstract": "", "year": None, "field": None, "venue": None}
    assert records.Paper.model_validate({"id": "p", "title": "T", "venue": "X"}).model_dump()["venue"] == "X"


def test_idea_reply_matches_idea_and_its_schema_is_unchanged() -> None:
    from noveval.models.structured import schema_of

    assert list(IdeaReply.model_fields) == list(records.Idea.model_fields)
    # the schema sent to models (part of every cached request) -- written out by hand
    fields = ["problem_statement", "objective", "solution_approach"]
    assert schema_of(IdeaReply) == {
        "properties": {f: {"type": "string"} for f in fields},
        "required": fields,
        "type": "object",
    }


def test_claimcheck_weakness_item_is_the_annotated_weakness() -> None:
    from noveval.benchmarks.claimcheck.data import load_annotations, load_papers_file, sample_dir
    from noveval.benchmarks.claimcheck.items import focal_items, weakness_items

    papers = load_papers_file(sample_dir() / "papers.json")
    anns = load_annotations(sample_dir() / "annotations.jsonl", papers=papers)
    items = weakness_items(anns, papers)
    first = items[0].model_dump()
    # by hand, from the first annotation line (w1: 252-417, groundedness 5) and the review text there
    assert {k: first[k] for k in ("start", "end", "groundedness", "id", "weakness_id")} == {
        "start": 252, "end": 417, "groundedness": 5, "id": "sample-sea#0/ann1/w1", "weakness_id": "w1"}
    assert first["text"] == ("However, the paper claims that SEA outperforms all existing efficient-attention methods, "
                             "yet it only compares against two baselines and omits Longformer and BigBird.")
    # every item carries its annotation's weakness (the Weakness part), also when split per focal claim
    weaknesses = {f"{a.key}/{a.annotator}/{w.id}": w for a in anns for w in a.weaknesses}
    for it in [*items, *focal_items(items)]:
        w = weaknesses[it.id.rsplit("/", 1)[0] if it.focal_claim is not None else it.id]
        assert (it.start, it.end, it.text, it.groundedness) == (w.start, w.end, w.text, w.groundedness)
    with pytest.raises(ValidationError):  # built in code: a misspelt field is refused
        WeaknessItem.model_validate({**first, "weakness": "the old field name"})


def test_validate_rated_paper_round_trip() -> None:
    from noveval.benchmarks.validate.data import load_rated_papers, sample_paths

    (paper, *_) = load_rated_papers(sample_paths()[0])
    # by hand from the sample's first line: its paper fields, the originality scores of its reviews
    assert paper.model_dump() == {
        "id": "R00",
        "title": "Meta graph learning with spectral and node models revisited (v2 0)",
        "abstract": "This paper studies graph learning where spectral structure matters. Existing adaptive approaches "
                    "ignore the node component. We present a meta method that simplifies graph learning for spectral "
                    "problems. Experiments on spectral benchmarks show gains over adaptive baselines.",
        "year": 2025,
        "keywords": ["graph learning", "benchmark"],
        "ratings": [2, 1, 1, 4],
        "line": 1,
    }  # "venue", "accepted" and the reviews are not kept, as before
    assert (paper.mean, paper.median) == (2.0, 1.5)
    with pytest.raises(ValidationError):
        RatedPaper(id="p", title="T", abstract="", year=None, venue="X")  # type: ignore[call-arg]


def test_retrieval_gold_paper_fields() -> None:
    gp = GoldPaper(id="q1", title="A query paper", abstract="Its abstract.", n_references=3)
    gp.gold.append([4, 7])  # citation_gold fills it as it matches
    assert gp.model_dump() == {"id": "q1", "title": "A query paper", "abstract": "Its abstract.", "gold": [[4, 7]],
                               "n_references": 3}
    assert GoldPaper(id="q2", title="T").gold == []  # each paper its own list
    with pytest.raises(ValidationError):
        GoldPaper(id="q", title="T", refs=3)  # type: ignore[call-arg]
