"""Regenerate the tiny synthetic corpus used by the axioms demo and tests (written by us).

Two fields (ML, Robotics), two topic phrases each, 2014-2024, template titles and
4-6 sentence abstracts; eight 2024 papers get a Markdown full text whose References
section cites earlier sample papers. Run: ``python make_sample.py`` in this folder.
"""

from __future__ import annotations

import random
from pathlib import Path

TOPICS = {
    ("ML", "graph learning"): ["node", "edge", "message passing", "spectral", "citation network", "molecule"],
    ("ML", "federated learning"): ["client", "privacy", "aggregation", "heterogeneous data", "communication", "server"],
    ("Robotics", "motion planning"): ["trajectory", "collision", "sampling", "manipulator", "obstacle", "kinodynamic"],
    ("Robotics", "legged locomotion"): ["gait", "terrain", "quadruped", "balance", "contact", "actuator"],
}
METHODS = ["contrastive", "bayesian", "hierarchical", "sparse", "adaptive", "robust", "meta", "causal",
           "differentiable", "probabilistic", "distributed", "online"]
VERBS = ["improves", "accelerates", "stabilises", "generalises", "simplifies", "scales"]


def make(seed: int = 0) -> tuple[list[dict], list[dict]]:
    rng = random.Random(seed)
    papers = []
    for (field, phrase), words in TOPICS.items():
        for k in range(70):
            year = 2014 + min(10, int(rng.random() ** 0.7 * 11))
            m, w1, w2 = rng.choice(METHODS), rng.choice(words), rng.choice(words)
            title = f"{m.capitalize()} {phrase} with {w1} and {w2} models ({k})"
            sents = [
                f"We study {phrase} where {w1} structure matters.",
                f"Existing {rng.choice(METHODS)} approaches ignore the {w2} component.",
                f"We propose a {m} method that {rng.choice(VERBS)} {phrase} for {rng.choice(words)} problems.",
                f"Experiments on {rng.choice(words)} benchmarks show gains over {rng.choice(METHODS)} baselines.",
            ] + [f"Our analysis of {rng.choice(words)} also {rng.choice(VERBS)} {rng.choice(words)} estimation."
                 for _ in range(rng.randint(0, 2))]
            papers.append({"id": f"sample:{field}:{phrase.replace(' ', '-')}:{k}", "title": title,
                           "abstract": " ".join(sents), "year": str(year), "field": field,
                           "venue": "SAMPLE", "tags": "[]", "keywords": "[]"})
    fulltext = []
    ml = [p for p in papers if p["field"] == "ML"]
    for p in [q for q in ml if q["year"] == "2024"][:8]:
        cited = rng.sample([q for q in ml if int(q["year"]) < 2024], 22)
        refs = "\n".join(f"- [{i + 1}] A. Author and B. Author. {q['title']}. In Proc. SAMPLE, {q['year']}."
                         for i, q in enumerate(cited))
        refs += "\n- [23] C. Other. An unrelated book title that is not in the corpus. 2001."
        md = f"## {p['title']}\n\n## Abstract\n\n{p['abstract']}\n\n## References\n\n{refs}\n\n## A Appendix\n\nText."
        fulltext.append({"id": p["id"], "title": p["title"], "year": p["year"], "fulltext_markdown": md})
    return papers, fulltext


if __name__ == "__main__":
    from noveval.io import write_jsonl

    for name, rows in zip(("corpus", "fulltext"), make(), strict=True):
        write_jsonl(Path(__file__).parent / f"{name}.jsonl", rows)
