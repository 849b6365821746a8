"""NovBench dataset-construction stages (Section 3.1, Appendices A-C).

1. :func:`aextract_descriptions` — novelty-description sentences from a paper's
   introduction, as per-sentence Yes/No classification with the four prompting
   strategies of Appendix A (Figs. 5-8): ``zero-shot``, ``few-shot``,
   ``step-by-step`` (two chained calls) and ``context`` (two sentences either side;
   the first sentence gets only following context, the last only preceding).
2. :func:`aextract_evaluations` — novelty-evaluation sentences from reviews
   (Appendix B, Figs. 11-12): ``zero-shot`` and ``rag`` (the most similar
   labelled novelty sentences from a pool, e.g. ReviewAdvisor, as examples).
3. :func:`astructure` — deduplicate / consolidate novelty comments and sort them
   into Positive / Neutral / Negative sections (Section 3.1.3, Appendix C, Fig. 13).

Every model call goes through a :class:`noveval.models.ChatClient` (cached).
:func:`classification_metrics` gives accuracy and macro-F1 when labels exist.
"""

from __future__ import annotations

import random
import re
import typing
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from noveval.benchmarks._contract import client_of
from noveval.benchmarks.novbench._prompts import messages
from noveval.benchmarks.novbench.analyses import load_comments
from noveval.benchmarks.novbench.data import (
    IntroSentence,
    ReviewSentence,
    load_intro_sentences,
    load_review_sentences,
    load_sentence_pool,
)
from noveval.benchmarks.novbench.evaluation_text import (
    StructuredEvaluation,
    format_evaluation,
    parse_evaluation,
)
from noveval.benchmarks.novbench.options import (
    DescriptionsOptions,
    DescriptionStrategy,
    EvaluationsOptions,
    EvaluationStrategy,
    StructureOptions,
)
from noveval.io import write_json, write_jsonl
from noveval.models import ChatRequest, GenerationParams
from noveval.models.calls import note_answer
from noveval.models.chat import ChatClientProtocol
from noveval.models.client import run_async
from noveval.models.types import EmbedderLike, EmbedderProtocol, ModelLike, as_embedder

__all__ = [
    "DESCRIPTION_STRATEGIES",
    "EVALUATION_STRATEGIES",
    "parse_yes_no",
    "context_window",
    "aextract_descriptions",
    "aextract_evaluations",
    "astructure",
    "classification_metrics",
    "YES_NO_SCHEMA",
    "run_descriptions",
    "run_evaluations",
    "run_structure",
]

DESCRIPTION_STRATEGIES: tuple[str, ...] = typing.get_args(DescriptionStrategy)
EVALUATION_STRATEGIES: tuple[str, ...] = typing.get_args(EvaluationStrategy)

YES_NO_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string", "enum": ["Yes", "No"]}},
    "required": ["answer"],
}
"""Schema for ``constrained=True``: the backend must reply ``{"answer": "Yes"|"No"}``."""

_YES_NO_RE = re.compile(r"\b(yes|no)\b", re.IGNORECASE)


def parse_yes_no(text: str | None) -> int | None:
    """Read a Yes/No answer: 1 for yes, 0 for no, ``None`` when neither appears.

    The first standalone "yes" or "no" (case-insensitive) decides, so
    ``"Answer: Yes — it proposes ..."`` is 1 and ``{"answer": "No"}`` is 0.
    """
    if not text:
        return None
    m = _YES_NO_RE.search(text)
    if m is None:
        return None
    return 1 if m.group(1).lower() == "yes" else 0


def context_window(
    sentences: Sequence[IntroSentence], *, size: int = 2
) -> dict[tuple[str, int], list[str]]:
    """Neighbouring sentences of each sentence within its paper (Appendix A, Fig. 8).

    Args:
        sentences: Introduction sentences (``paper_id``, ``index``).
        size: Sentences taken on each side (2 in the paper).

    Returns:
        ``{(paper_id, index): [up to `size` preceding..., up to `size` following]}``;
        the first sentence of a paper has only following context, the last only
        preceding context.
    """
    by_paper: dict[str, list[IntroSentence]] = defaultdict(list)
    for s in sentences:
        by_paper[s.paper_id].append(s)
    out: dict[tuple[str, int], list[str]] = {}
    for pid, items in by_paper.items():
        items = sorted(items, key=lambda s: s.index)
        for pos, s in enumerate(items):
            before = [x.sentence for x in items[max(0, pos - size) : pos]]
            after = [x.sentence for x in items[pos + 1 : pos + 1 + size]]
            out[(pid, s.index)] = before + after
    return out


