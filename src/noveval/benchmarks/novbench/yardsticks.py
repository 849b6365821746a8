"""NovBench's yardsticks: the Human row, a shuffled pairing and a constant sentiment mix (issue 29).

- **Human** (Relevance, Clarity): the gold evaluations scored as if they were predictions
  (Table 2's Human row; :func:`~noveval.benchmarks.novbench.scoring.score_human`), taken
  from the run's ``extra.human`` with its bootstrap CI.
- **Shuffled pairing** (Relevance, Coverage, DistAcc): each generated evaluation scored
  against another paper's novelty description and gold evaluation, with the run's own
  scorer (:func:`~noveval.benchmarks.novbench.scoring.score_outputs`: same embedders, τ and
  placeholder rule) on every (prediction, other paper) pair: the exact expectation over
  random pairings, and the range 95% of 10,000 random pairings fall in. A generic
  evaluation that fits any paper scores close to it. Papers the model left empty score 0
  as in the run. At most :data:`MAX_ITEMS` papers (a seeded sample above that).
- **Population-mean sentiment mix** (DistAcc): one constant answer whose positive /
  neutral / negative shares are the mean over the run's gold evaluations (exact).

The embedders are rebuilt from the ids in ``extra`` (the bundled one, or an ``openai/...``
spec); their vectors come from the cache the run filled. A run whose embedder cannot be
rebuilt from its id (a local folder) gets the Human row and the DistAcc yardsticks only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from noveval.benchmarks.novbench.data import load_records
from noveval.benchmarks.novbench.scoring import _gold_items, load_predictions, score_outputs
from noveval.metrics.novbench import SENTIMENTS, sentiment_distribution
from noveval.metrics.yardsticks import shuffled_matrix_yardstick, yardstick
from noveval.models.embed import BUNDLED_EMBEDDER_ID

__all__ = ["MAX_ITEMS", "baselines"]

MAX_ITEMS = 80
"""Most papers in the shuffled pairing (n² pairs are scored)."""


def _human(scores: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    human = (scores.get("extra") or {}).get("human") or {}
    out: dict[str, list[dict[str, Any]]] = {}
    for key in ("relevance", "clarity", "clarity_reference"):
        m = human.get(key) or {}
        if m.get("mean") is not None:
            out[key] = [yardstick("human (gold evaluations as predictions)", "human", m["mean"],
                                  f"Table 2's Human row on this run's papers: mean with 95% bootstrap CI, n = {m.get('n')}",
                                  ci_low=m.get("ci_low"), ci_high=m.get("ci_high"), n=m.get("n"))]
    return out


def _embedder(model_id: str | None) -> Any | None:
    """The embedder a run's id names, when it can be rebuilt from the id alone (else None)."""
    from noveval.models import get_embedder

    if not model_id:
        return None
    if model_id == BUNDLED_EMBEDDER_ID:
        return get_embedder("local")
    if model_id.startswith(("openai/", "openai-compatible/")):
        return get_embedder(model_id)
    return None


def _records(run_folder: Path) -> tuple[list[Any], dict[str, str | None]] | None:
    """The answered records (in prediction order) and the outputs, or None when the folder does not say."""
    if not (run_folder / "predictions.jsonl").is_file():
        return None
    outputs, config = load_predictions(run_folder)
    if not config.get("records"):
        return None
    by_id = {r.id: r for r in load_records(str(config["records"]))}
    recs = [by_id[i] for i in outputs if i in by_id]
    return recs, outputs


def _constant_mix(records: list[Any], placeholders: str) -> dict[str, Any] | None:
    """DistAcc of the population-mean sentiment mix as every paper's answer (exact)."""
    dists = [sentiment_distribution([lab for lab, _ in g]) for r in records if (g := _gold_items(r, placeholders))]
    if not dists:
        return None
    mean = {c: float(np.mean([d[c] for d in dists])) for c in SENTIMENTS}
    vals = [1 - sum(abs(mean[c] - d[c]) for c in SENTIMENTS) / 2 for d in dists]
    mix = "/".join(f"{mean[c]:.2f}" for c in SENTIMENTS)
    return yardstick(f"population-mean sentiment mix ({mix} pos/neu/neg)", "trivial", float(np.mean(vals)),
                     f"exact: one constant answer, mean over {len(dists)} gold evaluations")


def _shuffled(records: list[Any], outputs: dict[str, str | None], scores: dict[str, Any],
              seed: int) -> dict[str, list[dict[str, Any]]]:
    """Relevance, Coverage and DistAcc of every (prediction i, paper j) pair, as yardsticks."""
    extra = scores.get("extra") or {}
    emb, rel = _embedder(extra.get("embedder")), _embedder(extra.get("relevance_embedder"))
    if emb is None or rel is None:
        return {}
    n_all = len(records)
    pick = sorted(np.random.default_rng(seed).choice(n_all, MAX_ITEMS, replace=False)) if n_all > MAX_ITEMS else range(n_all)
    recs = [records[i] for i in pick]
    n = len(recs)
    pairs = [recs[j].model_copy(update={"id": f"{i}|{j}"}) for i in range(n) for j in range(n)]
    outs = {f"{i}|{j}": outputs.get(recs[i].id) for i in range(n) for j in range(n)}
    rows = score_outputs(pairs, outs, embedder=emb, relevance_embedder=rel, perplexity=None,
                         tau=float(extra.get("tau") or 0.7), placeholders=str(extra.get("placeholders") or "drop"))
    what = f"on {n} of {n_all} papers (seeded sample)" if n < n_all else ""
    got = {key: shuffled_matrix_yardstick(
        np.array([np.nan if r[key] is None else float(r[key]) for r in rows], dtype=float).reshape(n, n),
        name="shuffled pairing (another paper's gold)", seed=seed, what=what) for key in ("relevance", "coverage", "dist_acc")}
    return {key: [y] for key, y in got.items() if y is not None}


def baselines(run_folder: Path | None, scores: dict[str, Any]) -> dict[str, list[dict[str, Any]]] | str:
    """NovBench yardsticks of a run (see the module docstring).

    Args:
        run_folder: The run folder (its ``config.json`` names the records file).
        scores: The run's ``scores.json`` dict.
    """
    out = _human(scores)
    got = _records(run_folder) if run_folder is not None else None
    if got is None:
        return out or "the records file is not known (scores not saved in a run folder)"
    records, outputs = got
    seed = int((scores.get("extra") or {}).get("seed") or 0)
    for key, ys in _shuffled(records, outputs, scores, seed).items():
        out.setdefault(key, []).extend(ys)
    mix = _constant_mix(records, str((scores.get("extra") or {}).get("placeholders") or "drop"))
    if mix is not None:
        out.setdefault("dist_acc", []).append(mix)
    metrics = scores.get("metrics") or {}
    return {k: v for k, v in out.items() if k in metrics}
