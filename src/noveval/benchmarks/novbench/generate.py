"""NovBench generation: novelty description -> structured novelty evaluation.

Section 3.2 (task definition), Section 4.1 and Appendix E (Figs. 16-18):

* ``zero-shot``: the model gets only the novelty-description sentences.
* ``few-shot``: plus two examples (novelty description + gold structured evaluation)
  drawn from the data; the item itself is never one of its own examples.
* ``rag``: plus the titles and abstracts of the top-5 related papers. Records that
  ship ``retrieved_title``/``retrieved_abstract`` use those; otherwise the papers are
  retrieved from a corpus by embedding similarity to the paper's abstract.

The paper decodes greedily with up to 4096 new tokens; the default here is 1024
(``max_tokens``), which covers every gold evaluation several times over.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from noveval.benchmarks.novbench._prompts import messages, prompt_hashes
from noveval.benchmarks.novbench.data import (
    CorpusPaper,
    NovBenchRecord,
    load_corpus,
    load_records,
    records_source,
)
from noveval.benchmarks.novbench.evaluation_text import format_evaluation, parse_evaluation
from noveval.benchmarks.novbench.options import NovBenchOptions, Prompting
from noveval.errors import InputError
from noveval.hfdata import is_hf_source, source_label
from noveval.io import read_json, write_json
from noveval.models import ChatRequest, GenerationParams
from noveval.models.calls import note_answer
from noveval.models.chat import ChatClientProtocol
from noveval.models.client import run_async
from noveval.models.types import EmbedderProtocol
from noveval.runs import RunDir, run_items

__all__ = [
    "PROMPTINGS",
    "TEMPLATES",
    "few_shot_examples",
    "retrieve_references",
    "build_prompt",
    "build_messages",
    "generation_config",
    "agenerate",
    "create_run",
    "run_config",
    "run_generation",
]

PROMPTINGS: tuple[str, ...] = ("zero-shot", "few-shot", "rag")
TEMPLATES = {"zero-shot": "generate_zero_shot", "few-shot": "generate_few_shot", "rag": "generate_rag"}


def few_shot_examples(
    records: Sequence[NovBenchRecord], target: NovBenchRecord, *, k: int = 2, seed: int = 0
) -> list[NovBenchRecord]:
    """Pick ``k`` demonstration records for ``target`` (Appendix E, few-shot).

    Candidates are the records with a gold evaluation other than ``target`` (by id).
    The choice is seeded by ``(seed, target.id)``, so it does not depend on the
    order of the records or on the limit.

    Raises:
        ValueError: fewer than ``k`` candidates.
    """
    cands = sorted(
        (r for r in records if r.id != target.id and r.gold is not None and not r.gold.is_empty()),
        key=lambda r: r.id,
    )
    if len(cands) < k:
        raise ValueError(f"few-shot needs {k} other records with a gold evaluation, got {len(cands)}")
    digest = hashlib.sha256(f"{seed}:{target.id}".encode()).hexdigest()
    return random.Random(int(digest[:16], 16)).sample(cands, k)


def _norm_title(t: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", t.lower()).strip()


def retrieve_references(
    records: Sequence[NovBenchRecord],
    corpus: Sequence[CorpusPaper],
    embedder: EmbedderProtocol,
    *,
    k: int = 5,
) -> dict[str, list[tuple[str, str]]]:
    """Top-``k`` corpus papers per record by cosine of abstract embeddings (Appendix E).

    The query is the record's abstract (its title when the abstract is empty); corpus
    papers are embedded as ``title + ". " + abstract``. A corpus paper with the same
    normalised title as the record is skipped (the paper itself).

    Returns:
        Record id -> ``[(title, abstract), ...]`` best first.
    """
    if not records:
        return {}
    docs = [f"{p.title}. {p.abstract}".strip() for p in corpus]
    d = embedder.encode(docs, progress="embedding RAG corpus")
    q = embedder.encode([r.abstract or r.title for r in records], progress=None)
    sims = q @ d.T
    out: dict[str, list[tuple[str, str]]] = {}
    for i, r in enumerate(records):
        own = _norm_title(r.title)
        picked = []
        for j in np.argsort(-sims[i], kind="stable"):
            if own and _norm_title(corpus[j].title) == own:
                continue
            picked.append((corpus[j].title, corpus[j].abstract))
            if len(picked) == k:
                break
        out[r.id] = picked
    return out


def build_messages(
    record: NovBenchRecord,
    prompting: Prompting,
    *,
    examples: Sequence[NovBenchRecord] = (),
    references: Sequence[tuple[str, str]] = (),
) -> list[dict[str, str]]:
    """The chat messages for one record (Appendix E, Figs. 16-18, own wording)."""
    if prompting == "zero-shot":
        return messages("generate_zero_shot", sentences=record.paper_novelty)
    if prompting == "few-shot":
        exs = []
        for ex in examples:
            assert ex.gold is not None
            exs.append({"sentences": ex.paper_novelty, "output": format_evaluation(ex.gold).strip()})
        return messages("generate_few_shot", sentences=record.paper_novelty, examples=exs)
    if prompting == "rag":
        if not references:
            raise ValueError(f"record {record.id}: rag prompting needs retrieved references")
        return messages("generate_rag", sentences=record.paper_novelty, references=list(references))
    raise ValueError(f"unknown prompting {prompting!r}; choose from {PROMPTINGS}")


def build_prompt(
    record: NovBenchRecord,
    prompting: Prompting,
    *,
    examples: Sequence[NovBenchRecord] = (),
    references: Sequence[tuple[str, str]] = (),
) -> str:
    """The user message for one record (see :func:`build_messages`)."""
    return build_messages(record, prompting, examples=examples, references=references)[-1]["content"]


def generation_config(
    *,
    model_id: str,
    prompting: str,
    data: str,
    max_tokens: int,
    seed: int,
    k_examples: int = 2,
    k_references: int = 5,
    corpus: str | None = None,
    embedder_id: str | None = None,
) -> dict[str, Any]:
    """The run configuration recorded in ``config.json``."""
    return {
        "benchmark": "novbench",
        "model": model_id,
        "prompting": prompting,
        "data": data,
        "max_tokens": max_tokens,
        "temperature": 0.0,
        "seed": seed,
        "k_examples": k_examples if prompting == "few-shot" else None,
        "k_references": k_references if prompting == "rag" else None,
        "corpus": corpus if prompting == "rag" else None,
        "retrieval_embedder": embedder_id if prompting == "rag" else None,
        "prompts": prompt_hashes(TEMPLATES[prompting]),
    }


async def agenerate(
    client: ChatClientProtocol,
    records: Sequence[NovBenchRecord],
    *,
    prompting: Prompting,
    run: Any,
    example_pool: Sequence[NovBenchRecord] | None = None,
    references: dict[str, list[tuple[str, str]]] | None = None,
    max_tokens: int = 1024,
    seed: int = 0,
    k_examples: int = 2,
    progress: str | None = "novbench generate",
) -> list[dict[str, Any]]:
    """Generate structured novelty evaluations into ``run`` (resumable).

    Args:
        client: Chat client.
        records: The records to run (already limited).
        prompting: ``zero-shot``, ``few-shot`` or ``rag``.
        run: A :class:`noveval.runs.RunDir`; rows go to ``predictions.jsonl``.
        example_pool: Records to draw few-shot examples from (default: ``records``).
        references: Record id -> references for ``rag`` (records' own
            ``retrieved_*`` fields are used when this lacks the id).
        max_tokens: Reply budget per record.
        seed: Generation and example-selection seed.
        k_examples: Few-shot examples per record.
        progress: Progress label.

    Returns:
        The prediction rows in record order: ``id, prompting, output, error,
        finish_reason, examples, references``. Rows that failed in an earlier
        attempt (``error`` set) are generated again.
    """
    pool = list(example_pool) if example_pool is not None else list(records)
    refs = references or {}
    params = GenerationParams(temperature=0.0, max_tokens=max_tokens, seed=seed)
    # Build every prompt first, so bad input fails before anything is written.
    jobs = []
    for r in records:
        exs = few_shot_examples(pool, r, k=k_examples, seed=seed) if prompting == "few-shot" else []
        rr = (refs.get(r.id) or r.retrieved) if prompting == "rag" else []
        jobs.append((r, exs, rr, build_messages(r, prompting, examples=exs, references=rr)))
    # Rows that failed last time (an error, no text) are retried on resume by run_items.

    async def worker(job: tuple[NovBenchRecord, list, list, list[dict[str, str]]]) -> dict[str, Any]:
        r, exs, rr, msgs = job
        req = ChatRequest(messages=msgs, params=params, tag=f"novbench:{r.id}")
        resp = await client.acomplete(req)
        # usable: the evaluation follows the format (at least one section header the scorer reads)
        note_answer(client, resp, usable=parse_evaluation(resp.text).found_headers > 0, role="model")
        return {
            "id": r.id,
            "prompting": prompting,
            "output": resp.text or "",
            "error": resp.error,
            "finish_reason": resp.finish_reason,
            "examples": [e.id for e in exs],
            "references": [t for t, _ in rr],
        }

    return await run_items(
        run, "predictions", jobs, worker, id_of=lambda j: j[0].id, progress=progress, client=client
    )


def run_generation(client: ChatClientProtocol, out: str | Path, o: NovBenchOptions) -> Any:
    """Load records, prepare examples / references, and generate into run dir ``out``.

    Everything that can fail on input (records, corpus, missing references) is
    checked before the run directory is created.

    Args:
        client: Chat client.
        out: Run directory (resumed when the settings match).
        o: The run's options (``o.data`` None: the shipped sample; ``o.limit`` selects the
            first N records, few-shot examples still come from all).

    Returns:
        The :class:`noveval.runs.RunDir`.

    Raises:
        InputError: bad records or corpus, ``rag`` records without references and no
            corpus, too few few-shot examples, or a run with other settings in ``out``.
    """
    src = records_source(o.data)
    all_records = load_records(src)
    records = all_records[: o.limit] if o.limit else all_records
    references, emb_id = _rag_references(records, o, src) if o.prompting == "rag" else ({}, None)
    if o.prompting == "few-shot":
        for r in records:
            few_shot_examples(all_records, r, seed=o.seed)  # fails early if too few
    run = create_run(out, run_config(client.model_id, o, src, emb_id), overwrite=o.overwrite)
    run_async(
        agenerate(client, records, prompting=o.prompting, run=run, example_pool=all_records, references=references,
                  max_tokens=o.max_tokens, seed=o.seed),
        client,
    )
    return run


def _rag_references(records: Sequence[NovBenchRecord], o: NovBenchOptions,
                    src: str | Path) -> tuple[dict[str, list[tuple[str, str]]], str | None]:
    """References retrieved from ``o.corpus`` for the records that ship none, and the embedder's id."""
    need = [r for r in records if not r.retrieved]
    if not need:
        return {}, None
    if o.corpus is None:
        raise InputError(src, None, "options.corpus",
                         f"{len(need)} record(s) have no retrieved papers (retrieved_title) and no retrieval corpus "
                         "was given for RAG")
    from noveval.models import get_embedder

    papers = load_corpus(o.corpus, field=o.corpus_field, year_range=o.year_range(), limit=o.corpus_limit)
    emb = get_embedder(o.embedder)
    return retrieve_references(need, papers, emb), emb.model_id


