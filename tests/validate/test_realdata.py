"""Real data (../shared/data, skipped when absent): the NeurIPS 2025 ratings, the human ceiling,
and a small prior-only run over a sample of the corpus."""

from __future__ import annotations

import pytest

from noveval.benchmarks.validate.data import load_peerread_ratings, load_rated_papers
from noveval.metrics.correlation import loro_ceiling
from noveval.runs import RunDir

from .conftest import validate

pytestmark = pytest.mark.realdata


def test_neurips_2025_ratings_and_ceiling(data_dir):
    papers = load_rated_papers(data_dir / "reviews" / "neurips-2025.jsonl.gz")
    assert len(papers) == 4474 and all(p.ratings for p in papers) and all(p.year == 2025 for p in papers)
    assert sum(len(p.ratings) for p in papers) == 18060
    assert all(1 <= s <= 4 for p in papers for s in p.ratings)
    # reviewers barely agree on originality: one reviewer vs the others' mean
    assert loro_ceiling([p.ratings for p in papers]) == pytest.approx(0.0890, abs=5e-4)


def test_peerread_cannot_be_joined_but_has_a_ceiling(data_dir):
    ratings, counts = load_peerread_ratings(data_dir / "labels" / "peerread-iclr2017-aspect-scores.tsv")
    assert counts["papers"] == 427 and counts["rated"] == 645 and counts["non_numeric"] == 1
    header = (data_dir / "labels" / "peerread-iclr2017-aspect-scores.tsv").read_text().splitlines()[0].split("\t")
    assert "title" not in [h.lower() for h in header] and "abstract" not in [h.lower() for h in header]
    assert loro_ceiling(ratings, min_raters=2) == pytest.approx(0.337, abs=5e-3)


@pytest.mark.slow
def test_small_real_run_uses_prior_work_only(data_dir, tmp_path):
    path = validate(data_dir / "reviews" / "neurips-2025.jsonl.gz", data_dir / "corpus" / "papers.jsonl.gz",
                    tmp_path / "r", "none", metric=["Yin", "RND"], limit=12, max_corpus=300, pool_size=50, field="ML",
                    resamples=50, min_group=100)
    rd = RunDir.open(path)
    items = rd.rows("per_item")
    assert len(items) == 12
    for it in items:
        assert it["nn_year"] < 2025 and it["nn_title"].lower() != it["title"].lower()
        assert it["pool_size"] == 50
        assert it["predictors"]["Yin"] == pytest.approx(it["predictors"]["nn_distance"], abs=1e-6)
    pool = rd.scores["extra"]["pool"]
    assert pool["candidates"] == 300 and pool["year_max"] <= 2024 and pool["field"] == "ML"
