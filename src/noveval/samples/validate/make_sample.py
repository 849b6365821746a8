"""Regenerate the tiny synthetic sample of ``noveval validate`` (written by us, no real data).

``corpus.jsonl``: 90 prior papers (2016-2024) on three ML topics with template titles and
abstracts, the 24 rated papers' own 2025 records (as the shared corpus lists NeurIPS 2025
papers; they must never be prior work) and one 2023 listing of a rated paper under the
same title (an earlier version of the same paper: it must not be its own neighbour).

``reviews.jsonl``: 24 papers from 2025 in the NeurIPS format, three or four reviews each
with a 1-4 ``originality`` score. Half restate a prior paper of the corpus in other words
and get low ratings (1-2); half describe a subject the corpus never covers and get high
ratings (3-4); one reviewer per paper is noisy, as real reviewers are. So a sound
novelty predictor correlates positively with the ratings here.

Run: ``python make_sample.py`` in this folder.
"""

from __future__ import annotations

import random
from pathlib import Path

TOPICS = {
    "graph learning": ["node", "edge", "message passing", "spectral", "citation network", "molecule"],
    "federated learning": ["client", "privacy", "aggregation", "heterogeneous data", "communication", "server"],
    "reinforcement learning": ["policy", "reward", "exploration", "value function", "offline data", "planning"],
}
METHODS = ["contrastive", "bayesian", "hierarchical", "sparse", "adaptive", "robust", "meta", "causal"]
VERBS = ["improves", "accelerates", "stabilises", "generalises", "simplifies", "scales"]
NEW_SUBJECTS = [
    ("protein folding", "amino acid", "structure prediction"), ("ocean acoustics", "whale song", "sonar"),
    ("medieval manuscripts", "handwriting", "ink"), ("crop irrigation", "soil moisture", "drought"),
    ("volcanic eruptions", "seismic tremor", "magma"), ("bird migration", "flight path", "wind"),
    ("urban traffic lights", "intersection", "congestion"), ("music harmony", "chord", "melody"),
    ("glacier melting", "ice sheet", "temperature"), ("coral reefs", "bleaching", "reef fish"),
    ("earthquake early warning", "fault line", "ground motion"), ("solar flares", "sunspot", "plasma"),
]


def _prior(rng: random.Random) -> list[dict]:
    papers = []
    for phrase, words in TOPICS.items():
        for k in range(30):
            m, w1, w2 = rng.choice(METHODS), rng.choice(words), rng.choice(words)
            papers.append({
                "id": f"prior:{phrase.replace(' ', '-')}:{k}",
                "title": f"{m.capitalize()} {phrase} with {w1} and {w2} models ({k})",
                "abstract": (f"We study {phrase} where {w1} structure matters. Existing {rng.choice(METHODS)} "
                             f"approaches ignore the {w2} component. We propose a {m} method that "
                             f"{rng.choice(VERBS)} {phrase} for {rng.choice(words)} problems. Experiments on "
                             f"{rng.choice(words)} benchmarks show gains over {rng.choice(METHODS)} baselines."),
                "year": 2016 + k % 9, "field": "ML", "venue": "SAMPLE",
            })
    return papers


def make(seed: int = 0) -> tuple[list[dict], list[dict]]:
    """Return ``(corpus, reviews)`` rows."""
    rng = random.Random(seed)
    prior = _prior(rng)
    rated = []
    for k in range(12):  # restatements of prior papers: low originality
        src = prior[(k * 7) % len(prior)]
        phrase = next(p for p in TOPICS if p in src["title"])
        rated.append({
            "id": f"R{k:02d}",
            "title": src["title"].replace(" models (", " models revisited (").replace("(", "(v2 "),
            "abstract": src["abstract"].replace("We study", "This paper studies").replace("We propose", "We present"),
            "keywords": [phrase, "benchmark"], "low": True,
        })
    for k, (subject, a, b) in enumerate(NEW_SUBJECTS):  # subjects the corpus never covers: high originality
        rated.append({
            "id": f"N{k:02d}",
            "title": f"Learning {subject} from {a} recordings",
            "abstract": (f"We introduce the first learned model of {subject}. It reads {a} measurements and "
                         f"predicts {b}, a question no earlier method addresses. A new dataset of {a} "
                         f"observations supports the study, and the model explains {b} far better than "
                         f"physical baselines."),
            "keywords": ["new application", subject], "low": False,
        })
    reviews = []
    for r in rated:
        n = 3 + rng.randint(0, 1)
        base = [1, 2] if r["low"] else [3, 4]
        scores = [rng.choice(base) for _ in range(n - 1)] + [rng.randint(1, 4)]  # one noisy reviewer
        reviews.append({
            "id": r["id"], "venue": "NeurIPS", "year": 2025, "title": r["title"], "abstract": r["abstract"],
            "keywords": r["keywords"], "accepted": True,
            "reviews": [{"text": "(synthetic review)", "scores": {"recommendation": 4, "originality": s}}
                        for s in scores] + [{"text": "(comment without scores)", "scores": {}}],
        })
    corpus = list(prior)
    corpus += [{"id": f"openreview:{r['id']}", "title": r["title"], "abstract": r["abstract"], "year": 2025,
                "field": "ML", "venue": "NEURIPS"} for r in rated]
    dup = rated[12]  # an earlier listing of a rated paper (same title): never its own neighbour
    corpus.append({"id": "workshop:N00", "title": dup["title"], "abstract": dup["abstract"], "year": 2023,
                   "field": "ML", "venue": "WORKSHOP"})
    return corpus, reviews


if __name__ == "__main__":
    from noveval.io import write_jsonl

    for name, rows in zip(("corpus", "reviews"), make(), strict=True):
        write_jsonl(Path(__file__).parent / f"{name}.jsonl", rows)
