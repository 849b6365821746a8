"""The stages of a validity run after :mod:`.prepare`: metrics, LLM judges, per-paper rows."""

from __future__ import annotations

import asyncio
import multiprocessing as mp
from concurrent.futures import ProcessPoolExecutor
from typing import TYPE_CHECKING, Any

from noveval.benchmarks.validate.judges import judge_papers
from noveval.benchmarks.validate.predictors import fit_key, score_metrics

if TYPE_CHECKING:
    from noveval.benchmarks.validate.options import ValidateOptions
    from noveval.models.chat import ChatClientProtocol

__all__ = ["run_metrics", "run_judges", "per_item_rows"]


def per_item_rows(prep: Any, opts: ValidateOptions, values: dict[str, dict[str, Any]], judged: set[int]) -> list[dict]:
    """One row per rated paper: human target, covariates, nearest prior paper and every predictor."""
    rows = []
    cands, retr = prep.cands, prep.retr
    for i, p in enumerate(prep.rated):
        nb = retr.neighbours(i)
        sims = retr.sim[i][: len(nb)]
        preds: dict[str, float | int | None] = {n: v.get(p.id) for n, v in values.items()}
        preds["nn_distance"] = float(1.0 - sims[0]) if len(nb) else None
        preds["topk_distance"] = float(1.0 - sims[: opts.top_k].mean()) if len(nb) else None
        rows.append({
            "id": p.id, "title": p.title, "year": p.year, "keywords": p.keywords,
            "human_scores": p.ratings, "human_mean": p.mean, "human_median": p.median, "n_raters": len(p.ratings),
            "abstract_words": len(p.abstract.split()),
            "nn_id": cands.ids[nb[0]] if len(nb) else None, "nn_title": cands.titles[nb[0]] if len(nb) else None,
            "nn_year": int(cands.years[nb[0]]) if len(nb) else None,
            "max_sim": float(sims[0]) if len(nb) else None,
            "topk_mean_sim": float(sims[: opts.top_k].mean()) if len(nb) else None,
            "pool_size": int(len(prep.pools[i])), "judged": i in judged,
            "predictors": preds,
        })
    return rows


def run_metrics(rd: Any, prep: Any, metrics: dict[str, Any], signatures: dict[str, str],
                subsets: dict[str, list[int]], opts: ValidateOptions) -> dict[str, dict[str, Any]]:
    """The corpus metrics of the rated papers (``subsets``: metric -> paper positions) against
    their pools (resumable; fit-cached unless ``opts.no_cache``)."""
    if not metrics:
        return {}
    fit_cache = None
    if not opts.no_cache:
        from noveval.novelty.fitcache import default_fit_cache

        fit_cache = default_fit_cache()
    cands, pools = prep.cands, prep.pools
    pool_keys: dict[int, str] = {}

    def cache_key(name: str, i: int) -> str:
        if i not in pool_keys:
            pool_keys[i] = cands.pool_key(pools[i])
        return fit_key(signatures[name], prep.focal_hash[i], pool_keys[i])

    def focal_input(name: str, i: int) -> Any:
        return prep.rated[i].title if metrics[name].inputs == "title" else prep.focal_emb[i]

    def pool_input(name: str, i: int) -> Any:
        if metrics[name].inputs == "title":
            return [cands.titles[j] for j in pools[i]]
        return cands.emb[pools[i]]

    executor = None
    if opts.jobs > 1:
        executor = ProcessPoolExecutor(opts.jobs, mp_context=mp.get_context("spawn"))
    try:
        return asyncio.run(score_metrics(
            rd, metrics, signatures, [p.id for p in prep.rated], subsets, focal_input=focal_input, pool_input=pool_input,
            cache_key=cache_key, fit_cache=fit_cache, executor=executor, jobs=opts.jobs,
            progress="validate: novelty metrics",
        ))
    finally:
        if executor is not None:
            executor.shutdown()


def run_judges(rd: Any, prep: Any, client: ChatClientProtocol, signatures: dict[str, str], judged: list[int],
               opts: ValidateOptions) -> dict[str, dict[str, Any]]:
    """The LLM judges on the ``judged`` papers, each shown its nearest prior papers."""
    cands = prep.cands
    items = []
    for i in judged:
        works = [{"title": cands.titles[j], "abstract": cands.abstracts[j], "year": int(cands.years[j])}
                 for j in prep.retr.neighbours(i, opts.related_works)]
        p = prep.rated[i]
        items.append({"id": p.id, "title": p.title, "abstract": p.abstract, "prior_works": works})
    values = client.run(judge_papers(
        rd, client, opts.judge_prompt, {j: signatures[f"llm_{j}"] for j in opts.judge_prompt}, items,
        max_abstract_chars=opts.max_abstract_chars, max_tokens=opts.max_tokens, seed=opts.seed,
        temperature=opts.temperature, samples=opts.samples, progress="validate: LLM judges",
    ))
    return {f"llm_{j}": v for j, v in values.items()}
