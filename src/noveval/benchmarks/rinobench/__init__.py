"""RINoBench: judging the novelty of research ideas (Schopf & Färber, 2026).

Task (Section 5): given a research idea and its related works, answer a 1-5 novelty
score on the rubric (Table 1) with a justification. Metrics (Section 4.2): per-class
and macro F1, MAE, and seven LLM-judged justification metrics (Alignment; Recall,
Additional Ratio and Hallucination Rate for known and novelty aspects, Eqs. 1-3).
Dataset construction (Section 4.1): :mod:`.construct`. The same run under several
wordings of the judging prompt: :func:`run_prompt_variants` (:mod:`.variants`).
"""

from noveval.benchmarks.rinobench.api import run, score
from noveval.benchmarks.rinobench.data import (
    DEFAULT_RUBRIC,
    Prediction,
    RINoBenchItem,
    load_items,
    load_predictions,
    load_rubric,
)
from noveval.benchmarks.rinobench.judge import JUSTIFICATION_METRICS, JudgeOptions, ajudge_item
from noveval.benchmarks.rinobench.parse import ParsedJudgment, parse_judgment
from noveval.benchmarks.rinobench.variants import bundled_variants, run_prompt_variants

__all__ = [
    "run",
    "score",
    "run_prompt_variants",
    "bundled_variants",
    "DEFAULT_RUBRIC",
    "Prediction",
    "RINoBenchItem",
    "load_items",
    "load_predictions",
    "load_rubric",
    "JUSTIFICATION_METRICS",
    "JudgeOptions",
    "ajudge_item",
    "ParsedJudgment",
    "parse_judgment",
]