def _params(max_tokens: int, constrained: bool, seed: int) -> Any:
    return GenerationParams(
        temperature=0.0,
        max_tokens=max(max_tokens, 24) if constrained else max_tokens,
        seed=seed,
        json_schema=YES_NO_SCHEMA if constrained else None,
    )


def _request(msgs: list[dict[str, str]], params: Any, tag: str) -> Any:
    return ChatRequest(messages=msgs, params=params, tag=tag)


def _decision_rows(client: ChatClientProtocol, ids: Sequence[dict[str, Any]], sentences: Sequence[Any],
                   resps: Sequence[Any], extra_key: str, extra: Sequence[Any] | None) -> list[dict[str, Any]]:
    """One row per sentence of a Yes/No stage: its ``ids`` fields, ``sentence, label, pred``
    (0/1; an unparsed answer counts as 0), ``parsed``, ``raw``, ``error``, and
    ``extra_key`` (``extra[i]``) when ``extra`` is given. Each reply's verdict goes to
    :func:`noveval.models.calls.note_answer` (role ``extraction``)."""
    rows = []
    for i, (ident, s, r) in enumerate(zip(ids, sentences, resps, strict=True)):
        pred = parse_yes_no(r.text) if r.ok else None
        note_answer(client, r, usable=pred is not None, role="extraction")
        row = {**ident, "sentence": s.sentence, "label": s.label, "pred": int(pred or 0),
               "parsed": pred is not None, "raw": r.text, "error": r.error}
        if extra is not None:
            row[extra_key] = extra[i]
        rows.append(row)
    return rows


def _parse_step1(text: str) -> tuple[str, str]:
    main = re.search(r"main idea\s*:\s*(.+)", text or "", re.IGNORECASE)
    ref = re.search(r"refers to\s*:\s*(.+)", text or "", re.IGNORECASE)
    main_idea = main.group(1).strip() if main else (text or "").strip().splitlines()[0:1]
    if isinstance(main_idea, list):
        main_idea = main_idea[0] if main_idea else ""
    return str(main_idea)[:500], (ref.group(1).strip()[:100] if ref else "unknown")


async def aextract_descriptions(
    client: ChatClientProtocol,
    sentences: Sequence[IntroSentence],
    *,
    strategy: DescriptionStrategy = "context",
    context_size: int = 2,
    constrained: bool = False,
    max_tokens: int = 8,
    seed: int = 0,
    progress: str | None = "stage 1",
) -> list[dict[str, Any]]:
    """Stage 1: classify each introduction sentence as novelty description or not.

    Args:
        client: A chat client (:func:`noveval.models.get_client`).
        sentences: The sentences (file order; ``index`` within each paper).
        strategy: ``zero-shot`` (Fig. 5), ``few-shot`` (Fig. 6), ``step-by-step``
            (Fig. 7: a summary / reference call, then the decision) or ``context``
            (Fig. 8, ±``context_size`` sentences).
        context_size: Window on each side for ``context``.
        constrained: Ask for ``{"answer": "Yes"|"No"}`` under a JSON schema.
        max_tokens: Reply budget of the decision call.
        seed: Generation seed.
        progress: Progress label (None = silent).

    Returns:
        One row per sentence: ``paper_id, index, sentence, label, pred`` (0/1, unparsed
        answers count as 0), ``parsed`` (bool), ``raw``, ``error``.
    """
    if strategy not in DESCRIPTION_STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; choose from {DESCRIPTION_STRATEGIES}")
    params = _params(max_tokens, constrained, seed)
    step1: list[str] | None = None
    if strategy == "step-by-step":
        p1 = _params(96, False, seed)
        reqs1 = [_request(messages("desc_step1", sentence=s.sentence), p1, "desc:step1") for s in sentences]
        resp1 = await client.acomplete_many(reqs1, progress=progress and f"{progress} (step 1/2)")
        step1 = [r.text or "" for r in resp1]
    ctx = context_window(sentences, size=context_size) if strategy == "context" else {}
    prompts = []
    for i, s in enumerate(sentences):
        if strategy == "zero-shot":
            prompts.append(messages("desc_zero_shot", sentence=s.sentence))
        elif strategy == "few-shot":
            prompts.append(messages("desc_few_shot", sentence=s.sentence))
        elif strategy == "context":
            prompts.append(messages("desc_context", sentence=s.sentence, context=ctx[(s.paper_id, s.index)]))
        else:
            assert step1 is not None
            main_idea, refers_to = _parse_step1(step1[i])
            prompts.append(
                messages("desc_step2", sentence=s.sentence, main_idea=main_idea, refers_to=refers_to)
            )
    resps = await client.acomplete_many(
        [_request(p, params, f"desc:{strategy}") for p in prompts], progress=progress
    )
    ids = [{"paper_id": s.paper_id, "index": s.index} for s in sentences]
    return _decision_rows(client, ids, sentences, resps, "step1", step1)


