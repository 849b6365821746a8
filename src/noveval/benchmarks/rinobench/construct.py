"""RINoBench dataset construction (Section 4.1.1), from OpenReview-like review records.

Input: a JSON array or JSONL of :class:`ReviewedPaper` records::

    {"id": "abc123", "title": "...", "abstract": "...",
     "venueid": "ICLR.cc/2023/Conference", "source": "https://openreview.net/forum?id=abc123",
     "reviews": [{"summary": "...", "text": "<the review's comments>",
                  "technical_novelty": "3: The contributions are significant and somewhat new.",
                  "empirical_novelty": 2}, ...],
     "related_works": [{"title": "...", "abstract": "...", "authors": [...], "url": null,
                        "venue": "...", "year": 2021}, ...]}

Each review carries the two ICLR 2022/2023 novelty ratings, "Technical Novelty And
Significance" and "Empirical Novelty And Significance", on the 1-4 scale, as a number
or as OpenReview's ``"N: text"`` string; ``null`` / ``"N/A"`` means not given. Related
works are part of the input: the paper retrieved the works cited in the introduction
and related-work sections with Nougat and Semantic Scholar, which needs the network.

Stages (the manifest records every paper dropped and why):

1. **Agreement filter**: drop a paper when its reviewers' ratings differ by more than
   ``max_disagreement`` (1) within the technical ratings, within the empirical ratings,
   or across both pooled; papers with no rating are dropped too.
2. **Average** all ratings of both dimensions into one mean in [1, 4].
3. **Bin** the mean into the 1-5 rubric (Table 1). The paper does not state its edges.
   ``binning="fixed"`` (default) uses equal-width edges over the rating scale
   :data:`FIXED_BIN_EDGES` = (1.0, 1.6, 2.2, 2.8, 3.4, 4.0), intervals closed on the
   right, the first also on the left: [1, 1.6] -> 1, (1.6, 2.2] -> 2, (2.2, 2.8] -> 3,
   (2.8, 3.4] -> 4, (3.4, 4] -> 5. ``binning="blended"`` reproduces the released code:
   ``0.7 * quantile edges + 0.3 * equal-width edges`` over the observed means (edges
   depend on the data; the manifest records them).
4. **Related works**: drop ideas with fewer than ``min_related_works`` (5). Done before the
   LLM stages to save calls; the outcome is the same as filtering last.
5. **Idea structuring** (LLM, ``construct_idea.txt``): title, abstract and reviewer
   summaries -> problem statement, objective, solution approach (first person).
6. **Justification synthesis** (LLM, ``construct_justification.txt``): the reviewers'
   comments, the idea, the gold score and the rubric -> one coherent justification.
7. **Quality filters**: formal check of the idea (LLM, ``construct_formal.txt``: first
   person, not a summary of reviews, no numerical novelty score; plus a regular-expression
   check for numeric scores), and grounding of the justification: its known-aspect
   arguments must each be backed by a related work and its novelty-aspect arguments by
   the idea (the judge's extraction and grounding prompts). Only ideas that pass both stay.
8. **Stratified split** 80/20 by score (largest-remainder allocation per class, seeded).

Output in ``out``: ``train.json``, ``test.json`` (published format), ``label_descriptions.json``,
``manifest.json`` (counts per stage, bin edges, drops) and ``judgments.jsonl`` (every LLM
reply per paper; resumable).
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from pydantic import BaseModel, Field

from noveval.benchmarks._contract import client_of
from noveval.benchmarks.rinobench.judge import (
    JudgeOptions,
    _Arguments,
    _arguments_schema,
    _Grounded,
    _numbered,
    _structured,
    _verdicts_schema,
)
from noveval.benchmarks.rinobench.prompts import prompt_hashes, render_messages
from noveval.io import read_records, require_unique_ids, write_json
from noveval.judging.items import IdeaReply, RINoBenchItem
from noveval.judging.request import format_related_works
from noveval.judging.rubric import DEFAULT_RUBRIC, rubric_text
from noveval.models.chat import ChatClientProtocol
from noveval.models.client import run_async
from noveval.models.structured import schema_of
from noveval.models.types import ModelLike
from noveval.records import Idea, Paper, RelatedWork, Review
from noveval.runs import RunDir, run_items

if TYPE_CHECKING:
    from noveval.benchmarks.rinobench.options import ConstructOptions

__all__ = [
    "FIXED_BIN_EDGES",
    "IdeaReply",
    "NoveltyReview",
    "ReviewedPaper",
    "parse_rating",
    "agreement_ok",
    "mean_rating",
    "bin_edges",
    "bin_score",
    "stratified_split",
    "has_numeric_score",
    "construct",
    "run_construct",
]

FIXED_BIN_EDGES: tuple[float, ...] = (1.0, 1.6, 2.2, 2.8, 3.4, 4.0)
"""Equal-width edges over the ICLR 1-4 novelty scale: five bins -> rubric scores 1..5."""


class NoveltyReview(Review):
    """One :class:`~noveval.records.Review` with its two novelty ratings (ICLR 2022/2023 form, Section 4.1.1)."""

    id: str | None = Field(default=None, description="Review id.")
    summary: str = Field(default="", description="The reviewer's summary of the paper.")
    text: str = Field(default="", description="The review's comments (strengths, weaknesses, novelty).")
    technical_novelty: int | str | None = Field(default=None, description="Technical novelty and significance, 1-4 or 'N: text'.")
    empirical_novelty: int | str | None = Field(default=None, description="Empirical novelty and significance, 1-4 or 'N: text'.")


class ReviewedPaper(Paper):
    """A submission (a :class:`~noveval.records.Paper`) with its reviews and related works (construction input)."""

    venueid: str | None = Field(default=None, description="OpenReview venue id.")
    source: str | None = Field(default=None, description="Link to the submission.")
    reviews: list[NoveltyReview] = Field(description="The reviews.")
    related_works: list[RelatedWork] = Field(default_factory=list, description="Works cited in introduction / related work.")


def parse_rating(value: int | str | None) -> int | None:
    """Read a 1-4 rating from ``3`` or ``"3: The contributions are ..."``; None if absent/invalid."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 1 <= value <= 4 else None
    m = re.match(r"\s*(\d+)", value)
    if not m:
        return None
    v = int(m.group(1))
    return v if 1 <= v <= 4 else None


