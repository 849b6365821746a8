"""Shared fixtures for the axioms tests: the shipped sample and a fast hashing embedder."""

from __future__ import annotations

import hashlib
import re

import numpy as np
import pytest

from noveval.benchmarks.axioms.pools import load_references, sample_paths
from noveval.corpus import load_corpus


class HashEmbedder:
    """Deterministic bag-of-words hashing embedder (tests only; 256-d, L2-normalised)."""

    model_id = "test/hash-bow"
    dim = 256

    def encode(self, texts, batch_size=64, progress=None):
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in re.findall(r"\w+", t.lower()):
                h = int(hashlib.md5(w.encode()).hexdigest()[:8], 16)
                out[i, h % self.dim] += 1.0 if (h >> 9) & 1 else -1.0
            out[i] /= max(np.linalg.norm(out[i]), 1e-9)
        return out


def fake_paraphraser(papers):
    """Reverses sentence order and drops one word: enough for the plumbing tests."""
    out = []
    for title, abstract in papers:
        sents = abstract.split(". ")
        out.append((" ".join(title.split()[1:]), ". ".join(reversed(sents))))
    return out


@pytest.fixture(scope="session")
def sample():
    corpus_path, ft_path = sample_paths()
    corpus = load_corpus(corpus_path)
    return corpus, load_references(ft_path, corpus)


@pytest.fixture
def embedder():
    return HashEmbedder()


@pytest.fixture
def paraphraser():
    return fake_paraphraser
