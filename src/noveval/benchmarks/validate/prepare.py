"""Everything a validity run needs before its run folder exists: ratings, corpus, embeddings,
retrieval and pools. All input errors are raised here, so a bad file writes nothing."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from noveval.benchmarks.validate.data import ASPECT, SCALE, load_rated_papers
from noveval.benchmarks.validate.pool import (
    build_candidates,
    excluded_titles,
    field_pools,
    retrieve,
)
from noveval.corpus import load_corpus, normalize_title, paper_text
from noveval.errors import InputError
from noveval.hfdata import is_hf_source
from noveval.models.embed import resolved_embedder, text_hash
from noveval.models.types import EmbedderProtocol

__all__ = ["CANDIDATES_PER_PAPER", "Prepared", "candidate_cap", "prepare"]

log = logging.getLogger("noveval")

CANDIDATES_PER_PAPER = 500
"""Prior candidates sampled per analysed paper when ``--limit`` bounds a run and ``--max-corpus``
is not given (see :func:`candidate_cap`)."""


@dataclass
class Prepared:
    """The rated papers with their embeddings, retrieved prior work and metric pools.

    Attributes:
        papers_in_file, papers_selected: Counts before and after the limit.
        rated: Selected papers with at least one rating (the analysed papers).
        cands: Prior-work candidates (:class:`~noveval.benchmarks.validate.pool.Candidates`).
        focal_emb: (n, d) embeddings of the rated papers' title+abstract.
        focal_hash: Text hash of each rated paper (fit-cache keys).
        retr: Nearest prior candidates of each rated paper.
        pools: Candidate positions of each paper's metric pool.
        field_sizes: In ``field`` mode, the size of each field's prior set before sampling.
        embedder_id: The embedder's model id.
        embedder_resolved: What it resolved to (:func:`~noveval.models.embed.resolved_embedder`).
        timings: Seconds per step.
    """

    papers_in_file: int
    papers_selected: int
    rated: list[Any]
    cands: Any
    focal_emb: np.ndarray
    focal_hash: list[str]
    retr: Any
    pools: list[np.ndarray]
    field_sizes: dict[str, int] = field(default_factory=dict)
    embedder_id: str = ""
    embedder_resolved: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)

    def pool_summary(self, mode: str, size: int) -> dict[str, Any]:
        """What the pools were, for ``scores.json``."""
        return {**self.cands.summary, "mode": mode, "pool_size": size,
                "mean_pool_size": float(np.mean([len(p) for p in self.pools])) if self.pools else 0.0,
                "self_title_matches": self.retr.self_matches, "field_prior_sizes": self.field_sizes}


def _paper_fields(corpus: Any, titles: list[str]) -> list[str | None]:
    """Each title's field from its own corpus record (any year), matched by normalised title."""
    by_title: dict[str, str] = {}
    for t, f in zip(corpus.titles, corpus.fields):
        if f:
            by_title.setdefault(normalize_title(t), f)
    return [by_title.get(normalize_title(t)) for t in titles]


def candidate_cap(opts: Any, n_papers: int) -> tuple[int | None, str | None]:
    """The candidate sample size of a run and, when the limit chose it, why.

    Every retrieval signal of a paper (nearest prior paper, top-k mean similarity, the
    judges' related works, the ``neighbours`` pool) is defined over *all* prior candidates
    (module :mod:`.pool`), so an exact run embeds the whole prior corpus (~95k papers of
    the shared corpus) whatever the number of papers. With ``opts.limit`` set and no
    ``opts.max_corpus``, the candidates are instead a seeded sample of
    ``max(CANDIDATES_PER_PAPER * n_papers, 2 * pool_size)`` prior papers, so the embedding
    work grows with the limit and not with the corpus; the signals are then the same
    definitions over that sample (recorded in the run's ``pool.sampled_from`` and
    ``pool.candidate_cap``). An explicit ``max_corpus`` (any size; above the corpus: all)
    always wins.

    Args:
        opts: The run's :class:`~noveval.benchmarks.validate.options.ValidateOptions`.
        n_papers: Rated papers the run analyses (after the limit).

    Returns:
        ``(max_corpus, rule)``: the sample size (None: all candidates) and the rule that
        set it (None: the user's ``max_corpus`` or none).
    """
    if opts.max_corpus is not None or not opts.limit:
        return opts.max_corpus, None
    cap = max(CANDIDATES_PER_PAPER * n_papers, 2 * opts.pool_size)
    return cap, (f"--limit {opts.limit}: a seeded sample of at most {cap} prior candidates "
                 f"(max({CANDIDATES_PER_PAPER} x {n_papers} papers, 2 x pool size {opts.pool_size})); "
                 "set --max-corpus to choose another (above the corpus size: all)")


