"""``noveval index search`` and ``noveval novelty score`` as run functions: their options
(:class:`SearchRunOptions`, :class:`NoveltyScoreOptions`) and :func:`run_search`,
:func:`run_novelty_score`, which the CLI runs through the runner
(:func:`~noveval.benchmarks._runner.run_task` with ``one_file=True``), so the listwise
reranker's calls and the embedder's get the endpoint check, the call ledger and the
outcome of every other model call."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, model_validator

from noveval.errors import InputError
from noveval.models.types import ModelLike
from noveval.options import EmbedderOption, RetrievalMode, RunOptions, option

__all__ = ["NoveltyMetricsOption", "NoveltyScoreOptions", "SearchRunOptions", "run_novelty_score", "run_search"]


class SearchRunOptions(RunOptions, EmbedderOption):
    """The options of one index search (the reranker is the run's model).

    Attributes:
        index: The index folder.
        query: The query text.
        retrieval: ``bm25``, ``dense`` or ``hybrid`` (reciprocal rank fusion).
        k: Hits shown.
        before_year: Only papers published before this year.
        field: Only papers of these fields.
        rrf_k: Reciprocal rank fusion constant.
        rerank_depth: Candidates the reranker orders (when there is one).
        prf: RM3 pseudo-relevance feedback on the BM25 ranking.
    """

    index: Path = option(..., argument=True, help="Index folder.")
    query: str = option(..., argument=True, help="Query text (e.g. a title and abstract).")
    retrieval: RetrievalMode = option("hybrid", help="bm25 | dense | hybrid (reciprocal rank fusion).")
    k: int = option(10, "--top-k", "-k", ge=1, help="Hits shown.")
    before_year: int | None = option(None, help="Only papers published before this year.")
    field: list[str] | None = option(None, help="Only papers of this 'field' (repeatable).")
    rrf_k: int = option(60, "--rrf-k", ge=1, help="Reciprocal rank fusion constant.")
    rerank_depth: int = option(30, "--rerank-depth", ge=2, le=50, help="Candidates the reranker orders.")
    prf: bool = option(False, "--prf", help="RM3 pseudo-relevance feedback on the BM25 ranking "
                                            "(measured worse on citation gold; off by default).")


    @model_validator(mode="after")
    def _no_limit(self) -> SearchRunOptions:
        if self.limit is not None:
            raise InputError(None, None, "--limit", "a search shows --top-k hits (give -k N)")
        return self


def run_search(model: ModelLike, out: Path, options: SearchRunOptions) -> Path:
    """Search ``options.index`` (filters applied before ranking; the index is never written) and,
    unless ``model`` is ``"none"``, rerank the top ``rerank_depth`` hits listwise with ``model``
    (:func:`noveval.index.rerank.rerank_hits`).

    Writes ``out`` (JSON): ``hits`` (the first ``k``: ``rank, row, similarity, id, year, title``),
    ``note`` (how the dense part was covered, "" when fully) and ``rerank`` (``model``,
    ``mentioned``, ``error``: why the retrieval order was kept; None without a reranker).

    Raises:
        InputError: not an index, or a retrieval the index cannot serve (no dense part).
    """
    from noveval.index.lexical import PRFParams
    from noveval.index.search import search
    from noveval.index.store import open_index
    from noveval.io import write_json
    from noveval.models.types import as_embedder

    reranker = None if isinstance(model, str) and model.lower() in ("", "none") else model
    idx = open_index(options.index)
    emb = as_embedder(options.embedder) if idx.has_dense() or options.retrieval != "bm25" else None
    depth = max(options.k, options.rerank_depth if reranker is not None else options.k)
    res = search(idx, options.query, mode=options.retrieval, k=depth,
                 mask=idx.mask(before_year=options.before_year, fields=options.field), embedder=emb,
                 rrf_k=options.rrf_k, with_similarity=emb is not None, prf=PRFParams() if options.prf else None)
    rerank = None
    if reranker is not None:
        from noveval.index.rerank import rerank_hits
        from noveval.models.client import get_client

        client = get_client(reranker, **options.client_kwargs()) if isinstance(reranker, str) else reranker
        rr = rerank_hits(client, options.query, res.hits, idx.papers(res.rows()), depth=options.rerank_depth,
                         seed=options.seed)
        res.hits = rr.hits
        rerank = {"model": client.model_id, "mentioned": rr.mentioned, "error": rr.error}
    shown = res.hits[:options.k]
    hits = [{"rank": h.rank, "row": int(h.row), "similarity": None if h.similarity is None else float(h.similarity),
              "id": p.get("id"), "year": p.get("year"),
             "title": p.get("title")} for h, p in zip(shown, idx.papers([h.row for h in shown]), strict=True)]
    write_json(out, {"query": options.query, "retrieval": options.retrieval, "note": res.note, "rerank": rerank,
                     "hits": hits})
    return Path(out)


class NoveltyMetricsOption(BaseModel):
    """The metrics a ``novelty`` command computes."""

    metric: list[str] | None = option(
        None, "--metric", help="Metric (repeatable): Yin, RND, SemNovel, FastTextLOF. Default: Yin and RND.")


class NoveltyScoreOptions(RunOptions, NoveltyMetricsOption, EmbedderOption):
    """The options of :func:`run_novelty_score` (``noveval novelty score``; the embedder is the model it calls).

    ``limit`` is refused (every paper of ``papers`` is scored).

    Attributes:
        papers: JSONL of papers to score.
        pool: JSONL(.gz) reference pool (or ``index``).
        index: Corpus index folder as the pool (its vectors are read, never re-embedded).
        before_year: Pool papers published before this year only.
        prior_only: Each paper's pool: papers published before its own year.
        field: With ``index``: pool papers of these fields only.
        top_k: Nearest pool papers listed per paper.
        engine: ``local`` (in process) or ``ray`` (a Ray Data job against a shared ``index``).
        ray_address: Ray cluster address (None: start a local one).
        batch_size: Papers per Ray batch.
        embed_missing: With ``index``: embed the pool papers it lacks vectors for, however long.
    """

    papers: Path = option(..., "--papers", help="JSONL of papers to score (title, abstract, optional id, year).")
    pool: Path | None = option(None, "--pool", help="JSONL(.gz) reference pool (title, abstract, optional id, year).")
    index: Path | None = option(None, "--index", help="Corpus index folder as the pool (`noveval index build`); "
                                                      "its vectors are read, never re-embedded.")
    before_year: int | None = option(None, "--before-year", help="Pool papers published before this year only.")
    prior_only: bool = option(False, "--prior-only", help="Each paper's pool: papers published before its own year.")
    field: list[str] | None = option(None, "--field", help="With --index: pool papers of this field only (repeatable).")
    top_k: int = option(5, "--neighbours", "-k", ge=0, help="Nearest pool papers listed per paper.")
    engine: Literal["local", "ray"] = option("local", "--engine", help="local (in-process) | ray (a Ray Data job over "
                                                                       "shards of --papers against the shared --index).")
    ray_address: str | None = option(None, "--ray-address", help="Ray cluster address (default: start a local one).")
    batch_size: int = option(64, "--batch-size", ge=1, help="Papers per Ray batch.")
    embed_missing: bool = option(False, "--embed-missing", help="With --index: embed the pool papers the index "
                                                                "lacks vectors for, however long it takes (without it, a fill "
                                                                "estimated over 10 min stops and says how long it would take).")

    @model_validator(mode="after")
    def _checked(self) -> NoveltyScoreOptions:
        """Refuse what cannot work before any model call (the metric names, the pool, the engine's needs)."""
        from noveval.io import canonical_names
        from noveval.novelty import METRICS

        canonical_names(self.metric or [], METRICS, option="options.metric")
        if (self.pool is None) == (self.index is None):
            raise InputError(None, None, "options.pool", "give exactly one of --pool FILE and --index FOLDER")
        if self.limit is not None:
            raise InputError(None, None, "options.limit", "every paper of --papers is scored")
        for name in ("max_tokens", "temperature", "extra_body"):  # no chat call: they would change nothing
            if getattr(self, name) is not None:
                raise InputError(None, None, f"options.{name}", "novelty score calls no chat model (only the embedder)")
        if self.field and self.index is None:
            raise InputError(None, None, "options.field", "field filters need --index")
        if self.engine == "ray" and self.index is None:
            raise InputError(None, None, "options.engine", "the Ray engine scores against a shared --index")
        return self


def run_novelty_score(model: ModelLike, out: Path, options: NoveltyScoreOptions) -> Path:
    """Score ``options.papers`` against their pool (a file or a corpus index) with the chosen metrics
    (default Yin and RND) and write one row per paper to ``out`` (JSONL): ``id, title, scores,
    neighbours, pool`` (:func:`noveval.index.novelty.score_papers`, or
    :func:`noveval.index.distributed.score_papers_ray` with ``engine="ray"``).

    The model it calls is ``options.embedder`` (``model`` is unused: give ``"none"``); run it
    through :func:`~noveval.benchmarks._runner.run_task` with ``one_file=True``, which checks the
    embedder's endpoint first and counts its calls. The Ray engine's workers build their own
    embedder from the spec (no ``no_cache``/``timeout``/``concurrency`` there).

    Raises:
        InputError: an unknown metric, bad papers or pool, an index embedded with another embedder.
    """
    from noveval.io import canonical_names, write_jsonl
    from noveval.novelty import METRICS

    del model  # the embedder is the model this task calls
    metrics = canonical_names(options.metric or ["Yin", "RND"], METRICS)
    if options.engine == "ray":
        from noveval.index.distributed import score_papers_ray

        assert options.index is not None  # the options' check
        rows = score_papers_ray(options.papers, options.index, metrics=metrics, embedder=options.embedder,
                                top_k=options.top_k, before_year=options.before_year, prior_only=options.prior_only,
                                fields=options.field, address=options.ray_address, batch_size=options.batch_size)
    else:
        from noveval.index.novelty import score_papers
        from noveval.models.embed import get_embedder

        emb = get_embedder(options.embedder, cache=not options.no_cache, timeout_s=options.timeout,
                           concurrency=options.concurrency)
        rows = score_papers(options.papers, options.pool, metrics=metrics, embedder=emb, top_k=options.top_k,
                            index=options.index, before_year=options.before_year, prior_only=options.prior_only,
                            fields=options.field, embed_missing=options.embed_missing)
    write_jsonl(out, rows)
    return Path(out)