def _ratings(paper: ReviewedPaper) -> tuple[list[int], list[int]]:
    tech = [r for r in (parse_rating(x.technical_novelty) for x in paper.reviews) if r is not None]
    emp = [r for r in (parse_rating(x.empirical_novelty) for x in paper.reviews) if r is not None]
    return tech, emp


def agreement_ok(technical: list[int], empirical: list[int], *, max_disagreement: int = 1) -> bool:
    """Section 4.1.1 filter: max - min <= ``max_disagreement`` within each dimension and pooled.

    Returns:
        True when the paper is kept; False also when there is no rating at all.
    """
    pooled = technical + empirical
    if not pooled:
        return False
    return all(max(v) - min(v) <= max_disagreement for v in (technical, empirical, pooled) if v)


def mean_rating(technical: list[int], empirical: list[int]) -> float:
    """Average of all ratings of both dimensions (Section 4.1.1)."""
    return float(np.mean(technical + empirical))


def bin_edges(means: list[float], *, binning: Literal["fixed", "blended"] = "fixed", quantile_mix: float = 0.7) -> list[float]:
    """Six edges of the five bins: :data:`FIXED_BIN_EDGES`, or the released code's blend.

    ``blended``: ``quantile_mix * quantiles(means, 0, .2, ..., 1) + (1 - quantile_mix) *
    linspace(min, max, 6)``.
    """
    if binning == "fixed":
        return list(FIXED_BIN_EDGES)
    if binning != "blended":
        raise ValueError(f"binning must be 'fixed' or 'blended', got {binning!r}")
    if not means:
        return list(FIXED_BIN_EDGES)
    x = np.asarray(means, dtype=float)
    width = np.linspace(x.min(), x.max(), 6)
    quant = np.quantile(x, np.linspace(0, 1, 6))
    return [float(v) for v in quantile_mix * quant + (1 - quantile_mix) * width]


def bin_score(mean: float, edges: list[float] | tuple[float, ...] = FIXED_BIN_EDGES) -> int:
    """Map a mean rating to 1..5: bin i is ``(edges[i-1], edges[i]]``, the first closed on the left.

    Values outside the edges go to the nearest end bin.
    """
    for i in range(1, 6):
        if mean <= edges[i] + 1e-12:
            return i
    return 5


