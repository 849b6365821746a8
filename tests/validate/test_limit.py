"""``--limit`` bounds a validity run's embedding work (issue 37 item 2).

An exact run embeds every prior corpus paper (the retrieval signals are defined over all of
them); under ``--limit N`` without ``--max-corpus`` the candidates are a seeded sample of
``max(500 N, 2 pool_size)``, so the texts embedded grow with N and not with the corpus.
Real parts: the bundled MiniLM embeds for real, counted by a wrapper that passes every call
through; the test sets 20 candidates per paper (instead of 500) to keep the corpus small.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from noveval.benchmarks.validate import ValidateOptions
from noveval.benchmarks.validate.prepare import CANDIDATES_PER_PAPER, candidate_cap, prepare
from noveval.models.embed import get_embedder

WORDS = ("graph", "spectral", "language", "vision", "protein", "robot", "policy", "kernel", "sparse", "causal",
         "diffusion", "retrieval", "bandit", "privacy", "tensor", "audio")


class Counting:
    """A real embedder that counts the texts it is asked to encode."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.texts = inner, 0
        self.model_id = inner.model_id

    def encode(self, texts: list[str], **kw: Any) -> Any:
        self.texts += len(texts)
        return self.inner.encode(texts, **kw)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def _files(tmp_path: Path, n_corpus: int, n_rated: int = 8) -> tuple[Path, Path]:
    """A corpus of ``n_corpus`` prior papers (2010-2024) and ``n_rated`` rated 2025 papers."""
    def text(i: int) -> str:
        return " ".join(WORDS[(i * k) % len(WORDS)] for k in (1, 3, 5, 7)) + f" study {i}"

    corpus = tmp_path / f"corpus{n_corpus}.jsonl"
    corpus.write_text("".join(json.dumps({"id": f"c{i}", "title": f"Paper {i} on {text(i)}", "abstract": text(i) * 3,
                                          "year": 2010 + i % 15, "field": "ML"}) + "\n" for i in range(n_corpus)))
    reviews = tmp_path / "reviews.jsonl"
    reviews.write_text("".join(json.dumps({"id": f"R{i}", "year": 2025, "title": f"New {text(i + 7)}",
                                           "abstract": text(i + 7) * 3, "keywords": ["k"],
                                           "reviews": [{"scores": {"originality": 1 + i % 4}},
                                                       {"scores": {"originality": 2}}]}) + "\n"
                               for i in range(n_rated)))
    return reviews, corpus


def _embedded(reviews: Path, corpus: Path, **opts: Any) -> tuple[int, Any]:
    emb = Counting(get_embedder("local", cache=False))
    prep = prepare(reviews, corpus, ValidateOptions(metric=[], judge_prompt=[], pool_size=5, **opts), emb)
    return emb.texts, prep


def test_candidate_cap_rule() -> None:
    """Hand values: max(500 N, 2 pool_size); an explicit max_corpus wins; no limit, no cap."""
    assert candidate_cap(ValidateOptions(limit=3), 3)[0] == 3 * CANDIDATES_PER_PAPER == 1500
    assert candidate_cap(ValidateOptions(limit=1, pool_size=800), 1)[0] == 1600
    assert candidate_cap(ValidateOptions(limit=3, max_corpus=40), 3) == (40, None)
    assert candidate_cap(ValidateOptions(), 3) == (None, None)
    assert "--max-corpus" in str(candidate_cap(ValidateOptions(limit=30), 30)[1])


@pytest.mark.integration
def test_limit_bounds_the_texts_embedded_by_the_limit_not_the_corpus(tmp_path: Path, monkeypatch) -> None:
    import noveval.benchmarks.validate.prepare as prepare_module

    monkeypatch.setattr(prepare_module, "CANDIDATES_PER_PAPER", 20)
    reviews, small = _files(tmp_path, 60)
    _, big = _files(tmp_path, 120)
    n1_small, _ = _embedded(reviews, small, limit=1)
    n1_big, prep = _embedded(reviews, big, limit=1)
    n2_big, prep2 = _embedded(reviews, big, limit=2)
    # the prior candidates (every paper before 2025) plus the focal papers
    assert n1_small == n1_big == 20 + 1  # a corpus twice as large: the same work
    assert n2_big == 20 * 2 + 2  # twice the limit: twice the work
    assert prep.cands.summary["sampled_from"] == 120 and prep.cands.summary["candidates"] == 20
    assert "--limit 1" in prep.cands.summary["candidate_cap"]
    assert len(prep2.cands) == 40
    # the related works of each paper come from the sample, older than the paper
    assert all(prep2.cands.years[j] < 2025 for i in range(2) for j in prep2.retr.neighbours(i, 5))
    n_exact, exact = _embedded(reviews, small, limit=1, max_corpus=5000)  # above the corpus: all of it
    assert n_exact == 60 + 1 and exact.cands.summary["sampled_from"] is None
