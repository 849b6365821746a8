"""Assemble the grounded opinion: retrieval, per-contribution evidence, corpus metrics, model
judgments, and when to abstain.

The same input, corpus (or index) and options give the same result, whatever ran before:
the metric pool is the ``pool_size`` nearest kept papers (by the retrieval ranking, or by
embedding similarity without an index), never "whatever has vectors"; the evidence is
computed from that pool; what depends on caches (seconds, vectors computed now) is kept
under ``timings``.

Abstention is explicit: the result says the corpus cannot support a judgment when

* nothing in it is close: the most similar retrieved paper's cosine similarity is below
  ``min_similarity`` (calibrated on citation gold, docs/check.md),
* it is too small (fewer than ``min_papers`` papers), or
* it ends well before the input's year (newest paper more than ``max_year_gap`` years
  older), so recent related work is missing;

the evidence, metrics and the model's answers are still shown, labelled as unsupported.
"""

from __future__ import annotations

import datetime as _dt
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from noveval.check.evidence import EvidenceThresholds, Work, contribution_evidence, idf_from_texts
from noveval.check.inputs import CheckInput, load_input
from noveval.check.metrics import corpus_metrics
from noveval.check.retrieve import Neighbour, nearest
from noveval.corpus import Corpus, load_corpus
from noveval.errors import InputError
from noveval.models.chat import ChatClientProtocol
from noveval.models.client import run_async
from noveval.models.types import EmbedderLike, EmbedderProtocol, as_embedder

__all__ = ["CheckOptions", "check_idea", "abstention", "prepare", "assemble", "BUNDLED_NOTE"]

log = logging.getLogger(__name__)

MIN_SIMILARITY = 0.5
"""Default abstention threshold on the best cosine similarity (bundled MiniLM; calibrated on citation gold:
94% of NeurIPS 2025 papers cite a pre-2025 corpus paper at least this similar, and all ten off-topic
ideas of ``perf/retrieval_quality.py`` fall below it; docs/check.md)."""

BUNDLED_NOTE = ("The bundled SmolLM2-135M wrote this judgment: it only shows that the pipeline runs end to end and "
                "is not an opinion on novelty. Retrieval, the per-contribution evidence and the corpus metrics "
                "stand on their own; use a real model (-m openai-compatible/...) for a judgment.")


@dataclass
class CheckOptions:
    """Settings of one check (all recorded in the JSON result).

    Attributes:
        model: Chat model spec for the judgments.
        embedder: Embedding model spec.
        top_k: Retrieved works listed as closest prior work and given to the model.
        pool_size: Metric pool and evidence candidates: the nearest kept papers.
        min_similarity: Below this best similarity the corpus "has nothing close" (abstain).
        min_papers: Fewer corpus papers than this cannot support a judgment.
        max_year_gap: Largest allowed gap (years) between the input and the corpus's newest paper.
        judge: Ask the model (False: retrieval, evidence and metrics only).
        metrics: Which corpus metrics.
        seed: Seed for sampling, t-SNE and generation.
        temperature: Sampling temperature of the rubric judgment (0: greedy; the other
            model calls stay at 0).
        samples: Ask the rubric judgment this many times (seeds ``seed .. seed + N - 1``,
            ``temperature`` above 0) and answer the plurality score, recording every
            sample and the self-consistency (issue 18).

    Raises:
        InputError: ``samples`` below 1, above 1 at temperature 0, or a temperature
            outside [0, 2].
    """

    model: str = "local"
    embedder: str = "local"
    top_k: int = 10
    pool_size: int = 300
    min_similarity: float = MIN_SIMILARITY
    min_papers: int = 50
    max_year_gap: int = 2
    judge: bool = True
    metrics: tuple[str, ...] = ("Yin", "RND", "SemNovel", "FastTextLOF")
    seed: int = 0
    temperature: float = 0.0
    samples: int = 1

    def __post_init__(self) -> None:
        from noveval.metrics.consistency import check_samples

        if not 0.0 <= self.temperature <= 2.0:
            raise InputError(None, None, "--temperature", f"must be in [0, 2], got {self.temperature}")
        check_samples(self.samples, self.temperature, hint="give --temperature above 0", field="--samples")

    def recorded(self) -> dict[str, Any]:
        """The settings as recorded in ``check.json``: ``temperature`` and ``samples`` only
        when not the defaults (0 and 1), so a one-sample check writes what it always did."""
        out = {k: (list(v) if isinstance(v, tuple) else v) for k, v in vars(self).items()}
        if self.temperature == 0.0:
            del out["temperature"]
        if self.samples == 1:
            del out["samples"]
        return out


