"""Score papers' novelty against a reference pool with chosen metrics (``noveval novelty score``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np


def _load(path: Path) -> list[dict]:
    from noveval.errors import InputError
    from noveval.io import read_jsonl

    rows = read_jsonl(path)
    for i, r in enumerate(rows, 1):
        if not isinstance(r, dict) or not str(r.get("title") or "").strip():
            raise InputError(str(path), i, "title", "each paper needs a non-empty title")
        if not isinstance(r.get("abstract", ""), str):
            raise InputError(str(path), i, "abstract", "must be a string")
    return rows


def score_papers(papers: Path, pool: Path, *, metrics: Sequence[str], embedder: str | object = "local",
                 top_k: int = 5) -> list[dict]:
    """Scores of each paper against the whole pool, plus its ``top_k`` nearest pool papers.

    Embedding metrics use title+abstract embeddings (computed once, cached); FastTextLOF
    trains one fastText model on the pool titles. Greater is more novel for all metrics.
    """
    from noveval.benchmarks.axioms.pools import paper_text
    from noveval.novelty import get_metric

    ps, pl = _load(Path(papers)), _load(Path(pool))
    if isinstance(embedder, str):
        from noveval.models.embed import get_embedder

        embedder = get_embedder(embedder)
    texts = [paper_text(r["title"], r.get("abstract") or "") for r in ps + pl]
    emb = np.asarray(embedder.encode(texts, batch_size=64, progress="embed"))  # type: ignore[attr-defined]
    ep, epool = emb[: len(ps)], emb[len(ps):]
    scores: dict[str, np.ndarray] = {}
    for m in metrics:
        metric = get_metric(m)
        if metric.inputs == "title":
            scores[m] = metric.score_many([r["title"] for r in ps], [r["title"] for r in pl])
        else:
            scores[m] = metric.score_many(ep, epool)
    sims = ep @ epool.T
    out = []
    for i, r in enumerate(ps):
        order = np.argsort(-sims[i], kind="stable")[:top_k]
        out.append({
            "id": str(r.get("id", i + 1)),
            "title": r["title"],
            "scores": {m: float(scores[m][i]) for m in metrics},
            "neighbours": [{"id": str(pl[j].get("id", j + 1)), "title": pl[j]["title"],
                            "similarity": float(sims[i, j])} for j in order],
        })
    return out