def run_config(model_id: str, o: NovBenchOptions, src: str | Path, embedder_id: str | None) -> dict[str, Any]:
    """The ``config.json`` of a run (what decides whether a run folder resumes), with ``records``: where they are.

    ``data`` (the records' file name, as runs have always recorded it) is a setting;
    ``records`` (:func:`noveval.hfdata.source_label`) is where :func:`~noveval.benchmarks.novbench.contract.score` reads them.
    """
    corpus = None
    if o.corpus:
        corpus = f"{Path(o.corpus).name}:{o.corpus_field or 'all'}:{o.year_range() or 'all'}:{o.corpus_limit or 'all'}"
    cfg = generation_config(model_id=model_id, prompting=o.prompting,
                            data=str(src) if is_hf_source(src) else str(Path(src).name), max_tokens=o.max_tokens,
                            seed=o.seed, corpus=corpus, embedder_id=embedder_id)
    return {**cfg, "records": source_label(src)}


def create_run(out: str | Path, config: dict[str, Any], *, overwrite: bool = False) -> Any:
    """:meth:`RunDir.create <noveval.runs.RunDir.create>` where the records' location is not a setting.

    A run resumes when every setting matches, also when its records file has moved (the
    file's name, ``data``, is compared) or when it was made before runs recorded
    ``records``; ``config.json`` then records where the records are now.
    """
    cfg_file = Path(out) / "config.json"
    prior = read_json(cfg_file) if cfg_file.is_file() and not overwrite else None
    if not isinstance(prior, dict) or prior.get("records") == config["records"]:
        return RunDir.create(out, config, overwrite=overwrite)
    run = RunDir.create(out, {**config, "records": prior.get("records")})
    write_json(cfg_file, {**run.config, "records": config["records"]})
    return run
