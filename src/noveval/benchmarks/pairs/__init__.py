"""``novelty-pairs``: which of two ideas or papers is more novel, asked in both orders (issue 18 item 4).

Pairs come from RINoBench items with different gold novelty scores, or from NeurIPS 2025
papers that share an author keyword and whose reviewers' mean originality (1-4) differs
by at least 1 (:mod:`.data`). Each pair is put to the model twice, once in each order
(:mod:`.task`); the gold is the more original of the two. Metrics: accuracy (per order and
consistent over both orders), position consistency, position bias, tie and unparseable
rates, with 95% bootstrap CIs over pairs (:func:`.task.score_pairs`).
"""

from noveval.benchmarks.pairs.data import (
           Pair,
           PairSide,
           build_pairs,
           load_neurips,
           neurips_pairs,
           rinobench_sides,
           sample_pairs,
)
from noveval.benchmarks.pairs.task import parse_choice, score_pairs

__all__ = ["Pair", "PairSide", "build_pairs", "load_neurips", "neurips_pairs", "rinobench_sides", "sample_pairs",
           "parse_choice", "score_pairs"]