def prepare(reviews: str | Path, corpus: str | Path, opts: Any, embedder: EmbedderProtocol) -> Prepared:
    """Load and check the inputs, embed, retrieve prior work and build each paper's pool.

    Args:
        reviews: Ratings file.
        corpus: Corpus file.
        opts: The run's :class:`~noveval.benchmarks.validate.options.ValidateOptions`.
        embedder: An embedder object.

    Raises:
        InputError: bad files, no rating, a rated paper without a year, an unknown field.
    """
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    papers_all = load_rated_papers(reviews, aspect=ASPECT, scale=SCALE)
    papers = papers_all[: opts.limit] if opts.limit else papers_all
    rated = [p for p in papers if p.ratings]
    if not rated:
        raise InputError(reviews, None, f"reviews.scores.{ASPECT}", "none of the selected papers has a rating")
    for p in rated:
        if p.year is None:
            raise InputError(reviews, p.line, "year", "each rated paper needs a year (prior work must be older)")

    if not is_hf_source(corpus) and not Path(corpus).exists():
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
                                                           "is unknown; set the field to use (ML, CV, NLP, ...)")
            focal_fields.append(f)
    timings["load_s"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    max_corpus, cap_rule = candidate_cap(opts, len(rated))
    cands = build_candidates(corp, embedder, before_year=max(y for y in years if y is not None), field=opts.field,
                             max_corpus=max_corpus, seed=opts.seed)
    if cap_rule is not None:
        cands.summary["candidate_cap"] = cap_rule
        if cands.summary.get("sampled_from"):
            log.warning("validate: %s (of %d)", cap_rule, cands.summary["sampled_from"])
    focal_texts = [paper_text(p.title, p.abstract) for p in rated]
    focal_emb = np.asarray(embedder.encode(focal_texts, batch_size=64, progress="validate: embedding papers"),
                           dtype=np.float32)
    timings["embed_s"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    k = max(opts.top_k, opts.related_works, opts.pool_size if opts.pool == "neighbours" else 1)
    retr = retrieve(cands, focal_emb, titles, years, k=k)
    field_sizes: dict[str, int] = {}
    if opts.pool == "neighbours":
        pools = [retr.neighbours(i, opts.pool_size) for i in range(len(rated))]
    else:
        shared, sizes = field_pools(cands, focal_fields, years, pool_size=opts.pool_size, seed=opts.seed)
        excl = excluded_titles(cands, titles)
        pools = [np.setdiff1d(s, e) if len(e) else s for s, e in zip(shared, excl)]
        field_sizes = {f"{f} before {y}": n for (f, y), n in sizes.items()}
    timings["retrieve_s"] = time.perf_counter() - t0
    return Prepared(papers_in_file=len(papers_all), papers_selected=len(papers), rated=rated, cands=cands,
                    focal_emb=focal_emb, focal_hash=[text_hash(t) for t in focal_texts], retr=retr, pools=pools,
                    field_sizes=field_sizes, embedder_id=embedder.model_id,
                    embedder_resolved=resolved_embedder(embedder), timings=timings)