def stratified_split(scores: list[int], *, test_size: float = 0.2, seed: int = 0) -> tuple[list[int], list[int]]:
    """Stratified split of indices into (train, test), Section 4.1.2 (80:20).

    The test set gets ``round(test_size * N)`` items, spread over classes by largest
    remainder of ``test_size * n_class`` (ties: smaller class label first); within a class
    the test items are a seeded random choice. Deterministic for a given seed.
    """
    n = len(scores)
    by_class: dict[int, list[int]] = {}
    for i, s in enumerate(scores):
        by_class.setdefault(s, []).append(i)
    target = int(round(test_size * n))
    quota = {c: int(np.floor(test_size * len(ix))) for c, ix in by_class.items()}
    rem = sorted(by_class, key=lambda c: (-(test_size * len(by_class[c]) - quota[c]), c))
    for c in rem[: max(0, target - sum(quota.values()))]:
        quota[c] += 1
    rng = np.random.default_rng(seed)
    test: list[int] = []
    for c in sorted(by_class):
        ix = by_class[c]
        pick = rng.permutation(len(ix))[: quota[c]]
        test.extend(ix[j] for j in pick)
    test_set = set(test)
    return [i for i in range(n) if i not in test_set], sorted(test)


_NUMERIC_SCORE = re.compile(
    r"(novelty|originality)[^.]{0,40}\b(score|rating|rated)\b[^.]{0,15}\d|\b\d(\.\d)?\s*/\s*(4|5|10)\b|\bscore of \d",
    re.I,
)


def has_numeric_score(text: str) -> bool:
    """Deterministic part of the formal check: does the text state a numeric novelty score?"""
    return bool(_NUMERIC_SCORE.search(text))


class _JustOut(BaseModel):
    justification: str


class _FormalOut(BaseModel):
    first_person: bool
    not_review_summary: bool
    no_numeric_score: bool


