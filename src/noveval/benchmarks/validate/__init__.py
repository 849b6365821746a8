"""``noveval validate``: do novelty metrics and LLM novelty judges agree with human reviewers?

Each rated paper (NeurIPS 2025: ~4 reviewers' 1-4 originality scores) gets predictors
computed only from prior work (corpus papers published before it): the four corpus
novelty metrics on a prior-only pool, retrieval signals (distance to the nearest and to
the top-k prior papers) and LLM judges (RINoBench's 1-5 rubric and a direct 1-4 rating)
shown the retrieved prior papers. Each predictor is correlated with the mean rating
(Spearman, Kendall, AUC high vs low, partial ρ; 95% bootstrap CIs) next to the human
ceiling: how well one reviewer agrees with the others.
"""

from noveval.benchmarks.validate.api import ValidateOptions, run, score

__all__ = ["ValidateOptions", "run", "score"]
