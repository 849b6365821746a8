"""Citation gold (reference -> corpus title matching) and the ranking metrics."""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import numpy as np
import pytest

from noveval.benchmarks.retrieval import (
    citation_gold,
    match_references,
    ndcg_at_k,
    recall_at_k,
    summarize_runs,
)
from noveval.benchmarks.retrieval.evaluate import found_ranks

TITLES = [
    "Adam: A Method for Stochastic Optimization",          # 0
    "Adam",                                                # 1 too short: never matched
    "Deep Residual Learning for Image Recognition",        # 2
    "Attention is All you Need",                           # 3 (5 words, 21 chars normalised)
    "Deep learning",                                       # 4 too short
    "Residual Learning",                                   # 5 too short (2 words)
    "Deep Residual Learning for Image Recognition",        # 6 duplicate title of 2
    "Graph Attention Networks",                            # 7 3 words: under the 4-word minimum
    "Privacy Auditing with One (1) Training Run",          # 8
]


def test_matching_rule_on_hand_written_entries():
    entries = [
        "[1] D. P. Kingma and J. Ba. Adam: a method for stochastic optimization. In ICLR, 2015.",
        "K. He, X. Zhang. Deep residual learning for image-recognition. CVPR 2016.",
        "A. Vaswani et al. Attention is all you need. NeurIPS 2017.",
        "Y. LeCun. Deep learning. Nature 2015.",
        "P. Velickovic. Graph attention networks. ICLR 2018.",
        "T. Steinke, M. Nasr, M. Jagielski. Privacy auditing with one (1) training run. NeurIPS 2023.",
        "Kingma & Ba, Adam: A Method for Stochastic Optimization (again)",   # same paper cited twice
        "Something unrelated entirely about residual learning",
    ]
    # punctuation and case are ignored, the longest contained title wins, short titles never match,
    # each paper counts once, duplicate titles resolve to the lowest row
    assert match_references(entries, TITLES) == [0, 2, 3, 8]
    assert match_references(entries, TITLES, exclude_title="Attention Is All You Need!") == [0, 2, 8]
    assert match_references(["Graph attention networks. ICLR"], TITLES, min_words=3) == [7]


def test_citation_gold_from_a_full_text_file(tmp_path: Path):
    md = ("# A paper\n\nText citing [1].\n\n## References\n\n"
          "- [1] Kingma and Ba. Adam: A method for stochastic optimization. 2015.\n"
          "- [2] He et al. Deep Residual Learning for Image Recognition. 2016.\n"
          "- [3] Steinke et al. Privacy auditing with one (1) training run. 2023.\n\n"
          "## Appendix\n\n- Attention is all you need (not in the References section)\n")
    f = tmp_path / "ft.jsonl.gz"
    with gzip.open(f, "wt", encoding="utf-8") as fh:
        fh.write(json.dumps({"id": "x", "title": "Privacy Auditing with One (1) Training Run", "abstract": "a",
                             "fulltext_markdown": md}) + "\n")
        fh.write(json.dumps({"id": "y", "title": "No refs", "abstract": "b", "fulltext_markdown": "# Intro\n"}) + "\n")
    eligible = [True] * len(TITLES)
    eligible[0] = False  # e.g. published in 2025: not prior work
    gold = citation_gold(f, TITLES, eligible)
    assert [g.id for g in gold] == ["x", "y"]
    assert gold[0].n_references == 3
    # Adam is ineligible, the paper itself is never its own gold, duplicates 2 and 6 form one gold paper
    assert gold[0].gold == [[2, 6]]
    assert gold[1].gold == [] and gold[1].n_references == 0


def test_recall_and_ndcg_hand_computed():
    gold = [[5], [7, 8], [9]]
    ranking = [1, 8, 5, 2, 3]
    assert found_ranks(ranking, gold) == [3, 2, None]
    assert recall_at_k(ranking, gold, 2) == pytest.approx(1 / 3)
    assert recall_at_k(ranking, gold, 3) == pytest.approx(2 / 3)
    want = (1 / math.log2(3) + 1 / math.log2(4)) / (1 + 1 / math.log2(3) + 1 / math.log2(4))
    assert ndcg_at_k(ranking, gold, 10) == pytest.approx(want)
    assert ndcg_at_k([5, 8, 9], gold, 10) == pytest.approx(1.0)
    assert math.isnan(recall_at_k(ranking, [], 10))


def test_ndcg_matches_scikit_learn_on_random_rankings():
    from sklearn.metrics import ndcg_score

    rng = np.random.default_rng(0)
    for _ in range(50):
        n = 30
        gold_rows = rng.choice(n, size=rng.integers(1, 8), replace=False)
        ranking = list(rng.permutation(n))
        rel = np.zeros(n)
        rel[gold_rows] = 1
        scores = np.zeros(n)
        scores[ranking] = np.arange(n, 0, -1)  # rank 1 gets the highest score
        want = ndcg_score(rel[None, :], scores[None, :], k=10)
        assert ndcg_at_k(ranking, [[int(g)] for g in gold_rows], 10) == pytest.approx(want)


def test_summarize_runs_skips_queries_without_gold():
    gold = [[[1]], [], [[2], [3]]]
    runs = {"a": [[1, 2], [9], [3, 4]], "b": [[2, 1], [9], [4, 5]]}
    s = summarize_runs(runs, gold, ks=(1,), ndcg_k=2)
    assert s["a"]["recall@1"]["n"] == 2
    assert s["a"]["recall@1"]["mean"] == pytest.approx((1 + 0.5) / 2)
    assert s["b"]["recall@1"]["mean"] == 0.0
    assert s["a"]["recall@1"]["ci_low"] <= s["a"]["recall@1"]["mean"] <= s["a"]["recall@1"]["ci_high"]


def test_paired_differences_hand_computed():
    from noveval.benchmarks.retrieval import paired_differences

    gold = [[[1]], [[2]], []]
    runs = {"base": [[9, 1], [2], [5]], "new": [[1], [9, 2], [5]]}
    d = paired_differences(runs, gold, baseline="base", ks=(1,), ndcg_k=1)
    assert list(d) == ["new"] and d["new"]["recall@1"]["n"] == 2
    assert d["new"]["recall@1"]["mean"] == pytest.approx(((1 - 0) + (0 - 1)) / 2)