def _nearest(queries: Sequence[str], pool: Sequence[str], embedder: EmbedderProtocol, k: int) -> list[list[str]]:
    q = embedder.encode(list(queries), progress=None)
    p = embedder.encode(list(pool), progress="embedding example pool")
    sims = q @ p.T
    out = []
    for i, row in enumerate(sims):
        order = np.argsort(-row, kind="stable")
        picked: list[str] = []
        for j in order:
            if pool[j].strip().lower() == queries[i].strip().lower():
                continue  # never show the query itself as an example
            picked.append(pool[j])
            if len(picked) == k:
                break
        out.append(picked)
    return out


async def aextract_evaluations(
    client: ChatClientProtocol,
    sentences: Sequence[ReviewSentence],
    *,
    strategy: EvaluationStrategy = "zero-shot",
    pool: Sequence[str] | None = None,
    embedder: EmbedderLike | None = None,
    k: int = 5,
    constrained: bool = False,
    max_tokens: int = 8,
    seed: int = 0,
    progress: str | None = "stage 2",
) -> list[dict[str, Any]]:
    """Stage 2: classify review sentences as novelty evaluations (Appendix B).

    Args:
        client: A chat client.
        sentences: Review sentences.
        strategy: ``zero-shot`` (Fig. 11) or ``rag`` (Fig. 12).
        pool: Labelled novelty sentences to retrieve examples from (``rag``).
        embedder: Embedder for retrieval (``rag``), e.g. ``get_embedder("local")``.
        k: Examples retrieved per sentence (``rag``); identical sentences are skipped.
        constrained: Ask for ``{"answer": "Yes"|"No"}`` under a JSON schema.
        max_tokens: Reply budget.
        seed: Generation seed.
        progress: Progress label.

    Returns:
        One row per sentence: ``id, sentence, label, pred, parsed, raw, error`` and,
        for ``rag``, ``examples``.
    """
    if strategy not in EVALUATION_STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; choose from {EVALUATION_STRATEGIES}")
    examples: list[list[str]] | None = None
    if strategy == "rag":
        if not pool or embedder is None:
            raise ValueError("the rag strategy needs a sentence pool and an embedder")
        examples = _nearest([s.sentence for s in sentences], pool, as_embedder(embedder), k)
    params = _params(max_tokens, constrained, seed)
    reqs = []
    for i, s in enumerate(sentences):
        if examples is None:
            prompt = messages("eval_zero_shot", sentence=s.sentence)
        else:
            prompt = messages("eval_rag", sentence=s.sentence, examples=examples[i])
        reqs.append(_request(prompt, params, f"eval:{strategy}"))
    resps = await client.acomplete_many(reqs, progress=progress)
    return _decision_rows(client, [{"id": s.id} for s in sentences], sentences, resps, "examples", examples)


async def astructure(
    client: ChatClientProtocol,
    comments_by_id: Mapping[str, Sequence[str]],
    *,
    max_tokens: int = 768,
    seed: int = 0,
    progress: str | None = "stage 3",
) -> dict[str, tuple[StructuredEvaluation, str | None, str | None]]:
    """Stage 3: consolidate each paper's novelty comments by sentiment (Appendix C).

    Args:
        client: A chat client.
        comments_by_id: Paper id -> its raw novelty-related review comments.
        max_tokens: Reply budget.
        seed: Generation seed.
        progress: Progress label.

    Returns:
        Paper id -> ``(parsed evaluation, raw reply, error)``. Papers without any
        comment get an empty evaluation and no model call.
    """
    params = GenerationParams(temperature=0.0, max_tokens=max_tokens, seed=seed)
    ids = [i for i, c in comments_by_id.items() if any(x.strip() for x in c)]
    reqs = [
        _request(
            messages("structure", comments=[" ".join(x.split()) for x in comments_by_id[i] if x.strip()]),
            params,
            "structure",
        )
        for i in ids
    ]
    resps = await client.acomplete_many(reqs, progress=progress)
    out: dict[str, tuple[StructuredEvaluation, str | None, str | None]] = {
        i: (StructuredEvaluation(), None, None) for i in comments_by_id
    }

    for i, r in zip(ids, resps, strict=True):
        out[i] = (parse_evaluation(r.text if r.ok else ""), r.text, r.error)
        note_answer(client, r, usable=out[i][0].found_headers > 0, role="structuring")
    return out


