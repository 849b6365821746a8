"""NovBench's Python entry points of the benchmark contract (:mod:`noveval.benchmarks`).

``run(model, out, *, data=None, options=None)`` generates structured novelty evaluations
and scores them, as ``noveval run novbench``; ``score(run, data=...)`` re-scores the run
folder's saved evaluations (the records file holds the reviewers' comments the metrics
compare with; the run's config keeps only its name). Scoring calls no chat model;
it embeds (the bundled MiniLM by default) and computes the Fluency Score's perplexity.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from noveval.benchmarks._contract import RunOptions, as_options, client_of, sample_file

__all__ = ["NovBenchOptions", "run", "score", "SAMPLE"]

SAMPLE = ("novbench", "records.json")
"""The shipped sample: 4 invented records in the released coling2020.json layout."""


class NovBenchOptions(RunOptions):
    """Options of a NovBench run (keyword arguments of :func:`noveval.benchmarks.novbench.generate.run_generation`). ``overwrite``, ``cache`` and ``concurrency`` come from :class:`~noveval.benchmarks._contract.RunOptions`.

    Attributes:
        prompting: ``zero-shot``, ``few-shot`` or ``rag``.
        limit: Only the first N records.
        corpus: Retrieval corpus for ``rag`` records without ``retrieved_*`` fields.
        corpus_field: Keep only corpus papers of this field.
        corpus_limit: Keep at most this many corpus papers.
        corpus_years: Keep corpus papers with ``lo <= year <= hi``.
        embedder: Embedding spec (retrieval and scoring).
        max_tokens: Reply budget per record.
        seed: Generation, example-choice and bootstrap seed.
        timeout_s: Seconds per request.
        score: Score the run when generation ends.
    """

    prompting: Literal["zero-shot", "few-shot", "rag"] = "zero-shot"
    limit: int | None = Field(None, ge=1)
    corpus: str | None = None
    corpus_field: str | None = None
    corpus_limit: int | None = Field(None, ge=1)
    corpus_years: tuple[int, int] | None = None
    embedder: str = "local"
    max_tokens: int = Field(1024, ge=1)
    seed: int = 0
    timeout_s: float = Field(600.0, gt=0)
    score: bool = True


def run(model: str | Any, out: str | Path, *, data: str | Path | None = None,
        options: NovBenchOptions | dict[str, Any] | None = None) -> Path:
    """Generate novelty evaluations of ``data``'s papers with ``model`` into ``out`` and score them (resumable).

    Args:
        model: Model spec or a chat client.
        out: Run folder.
        data: NovBench records (JSON/JSONL, or ``hf:NAME[:SPLIT]``; None: the shipped sample).
        options: :class:`NovBenchOptions` or a dict of its fields.

    Returns:
        The run folder.
    """
    from noveval.benchmarks.novbench.generate import run_generation

    opts = as_options(NovBenchOptions, options)
    src = data if data is not None else sample_file(*SAMPLE)
    client = client_of(model, cache=opts.cache, concurrency=opts.concurrency, timeout_s=opts.timeout_s)
    rd = run_generation(src, out, client=client, prompting=opts.prompting, limit=opts.limit, corpus=opts.corpus,
                        corpus_field=opts.corpus_field, corpus_limit=opts.corpus_limit,
                        corpus_years=opts.corpus_years, embedder=opts.embedder, max_tokens=opts.max_tokens,
                        seed=opts.seed, overwrite=opts.overwrite)
    if opts.score:
        score(rd.path, data=src, embedder=opts.embedder)
    return Path(rd.path)


def score(run: str | Path, *, data: str | Path, embedder: str = "local") -> dict[str, Any]:
    """Scores of a NovBench run folder from its saved evaluations (writes ``per_item.jsonl``, ``scores.json``).

    Args:
        run: The run folder.
        data: The records file the run answered (its config keeps only the file's name).
        embedder: Embedding spec for Relevance and Coverage.

    Returns:
        The scores dict. The bootstrap seed is the run's.
    """
    from noveval.benchmarks.novbench.score import score_run
    from noveval.runs import RunDir

    cfg = RunDir.open(run).config
    return score_run(run, data, embedder=embedder, seed=int(cfg.get("seed") or 0))
