"""The ``NoveltyMetric`` protocol shared by all corpus novelty metrics.

A novelty metric scores a focal paper against a reference pool; higher means
more novel (Liu & Zhai 2026, §3: every axiom is stated for such a score).
Embedding metrics (RND, SemNovel, Yin) take L2-normalised embedding rows;
title metrics (FastTextLOF) take raw titles. ``inputs`` says which.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol, runtime_checkable

import numpy as np

InputKind = Literal["embedding", "title"]


@runtime_checkable
class NoveltyMetric(Protocol):
    """Score focal papers against a reference pool (greater is more novel)."""

    name: str
    """Short metric name used in tables (``"RND"``, ``"Yin"``, ...)."""
    inputs: InputKind
    """``"embedding"``: focal/pool are (d,) / (n, d) float arrays; ``"title"``: strings."""

    def score(self, focal: np.ndarray | str, pool: np.ndarray | Sequence[str]) -> float:
        """Novelty of one focal paper against ``pool``."""
        ...

    def score_many(
        self, focals: np.ndarray | Sequence[str], pool: np.ndarray | Sequence[str]
    ) -> np.ndarray:
        """Novelty of each focal paper against the same ``pool`` (each scored independently)."""
        ...
