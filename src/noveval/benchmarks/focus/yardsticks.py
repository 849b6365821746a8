"""Focus-level evaluation's yardsticks: paper-blind constant reviews and a shuffled pairing (issue 29).

- **KL** (``kl_mean``, lower is better): a review whose focus is *uniform* over the facets
  (chance; exact, with the run's smoothing and KL rule), and a constant review whose focus
  is the expert population's mean (trivial): its corpus distribution is the experts' own,
  so KL is 0 by construction — corpus-level KL cannot tell a paper-blind reviewer from a
  perfect one, and a model's KL should be read against that.
- **Focus F1** (``f1_overall``, ``f1_strength``, ``f1_weakness``): the same constant review
  for every paper: per polarity, the experts' mean number of points per paper, given the
  population's most frequent (target, aspect) labels in proportion to their frequency
  (largest remainders), scored with the run's matching rule (exact; the population
  includes the paper scored).
- **Text similarity** (``rougeL``, ``bleu4``, ``bertscore_f1``): each model review scored
  against another paper's expert reviews (shuffled pairing, the run's reference rule), at
  most :data:`MAX_PAPERS` papers (a seeded sample above that).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from noveval.benchmarks.focus.pipeline import _expert_texts, _saved
from noveval.benchmarks.focus.protocol import get_protocol
from noveval.benchmarks.focus.scoring import kl_table, per_paper_rows
from noveval.metrics.focus import ASPECTS, DEFAULT_EPSILON, TARGETS
from noveval.metrics.text import bertscore_f1, bleu4, rouge_f1
from noveval.metrics.yardsticks import shuffled_matrix_yardstick, yardstick
from noveval.runs import RunDir

__all__ = ["MAX_PAPERS", "baselines", "constant_review"]

MAX_PAPERS = 30
"""Most papers in the text-similarity pairing (every model review against every other paper's references)."""


def _kl(saved: Any, proto: Any, eps: float) -> list[dict[str, Any]]:
    human = [r for r in saved.human if r["paper_id"] in set(saved.paper_ids)]
    uniform = [{"paper_id": None, "source": "uniform", "polarity": pol, "target": t, "aspect": a}  # every pair once
               for pol in ("strength", "weakness") for t in TARGETS for a in ASPECTS]
    value = kl_table(human, uniform, epsilon=eps, present_only=proto.kl_present_only)["mean"]
    return [
        yardstick("uniform focus (paper-blind)", "chance", value,
                  f"exact: KL(experts || uniform over the facets), the run's smoothing (epsilon={eps}) and KL rule"),
        yardstick("population-mean focus (paper-blind constant review)", "trivial", 0.0,
                  "exact: its corpus distribution is the experts' own, so KL is 0 by construction"),
    ]


def constant_review(human: list[dict[str, Any]], paper_ids: list[str]) -> list[dict[str, Any]]:
    """The paper-blind constant review: judgment rows for one paper (``paper_id`` left ``None``).

    Per polarity: round(mean expert points per paper) points, labels apportioned to the
    population's (target, aspect) frequencies by largest remainders.
    """
    out: list[dict[str, Any]] = []
    for pol in ("strength", "weakness"):
        rows = [r for r in human if r["polarity"] == pol and r.get("target") and r.get("aspect")]
        k = int(round(len([r for r in human if r["polarity"] == pol]) / max(len(paper_ids), 1)))
        freq = Counter((r["target"], r["aspect"]) for r in rows)
        if not k or not freq:
            continue
        total = sum(freq.values())
        quota = {lab: k * c / total for lab, c in freq.items()}
        alloc = {lab: int(q) for lab, q in quota.items()}
        for lab in sorted(quota, key=lambda x: (-(quota[x] - alloc[x]), -freq[x], x))[: k - sum(alloc.values())]:
            alloc[lab] += 1
        for (target, aspect), c in alloc.items():
            out += [{"paper_id": None, "source": "constant", "polarity": pol, "target": target, "aspect": aspect}] * c
    return out


def _f1(saved: Any, proto: Any, weakness_only: bool, metrics: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    const = constant_review(saved.human, saved.paper_ids)
    model = [{**r, "paper_id": pid} for pid in saved.paper_ids for r in const]
    rows = per_paper_rows(saved.paper_ids, saved.human, model, text_metrics=False, matching=proto.matching,
                          weakness_only=weakness_only)
    n_pts = Counter(r["polarity"] for r in const)
    name = f"constant review ({n_pts['strength']} strengths, {n_pts['weakness']} weaknesses: the most frequent labels)"
    out: dict[str, list[dict[str, Any]]] = {}
    for key in ("f1_overall", "f1_strength", "f1_weakness"):
        vals = [r[key] for r in rows if r.get(key) is not None]
        if key in metrics and vals:
            out[key] = [yardstick(name, "trivial", float(np.mean(vals)),
                                  f"exact: the same review for every paper, {proto.matching} matching, mean over {len(vals)} papers")]
    return out


def _text(saved: Any, proto: Any, metrics: dict[str, Any], seed: int) -> dict[str, list[dict[str, Any]]]:
    texts = {r["id"]: r.get("review_text") or "" for r in saved.preds}
    refs = _expert_texts(saved.run, saved.judgments)
    ids = [p for p in saved.paper_ids if texts.get(p, "").strip() and any(x.strip() for x in refs.get(p, []))]
    if len(ids) > MAX_PAPERS:
        ids = [ids[i] for i in sorted(np.random.default_rng(seed).choice(len(ids), MAX_PAPERS, replace=False))]
    n = len(ids)
    fns = {"rougeL": lambda p, r: rouge_f1(p, r, kind="rougeL"), "bleu4": bleu4, "bertscore_f1": bertscore_f1}
    out = {}
    for key, fn in fns.items():
        if (metrics.get(key) or {}).get("mean") is None or n < 2:
            continue
        pairs = [(i, j, texts[ids[i]], ref) for i in range(n) for j in range(n) if i != j for ref in refs[ids[j]] if ref.strip()]
        vals = fn([p[2] for p in pairs], [p[3] for p in pairs])
        cell: dict[tuple[int, int], list[float]] = {}
        for (i, j, _, _), v in zip(pairs, vals, strict=True):
            cell.setdefault((i, j), []).append(float(v))
        m = np.full((n, n), np.nan)
        for (i, j), vs in cell.items():
            m[i, j] = max(vs) if proto.text_reference == "max" else float(np.mean(vs))
        what = f"{proto.text_reference} over a paper's expert references; {n} of {len(saved.paper_ids)} papers"
        y = shuffled_matrix_yardstick(m, name="shuffled pairing (another paper's expert reviews)", seed=seed, what=what)
        if y is not None:
            out[key] = [y]
    return out


def baselines(run_folder: Path | None, scores: dict[str, Any]) -> dict[str, list[dict[str, Any]]] | str:
    """Focus yardsticks of a run (see the module docstring).

    Args:
        run_folder: The run folder (its judgments and reviews).
        scores: The run's ``scores.json`` dict.
    """
    if run_folder is None or not (run_folder / "predictions.jsonl").is_file():
        return "the run folder is needed (its judgments and reviews)"
    run = RunDir.open(run_folder)
    saved = _saved(run)
    proto = get_protocol(scores.get("protocol") or run.config.get("protocol"))
    metrics = scores.get("metrics") or {}
    eps = float(run.config.get("epsilon", DEFAULT_EPSILON))
    seed = int(run.config.get("seed") or 0)
    out: dict[str, list[dict[str, Any]]] = {}
    if "kl_mean" in metrics and saved.human:
        out["kl_mean"] = _kl(saved, proto, eps)
    weakness_only = bool((scores.get("extra") or {}).get("weakness_only"))
    out.update(_f1(saved, proto, weakness_only, metrics))
    out.update(_text(saved, proto, metrics, seed))
    return out
