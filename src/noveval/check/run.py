"""``noveval check`` as a run function: its options (:class:`CheckRunOptions`) and
:func:`run_check`, which the CLI runs through the runner
(:func:`~noveval.benchmarks._runner.run_task`: endpoint check, call ledger, unusable-answer
tally, exit codes), like every other model-calling command."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import model_validator

from noveval.check.inputs import load_input
from noveval.check.opinion import CheckOptions, check_idea, prepare
from noveval.errors import InputError
from noveval.models.types import ModelLike
from noveval.options import EmbedderOption, RetrievalMode, RunOptions, option

__all__ = ["CheckRunOptions", "run_check"]


class CheckRunOptions(RunOptions, EmbedderOption):
    """The options of one ``noveval check`` (every run option too: budget, cache, failures).

    Attributes:
        input: The idea or paper (text, Markdown, JSON or PDF).
        corpus: Prior papers (JSONL(.gz)); with ``index``: what builds a missing index.
        index: A corpus index folder (``noveval index build``).
        retrieval: With ``index``: ``bm25``, ``dense`` or ``hybrid`` (reciprocal rank fusion).
        candidates: With ``index``: the BM25 candidates the dense ranking re-ranks.
        rrf_k: Reciprocal rank fusion constant.
        rerank: With ``index``: a chat model spec that reorders the top ``rerank_depth``.
        rerank_depth: Candidates the reranker orders.
        before_year: Only corpus papers published before this year.
        field: Only corpus papers of these fields.
        max_corpus: A random sample of N corpus papers (without ``index``).
        top_k: Prior works retrieved and shown to the model.
        pool_size: Metric pool and evidence candidates (``--metric-pool``).
        min_similarity: Below this best similarity, abstain.
        no_judge: Retrieval, evidence and metrics only (no model call).
        temperature: Sampling temperature of the rubric judgment (this command's own: the
            structuring and the evaluation stay at 0).
        samples: Rubric judgments asked (plurality answer, self-consistency recorded).
    """

    input: Path = option(..., argument=True, help="Idea or paper: plain text, Markdown (# Title + paragraphs, "
                                                  "## Problem/Objective/Approach, or a full paper), JSON, or PDF.")
    corpus: Path | None = option(None, "--corpus", help="JSONL(.gz) of prior papers {id?, title, abstract, year} "
                                                        "(with --index: used to build the index when it does not exist).")
    index: Path | None = option(None, "--index", help="Corpus index folder (`noveval index build`); "
                                                      "built from --corpus on first use.")
    retrieval: RetrievalMode = option("hybrid", "--retrieval", help="With --index: bm25 | dense | hybrid (RRF).")
    candidates: int = option(100, "--candidates", ge=10, help="With --index: the BM25 candidates (at least "
                                                              "--metric-pool) that the dense ranking re-ranks and hybrid fuses with BM25, "
                                                              "whatever vectors the index holds.")
    rrf_k: int = option(60, "--rrf-k", ge=1, help="Reciprocal rank fusion constant.")
    rerank: str | None = option(None, "--rerank", spec="chat", help="With --index: chat model spec that reorders the "
                                                                    "top --rerank-depth candidates (listwise).")
    rerank_depth: int = option(30, "--rerank-depth", ge=2, le=50, help="Candidates the reranker orders.")
    before_year: int | None = option(None, "--before-year", help="Use only corpus papers published before this year.")
    field: list[str] | None = option(None, "--field", help="Use only corpus papers of this 'field' (repeatable).")
    max_corpus: int | None = option(None, "--max-corpus", ge=1, help="Random sample of N corpus papers (speed).")
    top_k: int = option(10, "--top-k", ge=1, le=50, help="Prior works to retrieve and show the model.")
    pool_size: int = option(300, "--metric-pool", ge=10, help="Metric pool and evidence candidates: the N "
                                                              "nearest kept papers by the retrieval ranking.")
    min_similarity: float = option(0.5, "--min-similarity", help="Below this best similarity, abstain "
                                                                 "(default calibrated on citation gold for the bundled MiniLM).")
    no_judge: bool = option(False, "--no-judge", help="Retrieval, evidence and metrics only; no model calls.")
    temperature: float = option(0.0, "--temperature", help="Sampling temperature of the rubric judgment "
                                                           "(0: greedy; structuring and the evaluation stay at 0).")
    samples: int = option(1, "--samples", ge=1, help="Ask the rubric judgment N times (seeds seed..seed+N-1, "
                                                     "temperature > 0) and answer the plurality score; records self-consistency.")

    @model_validator(mode="after")
    def _sources(self) -> CheckRunOptions:
        """One line on a combination that cannot run (raised as is: names its flag)."""
        if self.index is None and self.corpus is None:
            raise InputError(None, None, "--corpus", "give --corpus FILE or --index FOLDER")
        if self.index is not None and self.max_corpus is not None:
            raise InputError(None, None, "--max-corpus", "not used with --index (filter with --before-year/--field)")
        if self.limit is not None:
            raise InputError(None, None, "--limit", "check reads one input (cut the corpus with --max-corpus)")
        return self


def run_check(model: ModelLike, out: Path, options: CheckRunOptions) -> Path:
    """``noveval check``: the grounded novelty opinion on ``options.input`` into the folder ``out``
    (``check.json``, ``check.md``, ``check.html``; see :mod:`noveval.check`).

    Run it through :func:`~noveval.benchmarks._runner.run_task` with ``model`` ``"none"`` when
    ``options.no_judge`` (nothing to check or call). The input is read before any corpus or
    index work.

    Raises:
        InputError: an unreadable input, corpus or index.
    """
    from noveval.check.indexed import RetrievalOptions, check_with_index
    from noveval.check.render import write_outputs

    spec = model if isinstance(model, str) else getattr(model, "model_id", "model")
    opts = CheckOptions(model=spec, embedder=options.embedder, top_k=options.top_k, pool_size=options.pool_size,
                        min_similarity=options.min_similarity, judge=not options.no_judge, seed=options.seed,
                        temperature=options.temperature, samples=options.samples)
    inp = load_input(options.input)
    client = None if options.no_judge else _client(model, options)
    if options.index is not None:
        ropts = RetrievalOptions(options.retrieval, options.candidates, options.rrf_k, options.rerank,
                                 options.rerank_depth)
        result = check_with_index(inp, options.index, corpus=options.corpus, options=opts, retrieval=ropts,
                                  client=client, before_year=options.before_year, fields=options.field)
    else:
        assert options.corpus is not None
        inp, c = prepare(inp, options.corpus, before_year=options.before_year, fields=options.field,
                         max_papers=options.max_corpus, seed=options.seed)
        result = check_idea(inp, c, options=opts, client=client, before_year=options.before_year)
    write_outputs(result, out)
    return Path(out)


def _client(model: ModelLike, options: CheckRunOptions) -> Any:
    if not isinstance(model, str):
        return model
    from noveval.models.client import get_client

    return get_client(model, **options.client_kwargs())
