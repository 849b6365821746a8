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
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from noveval.errors import InputError

__all__ = ["ValidateOptions", "run", "score", "RECONCILED"]

log = logging.getLogger("noveval")

RECONCILED = ("predictors", "model", "judge_limit", "min_raters", "min_group", "n_resamples", "high", "low")
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
        judge_limit: Papers judged by the LLM (seeded sample of the rated papers; None: all).
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
    return list(dict.fromkeys(names))


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


def _paper_fields(corpus: Any, titles: Sequence[str]) -> list[str | None]:
    from noveval.benchmarks.axioms.pools import normalize_title

    by_title: dict[str, str] = {}
    for t, f in zip(corpus.titles, corpus.fields):
        if f:
            by_title.setdefault(normalize_title(t), f)
    return [by_title.get(normalize_title(t)) for t in titles]


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
    import asyncio

    from noveval.benchmarks.axioms.pools import load_corpus, paper_text
    from noveval.benchmarks.validate.data import load_rated_papers
    from noveval.benchmarks.validate.judges import judge_papers, judge_signature
    from noveval.benchmarks.validate.pool import (
        build_candidates,
        excluded_titles,
        field_pools,
        retrieve,
    )
    from noveval.benchmarks.validate.predictors import fit_key, metric_signature, score_metrics
    from noveval.models.embed import text_hash
    from noveval.novelty import get_metric

    opts = options or ValidateOptions()
    metric_names = _check(opts)
    timings: dict[str, float] = {}
    t0 = time.perf_counter()

    # ---- inputs (all validated before anything is written)
    papers_all = load_rated_papers(reviews, aspect=opts.aspect, scale=opts.scale)
    papers = papers_all[: opts.limit] if opts.limit else papers_all
    rated = [p for p in papers if p.ratings]
    if not rated:
        raise InputError(reviews, None, f"reviews.scores.{opts.aspect}", "none of the selected papers has a rating")
    for p in rated:
        if p.year is None:
            raise InputError(reviews, p.line, "year", "each rated paper needs a year (prior work must be older)")
    if not Path(corpus).exists():
        raise InputError(corpus, None, None, "corpus file not found")
    corp = load_corpus(corpus)
    titles = [p.title for p in rated]
    years: list[int | None] = [p.year for p in rated]
    focal_fields: list[str] = []
    if opts.pool == "field":
        found = _paper_fields(corp, titles) if opts.field is None else [opts.field] * len(rated)
        for p, f in zip(rated, found):
            if f is None:
                raise InputError(reviews, p.line, "title", "field pool: the paper is not in the corpus, so its field "
                                                           "is unknown; pass --field")
            focal_fields.append(f)
    timings["load_s"] = time.perf_counter() - t0

    if isinstance(embedder, str):
        from noveval.models.embed import get_embedder

        emb_obj = get_embedder(embedder)
    else:
        emb_obj = embedder
    t1 = time.perf_counter()
    cands = build_candidates(corp, emb_obj, before_year=max(y for y in years if y is not None), field=opts.field,
                             max_corpus=opts.max_corpus, seed=opts.seed)
    focal_texts = [paper_text(p.title, p.abstract) for p in rated]
    focal_emb = np.asarray(emb_obj.encode(focal_texts, batch_size=64, progress="validate: embedding papers"),
                           dtype=np.float32)
    focal_hash = [text_hash(t) for t in focal_texts]
    timings["embed_s"] = time.perf_counter() - t1

    t1 = time.perf_counter()
    k = max(opts.top_k, opts.related_works, opts.pool_size if opts.pool == "neighbours" else 1)
    retr = retrieve(cands, focal_emb, titles, years, k=k)
    if opts.pool == "neighbours":
        pools = [retr.neighbours(i, opts.pool_size) for i in range(len(rated))]
        field_sizes: dict[str, int] = {}
    else:
        shared, sizes = field_pools(cands, focal_fields, years, pool_size=opts.pool_size, seed=opts.seed)
        excl = excluded_titles(cands, titles)
        pools = [np.setdiff1d(s, e, assume_unique=False) if len(e) else s for s, e in zip(shared, excl)]
        field_sizes = {f"{f}<{y}": n for (f, y), n in sizes.items()}
    timings["retrieve_s"] = time.perf_counter() - t1

    # ---- predictors' signatures and the run folder
    metrics = {n: get_metric(n) for n in metric_names}
    signatures = {n: metric_signature(m, emb_obj.model_id) for n, m in metrics.items()}
    client = None
    if model is not None and opts.judges:
        from noveval.models.client import get_client

        client = get_client(model, cache=cache, concurrency=concurrency) if isinstance(model, str) else model
        for j in opts.judges:
            signatures[f"llm_{j}"] = judge_signature(j, client.model_id, max_tokens=opts.max_tokens, seed=opts.seed)
    config = {
        "benchmark": "validate",
        "reviews": str(Path(reviews).resolve()),
        "corpus": str(Path(corpus).resolve()),
        "aspect": opts.aspect,
        "scale": list(opts.scale),
        "limit": opts.limit,
        "n_papers": len(rated),
        "embedder": emb_obj.model_id,
        "model": client.model_id if client else None,
        "pool": {"mode": opts.pool, "size": opts.pool_size, "field": opts.field, "max_corpus": opts.max_corpus,
                 "top_k": opts.top_k, "related_works": opts.related_works,
                 "max_abstract_chars": opts.max_abstract_chars},
        "seed": opts.seed,
        "predictors": signatures,
        "judge_limit": opts.judge_limit,
        "min_raters": opts.min_raters,
        "min_group": opts.min_group,
        "n_resamples": opts.n_resamples,
        "high": opts.high,
        "low": opts.low,
    }
    rd = _open_run(out, config, overwrite=overwrite)

    # ---- corpus metrics (resumable, cached per metric)
    t1 = time.perf_counter()
    fit_cache = None
    if cache is not None and metrics:
        from noveval.novelty.fitcache import default_fit_cache

        fit_cache = default_fit_cache()
    pool_keys: dict[int, str] = {}

    def pool_key(i: int) -> str:
        if i not in pool_keys:
            pool_keys[i] = cands.pool_key(pools[i])
        return pool_keys[i]

    def focal_input(name: str, i: int) -> Any:
        return titles[i] if metrics[name].inputs == "title" else focal_emb[i]

    def pool_input(name: str, i: int) -> Any:
        if metrics[name].inputs == "title":
            return [cands.titles[j] for j in pools[i]]
        return cands.emb[pools[i]]

    executor = None
    if opts.jobs > 1 and metrics:
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor

        executor = ProcessPoolExecutor(opts.jobs, mp_context=mp.get_context("spawn"))
    ids = [p.id for p in rated]
    try:
        metric_values = asyncio.run(score_metrics(
            rd, metrics, signatures, ids, focal_input=focal_input, pool_input=pool_input,
            cache_key=lambda n, i: fit_key(signatures[n], focal_hash[i], pool_key(i)), fit_cache=fit_cache,
            executor=executor, jobs=opts.jobs, progress="validate: novelty metrics" if progress else "",
        )) if metrics else {}
    finally:
        if executor is not None:
            executor.shutdown()
    timings["metrics_s"] = time.perf_counter() - t1
    metric_rows = rd.rows("predictions")
    timings.update({f"metric_{n}_compute_s": sum(float(r.get("seconds") or 0) for r in metric_rows
                                                 if r.get("predictor") == n) for n in metrics})

    # ---- LLM judges on a seeded subset
    t1 = time.perf_counter()
    judge_values: dict[str, dict[str, int | None]] = {}
    judged: list[int] = []
    if client is not None:
        n = len(rated) if opts.judge_limit is None else min(opts.judge_limit, len(rated))
        judged = sorted(np.random.default_rng(opts.seed).choice(len(rated), size=n, replace=False).tolist())
        items = []
        for i in judged:
            works = [{"title": cands.titles[j], "abstract": cands.abstracts[j], "year": int(cands.years[j])}
                     for j in retr.neighbours(i, opts.related_works)]
            items.append({"id": rated[i].id, "title": rated[i].title, "abstract": rated[i].abstract,
                          "prior_works": works})
        jsigs = {j: signatures[f"llm_{j}"] for j in opts.judges}
        judge_values = client.run(judge_papers(
            rd, client, opts.judges, jsigs, items, max_abstract_chars=opts.max_abstract_chars,
            max_tokens=opts.max_tokens, seed=opts.seed, progress="validate: LLM judges" if progress else "",
        ))
    timings["judges_s"] = time.perf_counter() - t1

    # ---- per-paper rows
    rows = []
    judged_set = set(judged)
    for i, p in enumerate(rated):
        nb = retr.neighbours(i)
        sims = retr.sim[i][: len(nb)]
        preds: dict[str, float | int | None] = {n: metric_values[n].get(p.id) for n in metrics}
        preds["nn_distance"] = float(1.0 - sims[0]) if len(nb) else None
        preds["topk_distance"] = float(1.0 - sims[: opts.top_k].mean()) if len(nb) else None
        for j in opts.judges if client is not None else ():
            preds[f"llm_{j}"] = judge_values.get(j, {}).get(p.id)
        rows.append({
            "id": p.id, "title": p.title, "year": p.year, "keywords": p.keywords,
            "human_scores": p.ratings, "human_mean": p.mean, "human_median": p.median, "n_raters": len(p.ratings),
            "abstract_words": len(p.abstract.split()),
            "nn_id": cands.ids[nb[0]] if len(nb) else None, "nn_title": cands.titles[nb[0]] if len(nb) else None,
            "nn_year": int(cands.years[nb[0]]) if len(nb) else None,
            "max_sim": float(sims[0]) if len(nb) else None,
            "topk_mean_sim": float(sims[: opts.top_k].mean()) if len(nb) else None,
            "pool_size": int(len(pools[i])), "judged": i in judged_set,
            "predictors": preds,
        })
    rd.write("per_item", rows)

    failures = {
        "metrics": sum(1 for r in metric_rows if r.get("error")),
        "judge_calls": sum(1 for r in rd.rows("judgments") if r.get("error")),
    }
    failures["total"] = failures["metrics"] + failures["judge_calls"]
    unparseable = sum(1 for r in rd.rows("judgments") if not r.get("error") and r.get("score") is None)
    extra_info = {
        "pool": {**cands.summary, "mode": opts.pool, "pool_size": opts.pool_size,
                 "mean_pool_size": float(np.mean([len(pl) for pl in pools])), "self_title_matches": retr.self_matches,
                 "field_prior_sizes": field_sizes},
        "papers": {"in_file": len(papers_all), "selected": len(papers), "rated": len(rated),
                   "unrated": len(papers) - len(rated), "judged": len(judged)},
        "judge_unparseable": unparseable,
        "timings_s": {**{k: round(v, 2) for k, v in timings.items()}},
        "cache": client.stats if client is not None else None,
    }
    score(rd.path, progress=progress, extra=extra_info, failures=failures)
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
    if failures is None:
        failures = {"metrics": sum(1 for r in rd.rows("predictions") if r.get("error")),
                    "judge_calls": sum(1 for r in rd.rows("judgments") if r.get("error"))}
        failures["total"] = failures["metrics"] + failures["judge_calls"]
    kept = {k: v for k, v in (old.get("extra") or {}).items() if k in ("pool", "papers", "judge_unparseable",
                                                                         "timings_s", "cache")}
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
        "extra": {**kept, **(extra or {}), **res["extra"]},
    }
    rd.write_scores(scores)
    return scores
