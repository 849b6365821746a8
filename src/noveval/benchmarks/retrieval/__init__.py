"""Retrieval quality of the corpus index against citation gold (``benchmarks/retrieval_quality.py``).

Gold: the corpus papers that a paper's own References section cites (:mod:`.gold`);
metrics: recall@k and nDCG@k with bootstrap CIs (:mod:`.evaluate`).
"""

from noveval.benchmarks.retrieval.evaluate import (
    ndcg_at_k,
    paired_differences,
    recall_at_k,
    summarize_runs,
)
from noveval.benchmarks.retrieval.gold import GoldPaper, citation_gold, match_references

__all__ = ["GoldPaper", "citation_gold", "match_references", "ndcg_at_k", "paired_differences", "recall_at_k", "summarize_runs"]