def _schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema (no string length caps: they make llama.cpp grammars huge)."""
    return schema_of(model)


async def _grounding(client: ChatClientProtocol, paper: ReviewedPaper, idea: Idea, row: dict[str, Any],
                     rec: Any, opts: Any) -> str | None:
    """The grounding filter of a synthesised justification (Section 4.1): None when every argument is grounded.

    Known-aspect arguments must be grounded in the related works, novelty-aspect ones in
    the idea; ``row["grounding"]`` gets the verdicts. Returns the drop reason otherwise.
    """
    ivals = {"problem_statement": idea.problem_statement, "objective": idea.objective,
             "solution_approach": idea.solution_approach}
    item = RINoBenchItem(research_idea=idea, related_works=paper.related_works)
    schema = _arguments_schema(opts.max_arguments)
    just = row["novelty_reasoning"]
    kres, nres = await asyncio.gather(
        _structured(client, render_messages("extract_known", justification=just), schema, _Arguments, opts, "rinobench:construct:extract_known"),
        _structured(client, render_messages("extract_novelty", justification=just), schema, _Arguments, opts, "rinobench:construct:extract_novelty"),
    )
    rec("extract_known", kres)
    rec("extract_novelty", nres)
    if not kres.ok or not nres.ok:
        return "grounding_check_failed_to_run"
    grounding: dict[str, Any] = {}
    for kind, args in (("known", kres.value.arguments), ("novelty", nres.value.arguments)):
        args = [a for a in args if a.strip()]
        if not args:
            grounding[kind] = []
            continue
        if kind == "known":
            msgs = render_messages("ground_known", related_works=format_related_works(item), arguments=_numbered(args))
        else:
            msgs = render_messages("ground_novelty", arguments=_numbered(args), **ivals)
        gres = await _structured(client, msgs, _verdicts_schema("grounded", len(args)), _Grounded, opts, f"rinobench:construct:ground_{kind}")
        rec(f"ground_{kind}", gres)
        if not gres.ok or len(gres.value.grounded) != len(args):
            return "grounding_check_failed_to_run"
        grounding[kind] = list(gres.value.grounded)
    row["grounding"] = grounding
    if not all(all(v) for v in grounding.values()):
        return "justification_not_grounded"
    return None


async def _process_paper(client: ChatClientProtocol, paper: ReviewedPaper, score: int, rubric: dict[int, str], check_grounding: bool, opts: Any) -> dict[str, Any]:
    """The LLM stages of one paper (Section 4.1): structure the idea, synthesise the justification, filters."""
    calls: list[dict[str, Any]] = []
    row: dict[str, Any] = {"id": paper.id, "score": score, "keep": False, "reason": None, "calls": calls}

    def rec(step: str, res: Any) -> None:
        calls.append({"step": step, "ok": res.ok, "error": res.error, "raw": res.raw, "value": res.value.model_dump() if res.value is not None else None})

    summaries = "\n".join(f"- {r.summary.strip()}" for r in paper.reviews if r.summary.strip()) or "(none)"
    res = await _structured(client, render_messages("construct_idea", title=paper.title, abstract=paper.abstract, summaries=summaries), _schema(IdeaReply), IdeaReply, opts, "rinobench:construct:idea")
    rec("idea", res)
    if not res.ok:
        row["reason"] = "idea_structuring_failed"
        return row
    idea = Idea(**res.value.model_dump())
    row["research_idea"] = idea.model_dump()
    comments = "\n\n".join(f"Reviewer {i}: {r.text.strip()}" for i, r in enumerate(paper.reviews, start=1) if r.text.strip()) or "(none)"
    ivals = {"problem_statement": idea.problem_statement, "objective": idea.objective, "solution_approach": idea.solution_approach}
    jres, fres = await asyncio.gather(
        _structured(client, render_messages("construct_justification", score=str(score), rubric=rubric_text(rubric), comments=comments, **ivals), _schema(_JustOut), _JustOut, opts, "rinobench:construct:justification"),
        _structured(client, render_messages("construct_formal", **ivals), _schema(_FormalOut), _FormalOut, opts, "rinobench:construct:formal"),
    )
    rec("justification", jres)
    rec("formal", fres)
    if not jres.ok or not jres.value.justification.strip():
        row["reason"] = "justification_synthesis_failed"
        return row
    row["novelty_reasoning"] = jres.value.justification.strip()
    if not fres.ok:
        row["reason"] = "formal_check_failed_to_run"
        return row
    formal = fres.value
    numeric = has_numeric_score(" ".join(ivals.values()))
    row["formal"] = {**formal.model_dump(), "regex_numeric_score": numeric}
    if not (formal.first_person and formal.not_review_summary and formal.no_numeric_score) or numeric:
        row["reason"] = "formal_check"
        return row
    if check_grounding:
        reason = await _grounding(client, paper, idea, row, rec, opts)
        if reason is not None:
            row["reason"] = reason
            return row
    row["keep"] = True
    return row


def _agreeing(papers: list[ReviewedPaper], max_disagreement: int, drops: dict[str, str]) -> list[tuple[ReviewedPaper, float]]:
    """Papers whose reviewers agree (within ``max_disagreement``), with their mean rating; the rest go to ``drops``."""
    kept: list[tuple[ReviewedPaper, float]] = []
    for p in papers:
        tech, emp = _ratings(p)
        if not tech and not emp:
            drops[p.id] = "no_novelty_ratings"
        elif not agreement_ok(tech, emp, max_disagreement=max_disagreement):
            drops[p.id] = "reviewer_disagreement"
        else:
            kept.append((p, mean_rating(tech, emp)))
    return kept


def _final_items(rows: list[dict[str, Any]], by_id: dict[str, tuple[ReviewedPaper, float, int]],
                 drops: dict[str, str]) -> list[dict[str, Any]]:
    """The dataset items (published format) of the papers the LLM stages kept; the rest go to ``drops``."""
    final: list[dict[str, Any]] = []
    for r in rows:
        if not r["keep"]:
            drops[r["id"]] = r["reason"]
            continue
        p, _m, s = by_id[r["id"]]
        final.append({
            "source": p.source,
            "venueid": p.venueid,
            "research_idea": r["research_idea"],
            "novelty_score": s,
            "novelty_reasoning": r["novelty_reasoning"],
            "related_works": [w.model_dump(exclude_none=False) for w in p.related_works],
        })
    return final


def _write_dataset(out: Path, final: list[dict[str, Any]], rub: dict[int, str], *, test_size: float,
                   seed: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Split ``final`` stratified by score and write train.json, test.json and label_descriptions.json."""
    train_ix, test_ix = stratified_split([f["novelty_score"] for f in final], test_size=test_size, seed=seed)
    train, test = [final[i] for i in train_ix], [final[i] for i in test_ix]
    write_json(out / "train.json", train)
    write_json(out / "test.json", test)
    write_json(out / "label_descriptions.json", [f"{k}: {rub[k]}" for k in sorted(rub)])
    return train, test