def abstention(best_similarity: float, corpus: Any, input_year: int | None, opts: CheckOptions) -> list[str]:
    """Reasons the corpus cannot support a judgment (empty: it can)."""
    reasons = []
    if len(corpus) < opts.min_papers:
        reasons.append(f"the corpus has only {len(corpus)} papers (at least {opts.min_papers} are needed)")
    if best_similarity < opts.min_similarity:
        reasons.append(f"nothing close was found: the most similar paper has similarity {best_similarity:.2f} "
                       f"(below {opts.min_similarity:.2f}, which the closest cited prior work of 94% of NeurIPS 2025 "
                       "papers reaches), so the corpus probably does not cover this topic")
    ys = corpus.known_years()
    if ys and input_year is not None and input_year - max(ys) > opts.max_year_gap:
        reasons.append(f"the corpus ends in {max(ys)}, {input_year - max(ys)} years before the input ({input_year}); "
                       "recent related work is missing")
    return reasons


def prepare(input: str | Path | CheckInput, corpus: str | Path | Corpus, **corpus_kw: Any) -> tuple[CheckInput, Corpus]:
    """Validate the input and load the corpus (raises ``InputError`` before anything is written)."""
    inp = input if isinstance(input, CheckInput) else load_input(input)
    c = corpus if isinstance(corpus, Corpus) else load_corpus(corpus, **corpus_kw)
    return inp, c


def filter_phrase(before_year: int | None, fields: list[str] | None) -> str:
    """``"pre-2025 ML "`` style words for the pool's headline ("" without filters)."""
    words = ([f"pre-{before_year}"] if before_year else []) + list(fields or [])
    return " ".join(words) + " " if words else ""


def check_idea(
    input: str | Path | CheckInput,
    corpus: str | Path | Corpus,
    *,
    options: CheckOptions | None = None,
    embedder: EmbedderLike | None = None,
    client: ChatClientProtocol | None = None,
    before_year: int | None = None,
    fields: list[str] | None = None,
    max_corpus: int | None = None,
) -> dict[str, Any]:
    """A grounded novelty opinion on one idea or paper against a corpus file (every kept paper embedded).

    Args:
        input: Path to the idea/paper (see :mod:`noveval.check.inputs`) or a loaded input.
        corpus: Path to the corpus JSONL(.gz) or a loaded :class:`Corpus`.
        options: Settings; defaults are :class:`CheckOptions`'.
        embedder: A ready embedder (default: ``get_embedder(options.embedder)``).
        client: A ready chat client (default: ``get_client(options.model)``).
        before_year, fields, max_corpus: Corpus filters (when ``corpus`` is a path).

    Returns:
        The JSON-ready result (input, corpus summary, neighbours, evidence, metrics, judgments, verdict).
    """
    opts = options or CheckOptions()
    t0, c0 = time.perf_counter(), time.process_time()
    inp, c = prepare(input, corpus, before_year=before_year, fields=fields, max_papers=max_corpus, seed=opts.seed)
    emb = as_embedder(opts.embedder if embedder is None else embedder)
    timings: dict[str, Any] = {}
    mat = np.asarray(emb.encode(c.texts(), batch_size=64, progress="check: embedding corpus"), dtype=np.float32)
    focal = np.asarray(emb.encode([inp.embedding_text()]), dtype=np.float32)[0]
    timings["embed_s"] = time.perf_counter() - t0
    ranked = nearest(focal, mat, c.papers, min(opts.pool_size, len(c)))
    pool_idx = np.asarray([n.index for n in ranked], dtype=np.int64)
    t1 = time.perf_counter()
    log.info("check: corpus metrics on %d papers", len(pool_idx))
    metrics = corpus_metrics(focal, inp.title or None, mat[pool_idx], [c.titles[i] for i in pool_idx],
                             metrics=opts.metrics, seed=opts.seed)
    timings["metrics_s"] = time.perf_counter() - t1
    pool = f"the {len(pool_idx)} nearest {filter_phrase(before_year, fields)}papers by embedding similarity"
    summary = {**c.summary(), "metric_pool": int(len(pool_idx)), "metric_pool_source": pool, "embedder": emb.model_id}
    return assemble(inp, c, ranked, mat[pool_idx], metrics, opts, corpus_summary=summary, client=client,
                    embedder=emb, before_year=before_year, timings=timings, t0=t0, c0=c0,
                    order="by cosine similarity to the input (exact search over every kept paper)")


