"""``noveval index search`` as a run function: its options (:class:`SearchRunOptions`) and
:func:`run_search`, which the CLI runs through the runner
(:func:`~noveval.benchmarks._runner.run_task` with ``one_file=True``), so the listwise
reranker's calls get the endpoint check, the call ledger and the unusable-answer tally of
every other model call."""

from __future__ import annotations

from pathlib import Path

from pydantic import model_validator

from noveval.errors import InputError
from noveval.models.types import ModelLike
from noveval.options import EmbedderOption, RetrievalMode, RunOptions, option

__all__ = ["SearchRunOptions", "run_search"]


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
