"""Assemble the grounded opinion: retrieval, corpus metrics, model judgments, and when to abstain.

Abstention is explicit: the result says the corpus cannot support a judgment when

* nothing in it is similar (the best cosine similarity is below ``min_similarity``),
* it is too small (fewer than ``min_papers`` papers), or
* it ends well before the input's year (newest paper more than ``max_year_gap`` years
  older), so recent related work is missing;

the metrics and the model's answers are still shown, labelled as unsupported.
"""

from __future__ import annotations

import datetime as _dt
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from noveval.check.inputs import CheckInput, load_input
from noveval.check.metrics import corpus_metrics
from noveval.check.retrieve import nearest
from noveval.corpus import Corpus, load_corpus
from noveval.models.chat import ChatClientProtocol
from noveval.models.client import run_async

__all__ = ["CheckOptions", "check_idea", "abstention", "prepare"]

log = logging.getLogger(__name__)


@dataclass
class CheckOptions:
    """Settings of one check (all recorded in the JSON result).

    Attributes:
        model: Chat model spec for the judgments.
        embedder: Embedding model spec.
        top_k: Retrieved works shown and given to the model.
        pool_size: Largest corpus sample the metrics are computed on.
        min_similarity: Below this best similarity the corpus "has nothing similar".
        min_papers: Fewer corpus papers than this cannot support a judgment.
        max_year_gap: Largest allowed gap (years) between the input and the corpus's newest paper.
        judge: Ask the model (False: retrieval and metrics only).
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
    pool_size: int = 3000
    min_similarity: float = 0.5
    min_papers: int = 50
    max_year_gap: int = 2
    judge: bool = True
    metrics: tuple[str, ...] = ("Yin", "RND", "SemNovel", "FastTextLOF")
    seed: int = 0
    temperature: float = 0.0
    samples: int = 1

    def __post_init__(self) -> None:
        from noveval.errors import InputError
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


def abstention(best_similarity: float, corpus: Corpus, input_year: int | None, opts: CheckOptions) -> list[str]:
    """Reasons the corpus cannot support a judgment (empty: it can)."""
    reasons = []
    if len(corpus) < opts.min_papers:
        reasons.append(f"the corpus has only {len(corpus)} papers (at least {opts.min_papers} are needed)")
    if best_similarity < opts.min_similarity:
        reasons.append(f"nothing similar was found: the closest paper has similarity {best_similarity:.2f} "
                       f"(below {opts.min_similarity:.2f}), so the corpus probably does not cover this topic")
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


async def _judge(client: ChatClientProtocol, inp: CheckInput, neighbours: list, opts: CheckOptions, out: dict[str, Any]) -> None:
    from noveval.check.judge import rubric_judgment, structure_idea, structured_evaluation

    idea = inp.idea
    if idea is None:
        text = inp.text if inp.kind == "text" else inp.describe()
        idea, err = await structure_idea(client, text, seed=opts.seed)
        out["structured_idea"] = idea.model_dump() if idea else None
        if idea is None:
            out["structure_error"] = err
            if inp.kind == "paper":  # fall back to the paper's own words
                from noveval.records import Idea

                idea = Idea(problem_statement=inp.title, objective=inp.abstract, solution_approach=inp.abstract)
    if idea is not None:
        out["rubric"] = await rubric_judgment(client, idea, neighbours, seed=opts.seed, temperature=opts.temperature,
                                              samples=opts.samples)
    else:
        out["rubric"] = {"score": None, "error": "the input could not be structured into an idea",
                         "justification": None, "parse_status": "skipped", "cites": []}
    out["evaluation"] = await structured_evaluation(client, inp.describe(), neighbours, seed=opts.seed)


def check_idea(
    input: str | Path | CheckInput,
    corpus: str | Path | Corpus,
    *,
    options: CheckOptions | None = None,
    embedder: Any = None,
    client: ChatClientProtocol | None = None,
    before_year: int | None = None,
    fields: list[str] | None = None,
    max_corpus: int | None = None,
) -> dict[str, Any]:
    """A grounded novelty opinion on one idea or paper against a corpus.

    Args:
        input: Path to the idea/paper (see :mod:`noveval.check.inputs`) or a loaded input.
        corpus: Path to the corpus JSONL(.gz) or a loaded :class:`Corpus`.
        options: Settings; defaults are :class:`CheckOptions`'.
        embedder: A ready embedder (default: ``get_embedder(options.embedder)``).
        client: A ready chat client (default: ``get_client(options.model)``).
        before_year, fields, max_corpus: Corpus filters (when ``corpus`` is a path).

    Returns:
        The JSON-ready result (input, corpus summary, neighbours, metrics, judgments, verdict).
    """
    opts = options or CheckOptions()
    t0 = time.perf_counter()
    inp, c = prepare(input, corpus, before_year=before_year, fields=fields, max_papers=max_corpus, seed=opts.seed)
    if embedder is None:
        from noveval.models.embed import get_embedder

        embedder = get_embedder(opts.embedder)
    timings: dict[str, float] = {}
    mat = np.asarray(embedder.encode(c.texts(), batch_size=64, progress="check: embedding corpus"), dtype=np.float32)
    focal = np.asarray(embedder.encode([inp.embedding_text()]), dtype=np.float32)[0]
    timings["embed_s"] = time.perf_counter() - t0
    neighbours = nearest(focal, mat, c.papers, opts.top_k)
    rng = np.random.default_rng(opts.seed)
    pool_idx = np.arange(len(c)) if len(c) <= opts.pool_size else np.sort(rng.choice(len(c), opts.pool_size, replace=False))
    t1 = time.perf_counter()
    log.info("check: corpus metrics on %d papers", len(pool_idx))
    metrics = corpus_metrics(focal, inp.title or None, mat[pool_idx], [c.titles[i] for i in pool_idx],
                             metrics=opts.metrics, seed=opts.seed)
    timings["metrics_s"] = time.perf_counter() - t1
    return finish(inp, c, neighbours, metrics, opts, corpus_summary={**c.summary(), "metric_pool": int(len(pool_idx)),
                                                                     "embedder": embedder.model_id},
                  client=client, before_year=before_year, timings=timings, t0=t0)


def finish(inp: CheckInput, corpus: Any, neighbours: list, metrics: list, opts: CheckOptions, *,
           corpus_summary: dict[str, Any], client: ChatClientProtocol | None, before_year: int | None, timings: dict[str, float],
           t0: float, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """Abstention, model judgments and the result dict (shared by the corpus-file and index paths).

    Args:
        inp: The input.
        corpus: Anything with ``len()`` and ``years()`` (a :class:`Corpus` or an index view).
        neighbours: Retrieved :class:`~noveval.check.retrieve.Neighbour` list, best first.
        metrics: :class:`~noveval.check.metrics.MetricResult` list.
        opts: Settings.
        corpus_summary: JSON-ready corpus description for the result.
        client: Chat client (built from ``opts.model`` when None and judging).
        before_year: The year filter (the input's year when it has none).
        timings: Timings so far (updated).
        t0: Start time (``time.perf_counter()``).
        extra: More top-level keys for the result (e.g. ``retrieval``).
    """
    c = corpus
    input_year = inp.year or before_year or _dt.date.today().year
    best = neighbours[0].similarity if neighbours else -1.0
    reasons = abstention(best, c, input_year, opts)
    result: dict[str, Any] = {
        "input": {"kind": inp.kind, "path": inp.path, "title": inp.title, "abstract": inp.abstract,
                  "idea": inp.idea.model_dump() if inp.idea else None, "text": inp.text, "year": inp.year},
        "corpus": corpus_summary,
        **(extra or {}),
        "options": opts.recorded(),
        "neighbours": [n.to_dict() for n in neighbours],
        "metrics": [m.to_dict() for m in metrics],
        "verdict": {"supported": not reasons, "reasons": reasons, "best_similarity": best,
                    "near_duplicate": neighbours[0].to_dict() if neighbours and best >= 0.95 else None},
    }
    if opts.judge:
        t2 = time.perf_counter()
        result["prompts"] = judge_prompts()  # checks overrides before any model call
        if client is None:
            from noveval.models.client import get_client

            client = get_client(opts.model)
        judged: dict[str, Any] = {}
        run_async(_judge(client, inp, neighbours, opts, judged), client)
        result.update(judged)
        result["model"] = client.model_id
        timings["judge_s"] = time.perf_counter() - t2
    result["verdict"]["summary"] = summarize(result)
    timings["total_s"] = time.perf_counter() - t0
    result["timings"] = timings
    return result


def judge_prompts() -> dict[str, str]:
    """Content hashes of the prompts the judgments use (``system/name`` -> hash), checked.

    Raises:
        InputError: an override uses a variable the code does not provide.
    """
    from noveval.prompts import prompt_hashes

    out = {f"check/{k}": v for k, v in prompt_hashes("check", ["structure_idea", "structured_evaluation"]).items()}
    out.update({f"rinobench/{k}": v for k, v in prompt_hashes("rinobench", ["judge_novelty"]).items()})
    return out


def summarize(result: dict[str, Any]) -> str:
    """One paragraph verdict in plain words."""
    v = result["verdict"]
    nb = result["neighbours"]
    parts = []
    if not v["supported"]:
        parts.append("The corpus cannot support a novelty judgment: " + "; ".join(v["reasons"]) + ".")
    if v.get("near_duplicate"):
        d = v["near_duplicate"]
        parts.append(f"A near-identical work is in the corpus: [1] \"{d['title']}\" (similarity {d['similarity']:.2f}).")
    elif nb:
        parts.append(f"Closest prior work: [1] \"{nb[0]['title']}\" (similarity {nb[0]['similarity']:.2f}).")
    pct = [m["percentile"] for m in result["metrics"] if m["percentile"] is not None]
    if pct:
        parts.append(f"Corpus metrics put the input at percentile {np.median(pct):.0f} among the corpus's own "
                     f"papers (median over {len(pct)} metrics; higher = more novel).")
    r = result.get("rubric")
    if r and r.get("score"):
        tail = "" if v["supported"] else " (not supported by the corpus; shown for transparency)"
        if r.get("samples"):
            from noveval.check.judge import sampling_note

            tail = f" ({sampling_note(r)}){tail}"
        parts.append(f"The model ({result.get('model')}) rates it {r['score']}/5{tail}.")
    return " ".join(parts)

