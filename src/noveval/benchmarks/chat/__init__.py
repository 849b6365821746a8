"""A generic task: run any model over a JSONL file of prompts, resumably.

Useful on its own (batch generation with caching and retries against any backend)
and the smallest end-to-end path through the foundation.
"""

from noveval.benchmarks.chat.task import PromptItem, load_prompts, run_prompts, score_predictions

__all__ = ["PromptItem", "load_prompts", "run_prompts", "score_predictions"]
