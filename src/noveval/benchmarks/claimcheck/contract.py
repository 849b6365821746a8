"""CLAIMCHECK's Python entry points of the benchmark contract (:mod:`noveval.benchmarks`).

``run(model, out, *, data=None, options=None)`` runs one task exactly as ``noveval run
claimcheck`` (and scores it when the task has gold, as ``noveval score claimcheck``);
``score(run)`` re-scores the run folder from its saved predictions (and judgments) alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field

from noveval.benchmarks._contract import as_options, sample_file

__all__ = ["ClaimcheckOptions", "run", "score", "SAMPLE", "SAMPLE_ANNOTATIONS"]

SAMPLE = ("claimcheck", "papers.json")
"""The shipped sample papers (invented), with :data:`SAMPLE_ANNOTATIONS` as their gold."""
SAMPLE_ANNOTATIONS = ("claimcheck", "annotations.jsonl")


class ClaimcheckOptions(BaseModel):
    """Options of a CLAIMCHECK run (the options of ``noveval run claimcheck``).

    Attributes:
        task: ``extract``, ``wi``, ``ca`` (default), ``wl``, ``cv`` or ``wle``.
        judge: Judge model spec for cv/wle (None: the model under test).
        annotations: Gold annotation file (None: the shipped sample's, when ``data`` is None).
        data_dir: Shared data folder (NeurIPS 2025 full texts and reviews) instead of a papers file.
        paper_ids: Only these papers.
        limit: At most N papers.
        limit_items: At most N task items.
        max_chunks: extract: chunks per paper.
        chunk_chars: extract: chunk size.
        context_chars: Paper characters per prompt (0: the whole paper).
        max_tokens: Reply budget per call.
        temperature: None: the paper's (0.9 for ca, 0.3 otherwise; Appendix C.1).
        seed: Sampling seed.
        seeds: Sampling seeds whose scores are averaged (None: ``seed``; the paper protocol: 0, 42, 2025).
        protocol: ``noveval`` or ``paper`` (docs/fidelity.md).
        corpus: Corpus file to match the papers' references against (related works).
        concurrency: Requests in flight.
        timeout_s: Seconds per request.
        cache: Use the response cache.
        refresh: Ignore cached replies (and overwrite them).
        overwrite: Replace a run with other settings in ``out``.
        bertscore: Compute BERTScore when scoring wle.
        samples: wl: label each weakness N times and vote (self-consistency; issue 18).
    """

    model_config = ConfigDict(extra="forbid")

    task: Literal["extract", "wi", "ca", "wl", "cv", "wle"] = "ca"
    judge: str | None = None
    annotations: str | Path | None = None
    data_dir: str | Path | None = None
    paper_ids: list[str] | None = None
    limit: int | None = Field(None, ge=1)
    limit_items: int | None = Field(None, ge=1)
    max_chunks: int | None = Field(None, ge=1)
    chunk_chars: int = Field(3000, ge=1)
    context_chars: int = Field(6000, ge=0)
    max_tokens: int = Field(512, ge=1)
    temperature: float | None = Field(None, ge=0)
    seed: int = 0
    seeds: list[int] | None = None
    protocol: Literal["noveval", "paper"] = "noveval"
    corpus: str | Path | None = None
    concurrency: int | None = Field(None, ge=1)
    timeout_s: float = Field(120.0, gt=0)
    cache: bool = True
    refresh: bool = False
    overwrite: bool = False
    bertscore: bool = True
    samples: int = Field(1, ge=1)


def run(model: str | Any, out: str | Path, *, data: str | Path | None = None,
        options: ClaimcheckOptions | dict[str, Any] | None = None) -> Path:
    """Run one CLAIMCHECK task with ``model`` into ``out`` (resumable); score it when it has gold.

    Args:
        model: Model spec (claimcheck builds its own clients: a spec string, not a client).
        out: Run folder.
        data: Papers file (id, title, abstract, fulltext, reviews); None: the shipped
            sample (and its annotations) unless ``options.data_dir`` is given.
        options: :class:`ClaimcheckOptions` or a dict of its fields.

    Returns:
        The run folder (``scores.json`` written when the task can be scored: every task but
        ``extract`` needs gold annotations; cv and wle score their judgments).

    Raises:
        ConfigError: ``model`` is not a spec string.
        InputError: a bad option or input file (file, line, field).
    """
    from noveval.benchmarks.claimcheck._common import TaskOptions
    from noveval.benchmarks.claimcheck.generate import run_task
    from noveval.benchmarks.claimcheck.score import score_run
    from noveval.errors import ConfigError

    if not isinstance(model, str):
        raise ConfigError("claimcheck takes a model spec string (it builds the model and judge clients)")
    o = as_options(ClaimcheckOptions, options)
    papers = data if data is not None else (None if o.data_dir is not None else sample_file(*SAMPLE))
    annotations = o.annotations
    if annotations is None and data is None and o.data_dir is None and o.task != "extract":
        annotations = sample_file(*SAMPLE_ANNOTATIONS)
    task_options = TaskOptions(temperature=o.temperature, seed=o.seed, max_tokens=o.max_tokens,
                               context_chars=o.context_chars, chunk_chars=o.chunk_chars,
                               max_chunks=o.max_chunks, protocol=o.protocol, samples=o.samples)
    path = Path(run_task(cast(Any, o.task), out=out, model=model, judge=o.judge, data_dir=o.data_dir,
                         papers_file=papers, annotations=annotations, paper_ids=o.paper_ids, limit=o.limit,
                         limit_items=o.limit_items, options=task_options, cache="default" if o.cache else None,
                         refresh=o.refresh, concurrency=o.concurrency, timeout_s=o.timeout_s,
                         overwrite=o.overwrite, seeds=o.seeds, corpus=o.corpus))
    if o.task == "extract" or annotations is not None:  # the other tasks score against gold annotations
        score_run(path, bertscore=o.bertscore)
    return path


def score(run: str | Path, *, annotations: str | Path | None = None, judgments: str | Path | None = None,
          bertscore: bool = True) -> dict[str, Any]:
    """Scores of a CLAIMCHECK run folder from its saved outputs alone (no model call).

    Args:
        run: The run folder.
        annotations: Gold annotation file (None: the one the run recorded).
        judgments: Judgments to use instead of the run's (e.g. human WLE choices).
        bertscore: Compute BERTScore for wle.

    Returns:
        The scores dict (also written to ``scores.json``).
    """
    from noveval.benchmarks.claimcheck.score import score_run

    return score_run(run, annotations=annotations, judgments=judgments, bertscore=bertscore)
