"""Annotation format, loaders and exact-span verification (CLAIMCHECK §3)."""

import json

import pytest

from noveval.benchmarks.claimcheck.data import (
    find_span,
    load_annotations,
    load_papers_file,
    normalize_ws,
    sample_dir,
)
from noveval.benchmarks.claimcheck.extract import verify_claims
from noveval.errors import InputError

PAPERS = load_papers_file(sample_dir() / "papers.json")
PAPER = PAPERS["sample-sea"]


def test_find_span_whitespace_rules():
    doc = "Intro.\n\nWe show  that SEA\nimproves ROUGE-L by 2.1 points. End"
    s, e = find_span(doc, "We show that SEA improves   ROUGE-L by 2.1 points.")
    assert doc[s:e] == "We show  that SEA\nimproves ROUGE-L by 2.1 points."
    assert find_span(doc, "  End ") == (len(doc) - 3, len(doc))
    assert find_span(doc, "we show that SEA") is None  # case-sensitive
    assert find_span(doc, "We show that SEA improves ROUGE-L by 2.2 points.") is None  # no paraphrase
    assert find_span(doc, "Weshow") is None  # whitespace cannot be dropped
    assert find_span(doc, "   ") is None
    assert find_span("a b a b", "a b", start_at=1) == (4, 7)
    assert normalize_ws(" a \n\t b ") == "a b"


def test_verify_claims_records_non_matching():
    claims = [
        "SEA reduces memory use by 40% on documents of 16k tokens.",
        "SEA  reduces memory use by 40%\non documents of 16k tokens.",  # duplicate after normalising
        "SEA cuts memory by 40 percent.",  # paraphrase
        "",
    ]
    ok, bad = verify_claims(PAPER.fulltext, claims)
    assert len(ok) == 1 and PAPER.fulltext[ok[0]["start"]:ok[0]["end"]] == ok[0]["text"]
    assert bad == ["SEA cuts memory by 40 percent."]


def test_sample_annotations_resolve():
    anns = load_annotations(sample_dir() / "annotations.jsonl", papers=PAPERS)
    assert [a.annotator for a in anns] == ["ann1", "ann2"]
    a1 = anns[0]
    assert a1.key == "sample-sea#0"
    assert all(c.text and c.text in PAPER.fulltext for c in a1.claims)
    w = a1.weaknesses[0]
    assert w.text == PAPER.reviews[0][w.start:w.end]
    assert a1.target_texts(w) == [a1.claim_text("c2")]
    custom = anns[1].weaknesses[3]
    assert custom.custom_claim is not None and anns[1].target_texts(custom) == [custom.custom_claim.text]


def _write(tmp_path, rec, name="a.jsonl"):
    p = tmp_path / name
    p.write_text(json.dumps(rec) + "\n")
    return p


BASE = {"paper_id": "sample-sea", "review_index": 0, "annotator": "x",
        "claims": [{"id": "c1", "text": "SEA reduces memory use by 40% on documents of 16k tokens."}],
        "weaknesses": [{"id": "w1", "start": 0, "end": 8, "groundedness": 3,
                        "target_claims": ["c1"], "objectivity": 3, "agreement": 3,
                        "types": ["insufficient"]}]}


@pytest.mark.parametrize(
    ("patch", "field", "message"),
    [
        ({"target_claims": ["c9"]}, "weaknesses.0.target_claims", "unknown claim id"),
        ({"start": 0, "end": 10**6}, "weaknesses.0", "outside text"),
        ({"text": "not this"}, "weaknesses.0", "does not match"),
        ({"types": []}, "weaknesses.0.types", "at least one"),
        ({"types": ["bogus"]}, "weaknesses.0.types.0", ""),
        ({"groundedness": 6}, "weaknesses.0.groundedness", ""),
        ({"target_claims": ["c1"], "custom_claim": {"text": "x"}, "extra_field": 1},
         "weaknesses.0.extra_field", ""),
    ],
)
def test_bad_annotation_is_input_error(tmp_path, patch, field, message):
    rec = json.loads(json.dumps(BASE))
    rec["weaknesses"][0].update(patch)
    with pytest.raises(InputError) as err:
        load_annotations(_write(tmp_path, rec), papers=PAPERS)
    assert err.value.line == 1 and err.value.field == field and message in err.value.message


def test_too_many_targets_and_missing_paper(tmp_path):
    rec = json.loads(json.dumps(BASE))
    rec["claims"] = [{"id": f"c{i}", "text": "t"} for i in range(4)]
    rec["weaknesses"][0]["target_claims"] = ["c0", "c1", "c2"]
    rec["weaknesses"][0]["custom_claim"] = {"text": "SEA is simple."}
    with pytest.raises(InputError, match="at most 3"):
        load_annotations(_write(tmp_path, rec), papers=PAPERS)
    rec2 = {**BASE, "paper_id": "nope"}
    with pytest.raises(InputError, match="not found"):
        load_annotations(_write(tmp_path, rec2, "b.jsonl"), papers=PAPERS)


def test_duplicate_annotator_review(tmp_path):
    p = tmp_path / "d.jsonl"
    p.write_text(json.dumps(BASE) + "\n" + json.dumps(BASE) + "\n")
    with pytest.raises(InputError) as err:
        load_annotations(p, papers=PAPERS)
    assert err.value.line == 1 and "twice" in err.value.message


@pytest.mark.realdata
def test_own_gold_file_reads_shared_texts(data_dir):
    from pathlib import Path

    gold = Path(__file__).parents[1] / "fixtures" / "claimcheck" / "gold_01hPO0uJhS.jsonl"
    anns = load_annotations(gold, data_dir=data_dir)
    assert len(anns) == 2 and sum(len(a.weaknesses) for a in anns) == 6
    w = anns[0].weaknesses[2]
    assert "lines 312-313" in w.text and w.groundedness == 5
    assert "shorter lifespan" in anns[0].target_texts(w)[0]


@pytest.mark.realdata
@pytest.mark.parametrize(("paper_id", "n_weak", "n_targeted", "probe"), [
    ("2Ke2B4zps8", 8, 7, ("The paper claims that Beagle trains quicker", "higher training efficiency than EAGLE-v2")),
    ("43lkrdfQzB", 6, 4, ("justify the novelty of the proposed method", "constructing an effective null space")),
])
def test_gold_files_of_rejected_papers(data_dir, paper_id, n_weak, n_targeted, probe):
    """Our gold for two rejected papers (the paper's data are rejected submissions, §3.2)."""
    from pathlib import Path

    from noveval.benchmarks.claimcheck.data import load_fulltext_papers

    gold = Path(__file__).parents[1] / "fixtures" / "claimcheck" / f"gold_{paper_id}.jsonl"
    anns = load_annotations(gold, data_dir=data_dir)
    (paper,) = load_fulltext_papers(data_dir, ids=[paper_id])
    import gzip

    with gzip.open(data_dir / "fulltext" / "neurips-2025-fulltext.jsonl.gz", "rt") as fh:
        raw = next(json.loads(line) for line in fh if f'"id": "{paper_id}"' in line[:200])
    assert raw["accepted"] is False  # the reviewed version is the published one
    ws = [(a, w) for a in anns for w in a.weaknesses]
    assert len(ws) == n_weak and sum(bool(w.target_claims) for _, w in ws) == n_targeted
    rec, w = next((a, w) for a, w in ws if probe[0] in (w.text or ""))
    assert any(probe[1] in t for t in rec.target_texts(w))
    for a in anns:  # every claim is a verbatim span of the paper
        for c in a.claims:
            assert c.text and c.text in paper.fulltext