def _works(ranked: list[Neighbour]) -> list[Work]:
    return [Work(n.rank, n.title, n.abstract, n.year, float(n.similarity)) for n in ranked]


def assemble(inp: CheckInput, corpus: Any, ranked: list[Neighbour], pool_vectors: np.ndarray, metrics: list, opts: CheckOptions,
             *, corpus_summary: dict[str, Any], client: ChatClientProtocol | None, embedder: EmbedderProtocol, before_year: int | None,
             timings: dict[str, Any], t0: float, c0: float, order: str, extra: dict[str, Any] | None = None,
             shown: list[Neighbour] | None = None) -> dict[str, Any]:
    """Evidence, abstention, model judgments and the result dict (shared by the corpus-file and index paths).

    Args:
        inp: The input.
        corpus: Anything with ``len()`` and ``known_years()`` (a :class:`Corpus` or an index view).
        ranked: The pool, in retrieval order (rank 1 first), each with its similarity.
        pool_vectors: (len(ranked), d) their vectors.
        metrics: :class:`~noveval.check.metrics.MetricResult` list.
        opts: Settings.
        corpus_summary: JSON-ready corpus description for the result.
        client: Chat client (built from ``opts.model`` when None and judging).
        embedder: The embedder (for the contributions' vectors).
        before_year: The year filter (the input's year when it has none).
        timings: Timings so far (updated).
        t0, c0: Start wall time (``perf_counter``) and process CPU time (``process_time``).
        order: How ``ranked`` is ordered, in words (stated in the report).
        extra: More top-level keys for the result (e.g. ``retrieval``).
        shown: The closest-prior-work list (default: the first ``top_k`` of ``ranked``).
    """
    t1 = time.perf_counter()
    works = _works(ranked)
    cvecs = (np.asarray(embedder.encode([p.text for p in inp.contributions]), dtype=np.float32)
             if inp.contributions else np.zeros((0, pool_vectors.shape[1] if pool_vectors.ndim == 2 else 0)))
    idf = idf_from_texts([w.abstract for w in works])
    evidence = contribution_evidence(inp.contributions, cvecs, works, pool_vectors, idf)
    timings["evidence_s"] = time.perf_counter() - t1
    neighbours = shown if shown is not None else ranked[:opts.top_k]
    closest = max(ranked, key=lambda n: (n.similarity, -n.rank)) if ranked else None
    best = closest.similarity if closest else -1.0
    input_year = inp.year or before_year or _dt.date.today().year
    reasons = abstention(best, corpus, input_year, opts)
    result: dict[str, Any] = {
        "input": {"kind": inp.kind, "source": inp.source, "path": inp.path, "title": inp.title, "abstract": inp.abstract,
                  "idea": inp.idea.model_dump() if inp.idea else None, "text": inp.text, "year": inp.year,
                  "parsed": inp.parsed()},
        "corpus": corpus_summary,
        **(extra or {}),
        "options": opts.recorded(),
        "order": order,
        "neighbours": [n.to_dict() for n in neighbours],
        "closest": closest.to_dict() if closest else None,
        "evidence": {"contributions": evidence, "thresholds": vars(EvidenceThresholds()),
                     "candidates": len(works), "method": "contribution embedding vs each pool paper (cosine); quotes: "
                     "abstract sentences sharing the contribution's IDF-weighted terms"},
        "metrics": [m.to_dict() for m in metrics],
        "verdict": {"supported": not reasons, "reasons": reasons, "best_similarity": best,
                    "near_duplicate": closest.to_dict() if closest and best >= 0.95 else None},
    }
    timings["retrieval_metrics_cpu_s"] = time.process_time() - c0
    if opts.judge:
        t2 = time.perf_counter()
        result["prompts"] = judge_prompts()  # checks overrides before any model call
        if client is None:
            from noveval.models.client import get_client

            client = get_client(opts.model)
        by_rank = {w.rank: w for w in works}
        show = sorted({n.rank for n in neighbours} | {w["rank"] for e in evidence for w in e["works"]})
        judged: dict[str, Any] = {}
        run_async(_judge(client, inp, neighbours, [by_rank[r] for r in show], idf, opts, judged), client)
        result.update(judged)
        result["model"] = client.model_id
        result["bundled_model"] = _is_bundled(opts.model, client.model_id)
        timings["judge_s"] = time.perf_counter() - t2
    result["verdict"]["summary"] = summarize(result)
    timings["total_s"] = time.perf_counter() - t0
    timings["cpu_s"] = time.process_time() - c0
    result["timings"] = timings
    return result


