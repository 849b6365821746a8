"""Python API of ``noveval validate``: ``run`` (predict + score) and ``score`` (re-score a run folder).

::

    from noveval.benchmarks.validate import ValidateOptions, run, score
    path = run("reviews.jsonl.gz", "papers.jsonl.gz", out="runs/validity", model="local",
               options=ValidateOptions(limit=200, judge_limit=20))
    scores = score(path)

A run folder follows the benchmarks' contract (:mod:`noveval.runs`): ``config.json``,
``predictions.jsonl`` (one row per metric and paper), ``judgments.jsonl`` (raw LLM judge
answers), ``per_item.jsonl`` (one row per rated paper: human target, covariates and every
predictor) and ``scores.json``. Re-running resumes; the predictor signatures in the config
(``predictors``) may change between runs and only the changed predictors are recomputed.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from noveval.errors import InputError

__all__ = ["ValidateOptions", "run", "score", "RECONCILED"]

log = logging.getLogger("noveval")

RECONCILED = ("predictors", "model", "judge_limit", "metric_limits", "min_raters", "min_group", "n_resamples",
              "high", "low")
"""Config keys that may change between runs of one folder (they never change a stored row)."""


@dataclass
class ValidateOptions:
    """Settings of a validity run.

    Attributes:
        metrics: Corpus novelty metrics (``noveval.novelty.get_metric`` names); () for none.
        pool: ``neighbours`` (each paper's nearest prior papers) or ``field`` (a seeded
            sample of the paper's field before its year).
        pool_size: Papers in a metric's pool (at most 5,000).
        field: Restrict prior work to this corpus field (None: all fields; in ``field`` mode
            the paper's own field, from its corpus record).
        top_k: k of the top-k mean similarity signal.
        judges: LLM judge prompts (``rubric``, ``direct``); () for none.
        judge_limit: Papers judged by the LLM (the first of a seeded order of the rated papers; None: all).
        metric_limits: Metric name (or ``"*"``: every metric) -> number of papers it is computed
            for, the first of the same seeded order (so the samples are nested: a paper judged
            is also scored by a limited metric when its limit is at least the judge limit;
            raising a limit later only adds papers). None or absent: all papers.
        related_works: Prior papers shown to the LLM judges.
        max_abstract_chars: Characters of each prior abstract shown to the judges.
        max_tokens: Judge answer budget.
        limit: Use only the first N papers of the ratings file.
        max_corpus: Seeded sample of at most N prior corpus papers (quick runs).
        min_raters: Ratings a paper needs for the human ceiling.
        min_group: Smallest keyword group analysed.
        high, low: AUC groups: mean rating >= high vs <= low.
        n_resamples: Bootstrap resamples.
        jobs: Processes for the metric fits.
        seed: Seed of samples, bootstrap and generation.
        aspect: Review score used as the human rating.
        scale: Its valid range.
    """

    metrics: tuple[str, ...] = ("Yin", "RND", "SemNovel", "FastTextLOF")
    pool: str = "neighbours"
    pool_size: int = 500
    field: str | None = None
    top_k: int = 10
    judges: tuple[str, ...] = ("rubric", "direct")
    judge_limit: int | None = 200
    metric_limits: dict[str, int] | None = None
    related_works: int = 5
    max_abstract_chars: int = 800
    max_tokens: int = 384
    limit: int | None = None
    max_corpus: int | None = None
    min_raters: int = 3
    min_group: int = 80
    high: float = 3.5
    low: float = 2.0
    n_resamples: int = 1000
    jobs: int = 1
    seed: int = 0
    aspect: str = "originality"
    scale: tuple[int, int] = (1, 4)


def _check(opts: ValidateOptions) -> list[str]:
    from noveval.benchmarks.validate.judges import JUDGES
    from noveval.benchmarks.validate.pool import MAX_POOL, POOL_MODES
    from noveval.novelty import METRICS

    if opts.pool not in POOL_MODES:
        raise InputError(None, None, "--pool", f"must be one of {', '.join(POOL_MODES)}, got {opts.pool!r}")
    if not 2 <= opts.pool_size <= MAX_POOL:
        raise InputError(None, None, "--pool-size", f"must be from 2 to {MAX_POOL} (the exact metrics fit the whole "
                                                    f"pool for every paper), got {opts.pool_size}")
    names = []
    for m in opts.metrics:
        hit = [k for k in METRICS if k.lower() == m.lower()]
        if not hit:
            raise InputError(None, None, "--metric", f"unknown metric {m!r}; choose from {', '.join(METRICS)}")
        names.append(hit[0])
    for j in opts.judges:
        if j not in JUDGES:
            raise InputError(None, None, "--judge-prompt", f"unknown judge prompt {j!r}; choose from {', '.join(JUDGES)}")
    if opts.min_raters < 2:
        raise InputError(None, None, "--min-raters", "must be at least 2")
    for k, v in (opts.metric_limits or {}).items():
        if k != "*" and k not in METRICS:  # a known metric not selected in this run is ignored
            raise InputError(None, None, "--metric-limit", f"unknown metric {k!r}; choose from {', '.join(METRICS)}")
        if v < 1:
            raise InputError(None, None, "--metric-limit", f"must be at least 1, got {v} for {k}")
    return list(dict.fromkeys(names))


def _limit(opts: ValidateOptions, name: str) -> int | None:
    """The paper limit of metric ``name`` (its own, else ``"*"``; None: all papers)."""
    lim = opts.metric_limits or {}
    return lim.get(name, lim.get("*"))


def _open_run(out: str | Path, config: dict[str, Any], *, overwrite: bool) -> Any:
    """Create or resume the run; the keys in :data:`RECONCILED` may differ from the stored ones."""
    from noveval.io import read_json, write_json
    from noveval.runs import RunDir

    cfg_file = Path(out) / "config.json"
    old = read_json(cfg_file) if cfg_file.exists() and not overwrite else None
    probe = dict(config)
    if isinstance(old, dict):
        for k in RECONCILED:
            if k in old:
                probe[k] = old[k]
    run = RunDir.create(out, probe, overwrite=overwrite)
    if isinstance(old, dict):
        changed = [k for k in RECONCILED if old.get(k) != config.get(k)]
        old_p, new_p = old.get("predictors") or {}, config.get("predictors") or {}
        redo = sorted(p for p in new_p if p in old_p and old_p[p] != new_p[p])
        if redo:
            log.info("validate: %s changed since the last run of this folder; recomputing only %s",
                     ", ".join(redo), "them" if len(redo) > 1 else "it")
        if changed:
            cfg = run.config
            cfg.update({k: config.get(k) for k in RECONCILED})
            write_json(cfg_file, cfg)
    return run


def run(
    reviews: str | Path,
    corpus: str | Path,
    *,
    out: str | Path,
    model: str | Any | None = "local",
    embedder: str | Any = "local",
    options: ValidateOptions | None = None,
    overwrite: bool = False,
    cache: str | None = "default",
    concurrency: int | None = None,
    progress: bool = True,
) -> Path:
    """Compute every predictor for every rated paper and score them against the human ratings.

    Args:
        reviews: Ratings file (:func:`noveval.benchmarks.validate.data.load_rated_papers`).
        corpus: Corpus JSONL(.gz) with ``id, title, abstract, year, field``.
        out: Run directory (resumed when it holds the same settings).
        model: Chat model spec or client for the LLM judges (None: no judges).
        embedder: Embedder spec or object (title+abstract embeddings, vector-cached).
        options: :class:`ValidateOptions`.
        overwrite: Replace a run with other settings in ``out``.
        cache: ``"default"`` or a path for the response cache; None disables the response
            and fit caches (the vector cache stays on).
        concurrency: Max judge requests in flight.
        progress: Show progress.

    Returns:
        The run directory.

    Raises:
        InputError: bad files or options (nothing is written then).
    """
    from noveval.benchmarks.validate.judges import judge_signature
    from noveval.benchmarks.validate.predictors import metric_signature
    from noveval.benchmarks.validate.prepare import prepare
    from noveval.benchmarks.validate.stages import per_item_rows, run_judges, run_metrics
    from noveval.novelty import get_metric

    opts = options or ValidateOptions()
    metric_names = _check(opts)
    if isinstance(embedder, str):
        from noveval.models.embed import get_embedder

        embedder = get_embedder(embedder)
    prep = prepare(reviews, corpus, opts, embedder)
    timings = dict(prep.timings)

    metrics = {n: get_metric(n) for n in metric_names}
    signatures = {n: metric_signature(m, prep.embedder_id) for n, m in metrics.items()}
    client = None
    if model is not None and opts.judges:
        from noveval.models.client import get_client

        client = get_client(model, cache=cache, concurrency=concurrency) if isinstance(model, str) else model
        for j in opts.judges:
            signatures[f"llm_{j}"] = judge_signature(j, client.model_id, max_tokens=opts.max_tokens, seed=opts.seed,
                                                     related_works=opts.related_works,
                                                     max_abstract_chars=opts.max_abstract_chars)
    config = {
        "benchmark": "validate",
        "reviews": str(Path(reviews).resolve()),
        "corpus": str(Path(corpus).resolve()),
        "aspect": opts.aspect,
        "scale": list(opts.scale),
        "limit": opts.limit,
        "n_papers": len(prep.rated),
        "embedder": prep.embedder_id,
        "model": client.model_id if client else None,
        "pool": {"mode": opts.pool, "size": opts.pool_size, "field": opts.field, "max_corpus": opts.max_corpus,
                 "top_k": opts.top_k},
        "seed": opts.seed,
        "predictors": signatures,
        "judge_limit": opts.judge_limit,
        "metric_limits": {n: _limit(opts, n) for n in metrics if _limit(opts, n) is not None} or None,
        "min_raters": opts.min_raters,
        "min_group": opts.min_group,
        "n_resamples": opts.n_resamples,
        "high": opts.high,
        "low": opts.low,
    }
    rd = _open_run(out, config, overwrite=overwrite)

    t0 = time.perf_counter()
    order = np.random.default_rng(opts.seed).permutation(len(prep.rated))
    subsets = {n: sorted(order[: _limit(opts, n) or len(order)].tolist()) for n in metrics}
    values = run_metrics(rd, prep, metrics, signatures, subsets, opts, cache, progress)
    timings["metrics_s"] = time.perf_counter() - t0
    for r in rd.rows("predictions"):
        key = f"metric_{r.get('predictor')}_compute_s"
        timings[key] = timings.get(key, 0.0) + float(r.get("seconds") or 0.0)
    judged: list[int] = []
    if client is not None:
        t0 = time.perf_counter()
        judged = sorted(order[: opts.judge_limit or len(order)].tolist())
        judge_values = run_judges(rd, prep, client, signatures, judged, opts, progress)
        values.update(judge_values)
        timings["judges_s"] = time.perf_counter() - t0
    rd.write("per_item", per_item_rows(prep, opts, values, set(judged)))
    extra_info = {
        "pool": prep.pool_summary(opts.pool, opts.pool_size),
        "papers": {"in_file": prep.papers_in_file, "selected": prep.papers_selected, "rated": len(prep.rated),
                   "unrated": prep.papers_selected - len(prep.rated), "judged": len(judged)},
        "timings_s": {k: round(v, 2) for k, v in timings.items()},
        "cache": client.stats if client is not None else None,
    }
    score(rd.path, progress=progress, extra=extra_info)
    return rd.path


def score(
    run_dir: str | Path,
    *,
    progress: bool = True,
    extra: dict[str, Any] | None = None,
    failures: dict[str, int] | None = None,
) -> dict[str, Any]:
    """(Re)compute ``scores.json`` of a validity run from its ``per_item.jsonl`` (no model calls).

    Args:
        run_dir: The run folder.
        progress: Show progress.
        extra: Run facts to keep in ``extra`` (pool, papers, timings); default: the ones
            already in scores.json.
        failures: Failure counts (default: counted from the run's rows).

    Returns:
        The ``scores.json`` dict.
    """
    from noveval.benchmarks.validate.analysis import score_rows
    from noveval.runs import RunDir

    rd = RunDir.open(run_dir)
    cfg = rd.config
    rows = rd.rows("per_item")
    if not rows:
        raise InputError(rd.file("per_item"), None, None, "no per-item rows: the run has not finished its first pass")
    old = rd.scores
    predictors = list(cfg.get("predictors") or {})
    order = ["Yin", "RND", "SemNovel", "FastTextLOF", "nn_distance", "topk_distance", "llm_rubric", "llm_direct"]
    present = {k for r in rows for k in (r.get("predictors") or {})}
    names = [p for p in order if p in present and (p in predictors or p in ("nn_distance", "topk_distance"))]
    names += sorted(p for p in present if p not in names and p in predictors)
    pool = cfg.get("pool") or {}
    res = score_rows(rows, predictors=names, min_raters=int(cfg.get("min_raters", 3)),
                     min_group=int(cfg.get("min_group", 80)), high=float(cfg.get("high", 3.5)),
                     low=float(cfg.get("low", 2.0)), n_resamples=int(cfg.get("n_resamples", 1000)),
                     seed=int(cfg.get("seed", 0)), top_k=pool.get("top_k"), progress=progress)
    sigs = cfg.get("predictors") or {}
    current = [r for r in rd.rows("judgments") if sigs.get(f"llm_{r.get('judge')}") == r.get("signature")]
    if failures is None:
        failures = {"metrics": sum(1 for r in rd.rows("predictions") if r.get("error")),
                    "judge_calls": sum(1 for r in current if r.get("error"))}
        failures["total"] = failures["metrics"] + failures["judge_calls"]
    parse: dict[str, dict[str, int]] = {}
    for r in current:
        if not r.get("error"):
            parse.setdefault(r["judge"], {}).setdefault(str(r.get("parse_status")), 0)
            parse[r["judge"]][str(r.get("parse_status"))] += 1
    kept = {k: v for k, v in (old.get("extra") or {}).items() if k in ("pool", "papers", "timings_s", "cache")}
    scores = {
        "benchmark": "validate",
        "model": cfg.get("model") or "none",
        "embedder": cfg.get("embedder"),
        "aspect": cfg.get("aspect"),
        "metrics": res["metrics"],
        "primary_metric": None,
        "greater_is_better": True,
        "complete": not failures.get("total"),
        "failures": failures,
        "predictors": cfg.get("predictors"),
        "extra": {**kept, **(extra or {}), **res["extra"], "judge_parse_status": parse},
    }
    rd.write_scores(scores)
    return scores
