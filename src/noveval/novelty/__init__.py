"""Corpus novelty metrics behind one protocol (Liu & Zhai 2026, §4).

Greater is more novel for every metric.
"""

from noveval.novelty.base import NoveltyMetric
from noveval.novelty.fasttext_lof import FastTextLOF, lof_scores
from noveval.novelty.rnd import RND, rnd_from_distances
from noveval.novelty.semnovel import SemNovel, SemNovelMap, semnovel_k
from noveval.novelty.yin import Yin

METRICS = {"RND": RND, "Yin": Yin, "SemNovel": SemNovel, "FastTextLOF": FastTextLOF}
"""Name -> metric class, in the paper's table order."""


def get_metric(name: str, **params: object) -> NoveltyMetric:
    """Instantiate a metric by its table name (case-insensitive)."""
    for key, cls in METRICS.items():
        if key.lower() == name.lower():
            return cls(**params)  # type: ignore[arg-type]
    raise KeyError(f"unknown novelty metric {name!r}; choose from {', '.join(METRICS)}")


__all__ = [
    "METRICS", "FastTextLOF", "NoveltyMetric", "RND", "SemNovel", "SemNovelMap", "Yin",
    "get_metric", "lof_scores", "rnd_from_distances", "semnovel_k",
]
