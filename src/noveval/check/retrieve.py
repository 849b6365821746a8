"""Exact embedding kNN over the corpus (cosine similarity on L2-normalised rows)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

__all__ = ["Neighbour", "nearest"]


@dataclass(frozen=True)
class Neighbour:
    """One retrieved prior work.

    Attributes:
        rank: 1-based rank (the ``[rank]`` used in citations).
        index: Row in the corpus.
        similarity: Cosine similarity to the input, in [-1, 1].
        id, title, abstract, year: The paper.
    """

    rank: int
    index: int
    similarity: float
    id: str
    title: str
    abstract: str
    year: int | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)


def nearest(query: np.ndarray, matrix: np.ndarray, papers: list[dict[str, Any]], k: int = 10) -> list[Neighbour]:
    """The ``k`` corpus papers most similar to ``query`` (d,), most similar first (stable ties)."""
    sims = np.asarray(matrix, dtype=np.float32) @ np.asarray(query, dtype=np.float32)
    k = min(k, len(sims))
    cand = np.argpartition(-sims, k - 1)[:k] if k < len(sims) else np.arange(len(sims))
    order = cand[np.lexsort((cand, -sims[cand]))]
    return [
        Neighbour(r, int(i), float(sims[i]), papers[i]["id"], papers[i]["title"], papers[i]["abstract"], papers[i]["year"])
        for r, i in enumerate(order, 1)
    ]