def construct(
    reviews: str | Path,
    out: str | Path,
    *,
    model: ModelLike = "local",
    binning: Literal["fixed", "blended"] = "fixed",
    quantile_mix: float = 0.7,
    max_disagreement: int = 1,
    min_related_works: int = 5,
    test_size: float = 0.2,
    check_grounding: bool = True,
    rubric: dict[int, str] | None = None,
    max_tokens: int = 384,
    seed: int = 0,
    cache: str | None = "default",
    overwrite: bool = False,
) -> dict[str, Any]:
    """Run the Section 4.1 pipeline on review records and write a dataset in the published format.

    ``reviews`` holds :class:`ReviewedPaper` records (JSON array or JSONL); ``out`` is resumable
    (LLM steps already done are not redone). ``model`` (spec or client) runs the LLM stages (the
    paper used GPT-OSS-120B). Paper settings: ``binning`` ``"fixed"`` (:data:`FIXED_BIN_EDGES`; the
    released code's ``"blended"`` mixes the ``quantile_mix`` quantile), ``max_disagreement`` 1,
    ``min_related_works`` 5, ``test_size`` 0.2 (stratified), ``check_grounding`` (the LLM
    grounding filter), ``rubric`` Table 1. ``max_tokens`` caps each reply; ``seed`` seeds the
    split and the LLM; ``overwrite`` replaces a folder built with other settings.

    Returns:
        The manifest (also written to ``manifest.json``).

    Raises:
        InputError: invalid records (file, line, field), duplicate ids, or a folder built
            with other settings.
    """
    papers = read_records(reviews, ReviewedPaper)
    require_unique_ids(reviews, (p.id for p in papers))
    rub = rubric or dict(DEFAULT_RUBRIC)
    drops: dict[str, str] = {}
    kept = _agreeing(papers, max_disagreement, drops)
    edges = bin_edges([m for _, m in kept], binning=binning, quantile_mix=quantile_mix)
    scored = [(p, m, bin_score(m, edges)) for p, m in kept]
    cands = [(p, m, s) for p, m, s in scored if len(p.related_works) >= min_related_works]
    drops.update({p.id: "too_few_related_works" for p, _m, _s in scored if len(p.related_works) < min_related_works})

    client = client_of(model, cache=cache)
    opts = JudgeOptions(seed=seed, judge_max_tokens=max_tokens)
    config = {"benchmark": "rinobench", "task": "construct", "reviews": str(Path(reviews).resolve()),
              "model": client.model_id, "binning": binning,
              "quantile_mix": quantile_mix if binning == "blended" else None, "max_disagreement": max_disagreement,
              "min_related_works": min_related_works, "check_grounding": check_grounding, "max_tokens": max_tokens,
              "rubric": rub, "prompts": prompt_hashes(), "seed": seed}
    run = RunDir.create(out, config, overwrite=overwrite)

    async def worker(c: tuple[ReviewedPaper, float, int]) -> dict[str, Any]:
        return await _process_paper(client, c[0], c[2], rub, check_grounding, opts)

    rows = run_async(run_items(run, "judgments", cands, worker, id_of=lambda c: c[0].id,
                               progress="rinobench: constructing", client=client), client)
    final = _final_items(rows, {p.id: (p, m, s) for p, m, s in cands}, drops)
    train, test = _write_dataset(Path(out), final, rub, test_size=test_size, seed=seed)
    counts = {"input_papers": len(papers), "after_agreement_filter": len(kept),
              "after_related_works_filter": len(cands), "final": len(final), "train": len(train), "test": len(test)}
    manifest = {
        "counts": counts, "bin_edges": edges, "binning": binning, "mean_ratings": {p.id: m for p, m in kept},
        "scores": {p.id: s for p, _m, s in scored}, "drops": drops, "drop_reasons": dict(Counter(drops.values())),
        "class_distribution": {split: dict(sorted(Counter(x["novelty_score"] for x in rows_).items()))
                               for split, rows_ in (("train", train), ("test", test))},
        "llm": client.model_id, "cache": client.stats,
    }
    write_json(Path(out) / "manifest.json", manifest)
    return manifest


def run_construct(model: ModelLike, out: Path, options: ConstructOptions) -> Path:
    """``noveval rinobench construct``: :func:`construct` with ``options`` into ``out`` (a resumable folder).

    Run it through :func:`~noveval.benchmarks._runner.run_task` (endpoint check, call ledger,
    unusable-answer tally, completeness); the model's client takes the options' client
    settings (cache, concurrency, timeout).

    Returns:
        ``out`` (``train.json``, ``test.json``, ``label_descriptions.json``, ``manifest.json``).
    """
    client = client_of(model, **options.client_kwargs())
    construct(options.reviews, out, model=client, binning=options.binning, min_related_works=options.min_related_works,
              test_size=options.test_size, check_grounding=not options.skip_grounding, seed=options.seed,
              overwrite=options.overwrite)
    return Path(out)
