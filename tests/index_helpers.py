"""Shared pieces of the index tests: a small corpus and a real deterministic embedder."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from noveval.models.embed import Embedder, VectorCache

PAPERS = [
    {"id": "a", "title": "Graph networks", "abstract": "graph graph molecules", "year": 2019, "field": "ML"},
    {"id": "b", "title": "Robot grasping", "abstract": "grasping objects with a robot hand", "year": 2021, "field": "Robotics"},
    {"id": "c", "title": "Molecule generation", "abstract": "generating molecules with diffusion", "year": 2023, "field": "ML"},
    {"id": "d", "title": "Robot graph planning", "abstract": "motion planning on a graph", "year": 2024, "field": "Robotics"},
    {"id": "e", "title": "Language models", "abstract": "large language models for text", "year": 2025, "field": "NLP"},
]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


class WordBackend:
    """A real, deterministic bag-of-words embedder over a fixed vocabulary (counts per word)."""

    VOCAB = ("graph", "molecules", "robot", "grasping", "planning", "language", "diffusion", "text")

    def __init__(self, fail_after: int | None = None) -> None:
        self.model_id = "test/bag-of-words"
        self.calls = 0
        self.fail_after = fail_after  # fault injection: raise on the call after this many

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        if self.fail_after is not None and self.calls >= self.fail_after:
            raise RuntimeError("injected failure")
        self.calls += 1
        out = np.zeros((len(texts), len(self.VOCAB)), dtype=np.float32)
        for i, t in enumerate(texts):
            words = t.lower().replace("\n", " ").split()
            for j, v in enumerate(self.VOCAB):
                out[i, j] = sum(1 for w in words if w == v) + 0.01 * (j + 1)
        return out


def embedder_for(tmp_path: Path, fail_after: int | None = None, batch_size: int = 2) -> Embedder:
    return Embedder(WordBackend(fail_after), cache=VectorCache(tmp_path / "vec.sqlite"), batch_size=batch_size)


