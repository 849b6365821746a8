"""Focus-level evaluation of LLM reviews ("Mind the Blind Spots", Shin et al.).

Python API (the CLI is a thin shell over it)::

    from noveval.benchmarks.focus import run_focus, score_run, split_points
"""

from noveval.benchmarks.focus.data import (
    FocusPaper,
    FocusPoint,
    FocusReview,
    load_papers,
    points_from_lists,
    points_from_sections,
)
from noveval.benchmarks.focus.pipeline import run_focus, score_run
from noveval.benchmarks.focus.split import split_points, split_review_sections

__all__ = [
    "FocusPaper",
    "FocusPoint",
    "FocusReview",
    "load_papers",
    "points_from_lists",
    "points_from_sections",
    "run_focus",
    "score_run",
    "split_points",
    "split_review_sections",
]