def classification_metrics(rows: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """Accuracy and macro-F1 of binary predictions against labels (Appendices A-B).

    Args:
        rows: Rows with ``label`` (0/1 or None) and ``pred`` (0/1), optionally ``parsed``.

    Returns:
        ``{"accuracy", "macro_f1", "precision_pos", "recall_pos", "f1_pos", "n",
        "n_positive", "n_unparsed", "predicted_positive"}`` over the labelled rows
        (accuracy and macro-F1 in [0, 1], higher is better), or ``None`` when no row
        is labelled.
    """
    from sklearn.metrics import accuracy_score, f1_score, precision_recall_fscore_support

    lab = [r for r in rows if r.get("label") is not None]
    if not lab:
        return None
    y = [int(r["label"]) for r in lab]
    p = [int(r["pred"]) for r in lab]
    prec, rec, f1, _ = precision_recall_fscore_support(
        y, p, labels=[1], average=None, zero_division=0
    )
    return {
        "accuracy": float(accuracy_score(y, p)),
        "macro_f1": float(f1_score(y, p, labels=[0, 1], average="macro", zero_division=0)),
        "precision_pos": float(prec[0]),
        "recall_pos": float(rec[0]),
        "f1_pos": float(f1[0]),
        "n": len(lab),
        "n_positive": int(sum(y)),
        "predicted_positive": int(sum(p)),
        "n_unparsed": sum(1 for r in lab if not r.get("parsed", True)),
    }


def _write_classified(rows: list[dict[str, Any]], out: Path, about: dict[str, Any]) -> Path:
    """Write a Yes/No stage's rows to ``out`` and ``about`` + :func:`classification_metrics` beside it
    (``<out>.metrics.json``)."""
    write_jsonl(out, rows)
    write_json(out.with_suffix(".metrics.json"), {**about, "metrics": classification_metrics(rows)})
    return out


def run_descriptions(model: ModelLike, out: Path, options: DescriptionsOptions) -> Path:
    """``noveval novbench extract-descriptions``: stage 1 (:func:`aextract_descriptions`) over
    ``options.input`` into the JSONL file ``out`` (and ``<out>.metrics.json``).

    Run it through :func:`~noveval.benchmarks._runner.run_task` with ``one_file=True`` (endpoint
    check, call ledger, unusable-answer tally, completeness); the cache makes a re-run free.

    Raises:
        InputError: a bad input file.
    """
    sents = load_intro_sentences(options.input)
    if options.papers:
        keep = set(list(dict.fromkeys(s.paper_id for s in sents))[:options.papers])
        sents = [s for s in sents if s.paper_id in keep]
    if options.limit:
        sents = sents[:options.limit]
    client = client_of(model, **options.client_kwargs())
    rows = run_async(aextract_descriptions(client, sents, strategy=options.strategy, constrained=options.constrained,
                                           seed=options.seed), client)
    return _write_classified(rows, out, {"strategy": options.strategy, "model": client.model_id,
                                         "input": str(options.input)})


def run_evaluations(model: ModelLike, out: Path, options: EvaluationsOptions) -> Path:
    """``noveval novbench extract-evaluations``: stage 2 (:func:`aextract_evaluations`) over
    ``options.input`` into the JSONL file ``out`` (and ``<out>.metrics.json``); run it like
    :func:`run_descriptions`.

    Raises:
        InputError: a bad input or pool file.
    """
    sents = load_review_sentences(*options.input)
    if options.sample and options.sample < len(sents):
        sents = random.Random(options.seed).sample(sents, options.sample)
    if options.limit:
        sents = sents[:options.limit]
    pool = load_sentence_pool(options.pool) if options.pool else None
    emb = None
    if options.strategy == "rag":
        from noveval.models import get_embedder

        emb = get_embedder(options.embedder, cache=not options.no_cache)
    client = client_of(model, **options.client_kwargs())
    rows = run_async(aextract_evaluations(client, sents, strategy=options.strategy, pool=pool, embedder=emb,
                                          k=options.k, constrained=options.constrained, seed=options.seed), client)
    return _write_classified(rows, out, {"strategy": options.strategy, "model": client.model_id,
                                         "inputs": [str(p) for p in options.input]})


def run_structure(model: ModelLike, out: Path, options: StructureOptions) -> Path:
    """``noveval novbench structure``: stage 3 (:func:`astructure`) over ``options.input`` into the
    JSONL file ``out`` (``{id, output_format, counts, raw, error}`` per paper); run it like
    :func:`run_descriptions`.

    Raises:
        InputError: a bad input file.
    """
    comments = load_comments(options.input)
    if options.limit:
        comments = dict(list(comments.items())[:options.limit])
    client = client_of(model, **options.client_kwargs())
    res = run_async(astructure(client, comments, max_tokens=options.max_tokens, seed=options.seed), client)
    write_jsonl(out, [{"id": i, "output_format": format_evaluation(ev), "counts": ev.counts(), "raw": raw, "error": err}
                      for i, (ev, raw, err) in res.items()])
    return out
