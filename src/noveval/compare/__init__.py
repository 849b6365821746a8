"""Paired comparison of runs of one system: ``noveval compare RUN_A RUN_B [RUN...]``.

:func:`compare_runs` matches the runs' items by id and, per metric that can be
recomputed from ``per_item.jsonl`` (:mod:`noveval.compare.metrics`), gives the
difference with a paired bootstrap CI and a paired permutation p-value; with three or
more runs, leaderboards with Holm-corrected marks against the best run.
:func:`format_comparison` is the terminal view; ``Comparison.to_dict()`` the JSON one.
:func:`compare_variants` is the view over the runs of prompt variants (``variants.json``).
"""

from __future__ import annotations

from noveval.compare.core import Comparison, compare_runs
from noveval.compare.text import format_comparison
from noveval.compare.variants import PromptVariants, compare_variants

__all__ = ["Comparison", "compare_runs", "format_comparison", "PromptVariants", "compare_variants"]