def _is_bundled(spec: str, model_id: str) -> bool:
    return spec == "local" or "smollm2-135m" in model_id.lower()


async def _judge(client: ChatClientProtocol, inp: CheckInput, neighbours: list, works: list[Work], idf: Any,
                 opts: CheckOptions, out: dict[str, Any]) -> None:
    from noveval.check.judge import rubric_judgment, structure_idea, structured_evaluation

    idea = inp.idea
    if idea is None:
        text = inp.describe()
        idea, err, attempts = await structure_idea(client, text, seed=opts.seed)
        out["structuring"] = {"by": "model" if idea else "heuristic", "error": err, "attempts": attempts}
        out["structured_idea"] = idea.model_dump() if idea else None
        if idea is None:
            idea = inp.heuristic_idea()
            out["structuring"]["fallback"] = "the heuristic parse shown under Input"
    if idea is not None:
        out["rubric"] = await rubric_judgment(client, idea, neighbours, seed=opts.seed, temperature=opts.temperature,
                                              samples=opts.samples)
    else:
        out["rubric"] = {"score": None, "error": "the input could not be structured into an idea",
                         "justification": None, "parse_status": "skipped", "cites": []}
    out["evaluation"] = await structured_evaluation(client, inp.describe(), works, seed=opts.seed,
                                                    contributions=[c.text for c in inp.contributions], idf=idf)


def judge_prompts() -> dict[str, str]:
    """Content hashes of the prompts the judgments use (``system/name`` -> hash), checked.

    Raises:
        InputError: an override uses a variable the code does not provide.
    """
    from noveval.prompts import prompt_hashes

    out = {f"check/{k}": v for k, v in prompt_hashes("check", ["structure_idea", "structured_evaluation"]).items()}
    out.update({f"rinobench/{k}": v for k, v in prompt_hashes("rinobench", ["judge_novelty"]).items()})
    return out


def _evidence_sentence(evidence: list[dict[str, Any]]) -> str:
    if not evidence:
        return ""
    bits = []
    for e in evidence:
        w = next((x for x in e["works"] if x["rank"] == e["evidence_rank"]), None)
        if e["verdict"] == "new" or w is None:
            bits.append(f"({e['n']}) new")
        else:
            q = w["quotes"][0]["sentence"]
            q = q if len(q) <= 110 else q[:107].rstrip() + "..."
            bits.append(f"({e['n']}) {e['verdict']} by [{w['rank']}] (\"{q}\")")
    return f"Contributions: {'; '.join(bits)}."


def summarize(result: dict[str, Any]) -> str:
    """One paragraph verdict in plain words, citing the evidence."""
    v = result["verdict"]
    c = result.get("closest")
    parts = []
    if not v["supported"]:
        parts.append("The corpus cannot support a novelty judgment: " + "; ".join(v["reasons"]) + ".")
    if v.get("near_duplicate"):
        d = v["near_duplicate"]
        parts.append(f"A near-identical work is in the corpus: [{d['rank']}] \"{d['title']}\" "
                     f"(similarity {d['similarity']:.2f}).")
    elif c:
        pool = result["corpus"].get("metric_pool") or len(result["neighbours"])
        parts.append(f"Closest prior work (the most similar of the {pool} retrieved): [{c['rank']}] \"{c['title']}\" "
                     f"(similarity {c['similarity']:.2f}).")
    ev = _evidence_sentence(result.get("evidence", {}).get("contributions", []))
    if ev:
        parts.append(ev)
    pct = [m["percentile"] for m in result["metrics"] if m["percentile"] is not None]
    if pct:
        parts.append(f"Corpus metrics put the input at percentile {np.median(pct):.0f} among "
                     f"{result['corpus'].get('metric_pool_source', 'the corpus papers')} (median over {len(pct)} "
                     "metrics; higher = more novel).")
    r = result.get("rubric")
    if r and r.get("score"):
        tail = "" if v["supported"] else " (not supported by the corpus; shown for transparency)"
        if r.get("samples"):
            from noveval.check.judge import sampling_note

            tail = f" ({sampling_note(r)}){tail}"
        if result.get("bundled_model"):
            tail += "; with the bundled 135M model this only shows that the pipeline runs"
        parts.append(f"The model ({result.get('model')}) rates it {r['score']}/5{tail}.")
    return " ".join(parts)
