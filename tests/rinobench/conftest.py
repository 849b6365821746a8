"""Fixtures for RINoBench tests: small gold files written here, never copied data."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

SAMPLES = Path(__file__).resolve().parents[2] / "src" / "noveval" / "samples" / "rinobench"


def make_gold(n: int, seed: int = 0) -> list[dict]:
    """``n`` synthetic gold items in the published format, scores spread over 1..5."""
    rng = np.random.default_rng(seed)
    scores = [int(s) for s in rng.integers(1, 6, n)]
    scores[:5] = [1, 2, 3, 4, 5]
    return [
        {
            "source": f"https://openreview.net/forum?id=synthetic-{i}",
            "venueid": "ICLR.cc/2023/Conference",
            "research_idea": {
                "objective": f"We aim to study synthetic question {i}.",
                "problem_statement": f"Problem {i} is open.",
                "solution_approach": f"We apply method {i % 7} to problem {i}.",
            },
            "novelty_score": s,
            "novelty_reasoning": f"Method {i % 7} is known; applying it to problem {i} is new.",
            "related_works": [
                {"title": f"Method {i % 7}", "abstract": f"We introduce method {i % 7}.", "authors": ["A. B."], "url": None, "venue": "ICLR", "year": 2020}
            ],
        }
        for i, s in enumerate(scores)
    ]


@pytest.fixture
def sample_gold() -> Path:
    return SAMPLES / "test.json"


@pytest.fixture
def gold_file(tmp_path: Path):
    def _make(n: int, seed: int = 0) -> Path:
        p = tmp_path / f"gold-{n}-{seed}.json"
        p.write_text(json.dumps(make_gold(n, seed)), encoding="utf-8")
        return p

    return _make
