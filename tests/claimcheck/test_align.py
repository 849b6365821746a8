"""Fuzzy alignment of near-verbatim passages (issue 13 item 8) and CA custom claims (item 10)."""

import asyncio

import pytest
from rapidfuzz import fuzz

from noveval.benchmarks.claimcheck.ca import associate_claims, resolve_custom_claim
from noveval.benchmarks.claimcheck.data import (
    ALIGN_THRESHOLD,
    align_span,
    load_annotations,
    load_papers_file,
    sample_dir,
)
from noveval.benchmarks.claimcheck.items import weakness_items
from noveval.benchmarks.claimcheck.options import ClaimcheckOptions
from noveval.benchmarks.claimcheck.scoring import score_predictions
from noveval.benchmarks.claimcheck.wi import identify_weaknesses
from noveval.metrics.spans import edit_similarity

from .fake import FakeClient

REVIEW = ("The paper claims that X improves Y by 3 points. However, all results come from a "
          "single random seed, so the gain may not be significant. Also the writing is poor "
          "and the baselines in Table 2 are weak.")
SEED_SENTENCE = "all results come from a single random seed, so the gain may not be significant"


def test_threshold_is_85():
    assert ALIGN_THRESHOLD == 85.0


def test_near_verbatim_passage_aligns_to_whole_words():
    near = "all results come from one random seed, so the gain might not be significant"
    s, e, score = align_span(REVIEW, near)
    assert REVIEW[s:e] == SEED_SENTENCE
    # the score is rapidfuzz's ratio of the passage and the aligned span, computed here by hand
    assert score == pytest.approx(fuzz.ratio(near, SEED_SENTENCE))
    assert 85 <= score < 100


def test_whitespace_and_offsets_map_back_to_the_original():
    review = "Intro.\n\nThe   baselines in\nTable 2 are   weak and old."
    s, e, _ = align_span(review, "the baselines in Table 2 are weak and old")  # case differs: not exact
    assert review[s:e] == "The   baselines in\nTable 2 are   weak and old"


@pytest.mark.parametrize("passage", [
    "the ablation removes two components at the same time",  # a reformulation (ratio about 74)
    "The authors use only one seed; significance is unclear.",
    "weak baselines",  # shorter than 20 characters
    REVIEW + " And one more sentence that makes it longer than the review.",
])
def test_non_copies_do_not_align(passage):
    assert align_span(REVIEW, passage) is None


def test_threshold_boundary():
    near = "all results come from one random seed, so the gain might not be significant"
    score = fuzz.ratio(near, SEED_SENTENCE)
    assert align_span(REVIEW, near, threshold=score) is not None
    assert align_span(REVIEW, near, threshold=score + 0.01) is None


def test_wi_scores_an_aligned_span_with_partial_credit():
    near = "all results come from one random seed, so the gain might not be significant"

    def reply(prompt: str) -> dict:
        return {"weaknesses": [{"groundedness": 4, "text": near}]}

    row = asyncio.run(identify_weaknesses(FakeClient(reply), paper_id="p", review_index=0, review_text=REVIEW,
                                          title="t", options=ClaimcheckOptions()))
    (w,) = row["weaknesses"]
    assert w["aligned"] and w["text"] == SEED_SENTENCE and w["model_text"] == near
    assert REVIEW[w["start"]:w["end"]] == w["text"] and row["unverified"] == []

    # gold: the whole second sentence (with "However, " and the full stop)
    from noveval.benchmarks.claimcheck.data import ReviewAnnotation

    gold_text = "However, " + SEED_SENTENCE + "."
    start = REVIEW.index(gold_text)
    rec = ReviewAnnotation.model_validate({
        "paper_id": "p", "review_index": 0, "review_text": REVIEW, "annotator": "A",
        "weaknesses": [{"id": "w1", "start": start, "end": start + len(gold_text), "text": gold_text}]})
    row["id"] = rec.key
    _, metrics, _ = score_predictions("wi", [row], annotations=[rec])
    # one gold, one prediction: F1_edit = edit similarity of the two spans (by hand)
    assert metrics["f1_edit"]["mean"] == pytest.approx(edit_similarity(gold_text, SEED_SENTENCE))
    assert metrics["f1_edit"]["mean"] > 0.8 and metrics["f1_exact"]["mean"] == 0.0
    assert metrics["aligned"]["mean"] == 1.0


# ------------------------------------------------------------------ CA custom claims (item 10)
PAPERS = load_papers_file(sample_dir() / "papers.json")
ANNS = load_annotations(sample_dir() / "annotations.jsonl", papers=PAPERS)
FULLTEXT = PAPERS["sample-sea"].fulltext


@pytest.mark.parametrize("custom", ["...", "…", "the results", "SEA is the best", "  ..  ...  "])
def test_trivial_custom_claims_are_rejected(custom):
    from noveval.benchmarks.claimcheck.data import find_span

    text = FULLTEXT + "\nMore results ... and … the results: SEA is the best.\n"
    if custom.strip() in ("...", "the results", "SEA is the best"):
        assert find_span(text, custom) is not None  # a substring of the paper, yet no claim
    got = resolve_custom_claim(text, custom)
    assert "rejected" in got and "trivial" in got["rejected"]


def test_custom_claim_exact_aligned_or_unverified():
    exact = "SEA reduces memory use by 40% on documents of 16k tokens."
    got = resolve_custom_claim(FULLTEXT, exact)
    assert got == {"text": exact, "verified": True, "aligned": False}
    near = "SEA reduces the memory use by 40% on documents of 16k tokens."
    got = resolve_custom_claim(FULLTEXT, near)
    assert got["verified"] and got["aligned"] and got["text"] == exact
    made_up = "Our model solves every summarization benchmark perfectly."
    assert resolve_custom_claim(FULLTEXT, made_up) == {"text": made_up, "verified": False, "aligned": False}


def test_ca_does_not_count_an_ellipsis_as_a_target():
    item = weakness_items(ANNS, PAPERS)[0]

    def reply(prompt: str) -> dict:
        return {"reasoning": "r", "target_claims": [1], "custom_claim": "..."}

    row = asyncio.run(associate_claims(FakeClient(reply), item, options=ClaimcheckOptions()))
    assert row["target_claims"] == ["c1"] and row["target_texts"] == [item.candidates[0][1]]
    assert row["custom_claim"] is None and row["custom_verified"] is None
    assert row["custom_rejected"]["text"] == "..."
