"""End-to-end focus-level evaluation in a run directory ("Mind the Blind Spots", Fig. 2).

``run_focus``: papers -> expert points (splitter or A.1.1 chain) -> model reviews
(predictions.jsonl) -> target/aspect annotation of every human and model point
(judgments.jsonl) -> :func:`score_run`. ``score_run``: judgments + predictions ->
per_item.jsonl, scores.json (bootstrap CIs, Figure-4 data in ``extra``) and
``focus.png``. Every step is resumable: finished rows are skipped on re-run and
model calls go through the client's cache.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from noveval.benchmarks._contract import client_of, sample_file
from noveval.benchmarks.focus import BENCHMARK
from noveval.benchmarks.focus.annotate import (
    annotation_requests,
    annotation_seeds,
    judgment_row,
    sampled_judgment_row,
)
from noveval.benchmarks.focus.data import (
    FocusPaper,
    FocusPoint,
    load_papers,
    points_from_lists,
    points_from_sections,
    read_judgments,
)
from noveval.benchmarks.focus.expert import expert_rows
from noveval.benchmarks.focus.generate import (
    prediction_row,
    render_review,
    review_request,
    truncation_rule,
)
from noveval.benchmarks.focus.options import FocusOptions, FocusScoreOptions
from noveval.benchmarks.focus.plots import plot_focus
from noveval.benchmarks.focus.protocol import Protocol, get_protocol, select_papers
from noveval.benchmarks.focus.scoring import (
    PER_ITEM_METRICS,
    annotator_consistency,
    bootstrap_kl,
    focus_report,
    per_paper_rows,
)
from noveval.errors import InputError
from noveval.metrics.bootstrap import summarize
from noveval.metrics.consistency import check_samples
from noveval.metrics.focus import DEFAULT_EPSILON
from noveval.models.chat import ChatClientProtocol
from noveval.models.client import run_async
from noveval.prompts import prompt_hashes
from noveval.runs import RunDir, run_items

__all__ = ["SAMPLE", "annotate_into", "checked_protocol", "papers_source", "run_config", "run_focus", "score_run",
           "selected_papers"]

SAMPLE = ("focus", "sample_reviews.jsonl")
"""The shipped sample: 3 invented papers with human reviews (one accepted, two rejected)."""


def _prompt_hashes() -> dict[str, str]:
    names = ["review", "target_strength", "target_weakness", "aspect_strength", "aspect_weakness",
             "expert_extract", "expert_augment", "expert_paraphrase"]
    return prompt_hashes("focus", names)


async def annotate_into(run: Any, client: ChatClientProtocol, points: list[FocusPoint], *, progress: str,
                        samples: int = 1, temperature: float = 0.0, seed: int = 0) -> list[dict]:
    """Annotate points into ``judgments.jsonl`` (resumable) and return all its rows.

    With ``samples > 1`` every prompt is asked N times (seeds ``seed .. seed + N - 1`` at
    ``temperature``) and each label voted (:func:`.annotate.sampled_judgment_row`).
    """
    seeds = annotation_seeds(seed, samples, temperature)

    async def worker(p: FocusPoint) -> dict[str, Any]:
        reqs = [annotation_requests(p, temperature=temperature, seed=s) for s in seeds]
        resps = await client.acomplete_many([r[f] for r in reqs for f in ("target", "aspect")], progress=None)
        if samples == 1:
            return judgment_row(p, resps[0], resps[1], client.model_id, client)
        return sampled_judgment_row(p, resps[0::2], resps[1::2], client.model_id, seeds, client)

    # run_items skips points already annotated and finalizes the file in this order
    return await run_items(run, "judgments", points, worker, id_of=lambda p: p.id,
                           progress=progress, client=client)


def papers_source(o: FocusOptions) -> str | Path:
    """The papers file of a run: ``o.papers``, else the shipped sample."""
    return o.papers if o.papers is not None else sample_file(*SAMPLE)


def checked_protocol(o: FocusOptions) -> tuple[Protocol, str]:
    """The run's protocol and expert route (``split`` or ``chain``).

    Raises:
        InputError: ``options.expert`` other than the paper protocol's chain, or
            ``options.samples`` above 1 at temperature 0 (before anything is read or written).
    """
    proto = get_protocol(o.protocol)
    expert = o.expert or proto.expert
    if proto.name == "paper" and expert != proto.expert:
        raise InputError(None, None, "options.expert", "the paper protocol takes the expert side from the "
                         "meta-review chain (Appendix A.1.1); leave the expert route unset or use the noveval protocol")
    check_samples(o.samples, o.temperature, hint="give the annotator a temperature above 0")
    return proto, expert


def selected_papers(o: FocusOptions, proto: Protocol) -> tuple[list[FocusPaper], dict[str, Any]]:
    """The papers the run uses (the protocol's selection, then ``o.limit``) and the selection's counts.

    Raises:
        InputError: a bad papers file (file, line, field), or no paper qualifies.
    """
    path = papers_source(o)
    # validates before anything is written; rejected-only needs the whole file to count
    loaded = load_papers(path, limit=None if proto.rejected_only else o.limit)
    papers, selection = select_papers(loaded, proto, limit=o.limit)
    if not papers:
        raise InputError(path, None, "accepted", f"no paper qualifies under the {proto.name} protocol "
                         f"({selection['rule']}; {selection['accepted']} accepted)")
    return papers, selection


@dataclass
class _Clients:
    """The reviewing model's and the annotator's clients, and the expert chain's model spec."""

    gen: ChatClientProtocol
    ann: ChatClientProtocol
    ann_spec: str
    expert_spec: str
    kw: dict[str, Any]

    def expert(self) -> ChatClientProtocol:
        """The expert chain's client (the annotator's unless another model was named)."""
        if self.expert_spec in (self.ann_spec, self.ann.model_id):
            return self.ann
        return client_of(self.expert_spec, **self.kw)


def _clients(model: str | ChatClientProtocol, o: FocusOptions) -> _Clients:
    gen = client_of(model, **o.client_kwargs())
    kw = o.client_kwargs(role="judge")  # another annotator / expert model keeps its protocol's settings
    spec = model if isinstance(model, str) else gen.model_id
    annotator = o.annotator or spec
    ann = gen if annotator == spec else client_of(annotator, **kw)
    return _Clients(gen, ann, annotator, o.expert_model or annotator, kw)


def run_config(o: FocusOptions, proto: Protocol, expert: str, papers: list[FocusPaper], selection: dict[str, Any],
               clients: _Clients) -> dict[str, Any]:
    """The ``config.json`` of a run (what decides whether a run folder resumes)."""
    eps = DEFAULT_EPSILON if o.epsilon is None else o.epsilon
    return {
        "benchmark": "focus",
        "protocol": proto.name,
        "protocol_settings": proto.describe(),
        "selection": selection,
        "papers": str(papers_source(o)),
        "paper_ids": [p.id for p in papers],
        "model": clients.gen.model_id,
        "annotator": clients.ann.model_id,
        "expert": expert,
        "expert_model": clients.expert_spec if expert == "chain" else None,
        "expert_max_tokens": o.expert_max_tokens if expert == "chain" else None,
        "max_reviews": o.max_reviews,
        "source": o.source,
        "truncation": truncation_rule(o.max_input_tokens),
        "max_input_tokens": o.max_input_tokens,
        "max_tokens": o.max_tokens,
        "epsilon": eps,
        "seed": o.seed,
        "prompts": _prompt_hashes(),
        # absent at the defaults, so runs made before annotator sampling existed resume unchanged
        **({"annotator_temperature": o.temperature} if o.temperature else {}),
        **({"annotator_samples": o.samples} if o.samples > 1 else {}),
    }


def run_focus(model: str | ChatClientProtocol, out: str | Path, o: FocusOptions) -> dict[str, Any]:
    """Generate, annotate and score into the run folder ``out`` (resumable); returns scores.json's content.

    Expert points (splitter or the A.1.1 chain) -> model reviews (predictions.jsonl) ->
    target/aspect annotation of every human and model point (judgments.jsonl) ->
    :func:`score_run`. With ``o.samples`` above 1 every annotator prompt is asked N times
    (seeds ``seed .. seed + N - 1`` at ``o.temperature``) and each label voted; per-point
    samples and self-consistency go into ``judgments.jsonl``, the mean into ``scores.json``.

    Args:
        model: The reviewing model (spec or client); also the annotator unless
            ``o.annotator`` names another.
        out: Run folder (resumed when its config matches).
        o: The run's options.

    Raises:
        InputError: bad options or papers, before anything is written.
    """
    proto, expert = checked_protocol(o)
    papers, selection = selected_papers(o, proto)
    clients = _clients(model, o)
    run = RunDir.create(out, run_config(o, proto, expert, papers, selection, clients), overwrite=o.overwrite)
    run_async(_generate_and_annotate(run, papers, clients, o, expert=expert), clients.gen, clients.ann)
    return score_run(run.path, FocusScoreOptions(text_metrics=o.text_metrics, plot=o.plot), cache=clients.gen.stats)


async def _expert_points(run: Any, papers: list[FocusPaper], clients: _Clients, o: FocusOptions,
                         expert: str) -> list[FocusPoint]:
    """Step 1: the human side, from the meta-review chain or the reviews' sections."""
    if expert != "chain":
        return [pt for p in papers for pt in points_from_sections(p, max_reviews=o.max_reviews)]

    expert_out = await expert_rows(run, clients.expert(), papers, max_tokens=o.expert_max_tokens)
    human: list[FocusPoint] = []
    for row in expert_out:
        human += points_from_lists(row["id"], "human", row["strengths"], row["weaknesses"])
    return human


async def _generate_and_annotate(run: Any, papers: list[FocusPaper], clients: _Clients, o: FocusOptions, *,
                                 expert: str) -> None:
    human = await _expert_points(run, papers, clients, o, expert)  # 1. expert points
    gen = clients.gen

    async def review(p: FocusPaper) -> dict[str, Any]:  # 2. model reviews
        req, info = review_request(p, source=o.source, max_input_tokens=o.max_input_tokens,
                                   max_tokens=o.max_tokens, seed=o.seed)
        (resp,) = await gen.acomplete_many([req], progress=None)
        return prediction_row(p, resp, info, gen.model_id, gen)

    preds = await run_items(run, "predictions", papers, review, id_of=lambda p: p.id,
                            progress="focus: reviews", client=gen)
    model_points: list[FocusPoint] = []
    for row in preds:
        model_points += points_from_lists(row["id"], "model", row["strengths"], row["weaknesses"])

    # 3. annotation of every point
    await annotate_into(run, clients.ann, human + model_points, progress="focus: annotate", samples=o.samples,
                        temperature=o.temperature, seed=o.seed)


def _expert_texts(run: Any, judgments: list[dict]) -> dict[str, list[str]]:
    """Reference texts: the chain's final review, or each human review's points."""
    expert_rows = run.rows("expert") if run.file("expert").exists() else []
    if expert_rows:
        return {r["id"]: [r.get("review_text") or ""] for r in expert_rows}
    grouped: dict[str, dict[Any, dict[str, list[str]]]] = {}
    for r in judgments:
        if r["source"] != "human":
            continue
        g = grouped.setdefault(r["paper_id"], {}).setdefault(r.get("reviewer"), {"s": [], "w": []})
        g["s" if r["polarity"] == "strength" else "w"].append(r["text"])
    return {
        pid: [render_review("", g["s"], g["w"]) for g in revs.values()]
        for pid, revs in grouped.items()
    }


def score_run(run_dir: str | Path, options: FocusScoreOptions | None = None, *,
              cache: dict[str, Any] | None = None) -> dict[str, Any]:
    """Score a focus run directory from its judgments and predictions (no model calls).

    Writes ``per_item.jsonl``, ``scores.json`` and (``options.plot``) ``focus.png``.

    Args:
        run_dir: The run directory.
        options: Scoring options (None: the defaults): ``protocol`` (scoring rules,
            default the run's, ``noveval`` for runs made before protocols existed;
            another protocol changes only the scoring rules -- matching, overall F1, text
            reference, KL --, the expert route and the paper selection stay the run's,
            and scores.json says so), ``text_metrics``, ``plot``, ``seed`` (bootstrap;
            default the run's). KL smoothing is the run's.
        cache: Cache statistics to record.

    Returns:
        The scores dict (``primary_metric`` is ``kl_mean``, lower is better).

    Raises:
        InputError: No predictions, or a judgments row with an unknown label or
            polarity (file, line, field). A run whose points all failed (no
            judgments) is scored: every paper without points, failures counted.
    """
    o = options or FocusScoreOptions()
    run = RunDir.open(run_dir)
    cfg = run.config
    run_proto = get_protocol(cfg.get("protocol"))
    proto = get_protocol(o.protocol) if o.protocol else run_proto
    seed = int(cfg.get("seed") or 0) if o.seed is None else o.seed
    eps = cfg.get("epsilon", DEFAULT_EPSILON)
    saved = _saved(run)
    weakness_only = saved.weakness_only(proto)
    rows, metrics, consistency = _scored_rows(saved, proto, weakness_only, text_metrics=o.text_metrics, seed=seed)
    metrics["kl_mean"] = saved.kl(proto, eps, seed)
    extra = _extra(saved, cfg, proto, run_proto, consistency, eps=eps, weakness_only=weakness_only)
    if o.plot:
        png = plot_focus(extra["distributions"], run.path / "focus.png",
                         model_label=str(cfg.get("model")), facets=extra["facets"])
        extra["figure"] = png.name
    run.write("per_item", rows)
    scores = BENCHMARK.make_scores(cfg.get("model"), metrics, extra=extra, annotator=cfg.get("annotator"),
                                   protocol=proto.name, cache=cache or {})
    run.write_scores(scores)
    return scores


@dataclass
class _Saved:
    """What a run folder holds for scoring."""

    run: Any
    preds: list[dict[str, Any]]
    judgments: list[dict[str, Any]]
    expert_failed: dict[str, Any]
    paper_ids: list[str]
    human: list[dict[str, Any]]
    model: list[dict[str, Any]]

    def weakness_only(self, proto: Protocol) -> bool:
        """Score weaknesses only: the protocol says so when the model wrote no strength in the whole run."""
        in_run = set(self.paper_ids)
        return proto.weakness_only_if_no_strengths and not any(
            r["polarity"] == "strength" and r["paper_id"] in in_run for r in self.model)

    def kl(self, proto: Protocol, eps: float, seed: int) -> dict[str, Any]:
        """``kl_mean`` with its bootstrap CI over papers."""
        return bootstrap_kl(self.human, self.model, self.paper_ids, epsilon=eps, present_only=proto.kl_present_only,
                            seed=seed)


def _saved(run: Any) -> _Saved:
    """Read the run's predictions, judgments and expert rows (papers whose chain gave no point are left out)."""
    preds = run.rows("predictions")
    judgments = read_judgments(run.file("judgments")) if run.file("judgments").exists() else []
    if not preds:
        raise InputError(run.path, None, None, "run has no predictions to score")
    expert_rows = run.rows("expert") if run.file("expert").exists() else []
    expert_failed = {r["id"]: r.get("error") or r.get("parse_error") for r in expert_rows
                     if (r.get("error") or r.get("parse_error")) and not (r.get("strengths") or r.get("weaknesses"))}
    paper_ids = [r["id"] for r in preds if r["id"] not in expert_failed]
    human = [r for r in judgments if r["source"] == "human"]
    model = [r for r in judgments if r["source"] != "human"]
    return _Saved(run, preds, judgments, expert_failed, paper_ids, human, model)


def _scored_rows(saved: _Saved, proto: Protocol, weakness_only: bool, *, text_metrics: bool,
                 seed: int) -> tuple[list[dict[str, Any]], dict[str, Any], Any]:
    """Per-paper rows, their bootstrap summaries, and the annotator's self-consistency (None: one sample)."""
    rows = per_paper_rows(
        saved.paper_ids, saved.human, saved.model,
        model_texts={r["id"]: r.get("review_text", "") for r in saved.preds},
        expert_texts=_expert_texts(saved.run, saved.judgments),
        text_metrics=text_metrics,
        matching=proto.matching,
        text_reference=proto.text_reference,
        weakness_only=weakness_only,
    )
    consistency = annotator_consistency(saved.paper_ids, saved.judgments)  # annotator samples (issue 18)
    if consistency is not None:
        for r in rows:
            r["self_consistency"] = consistency[0].get(r["id"])
    metrics = summarize(rows, [*PER_ITEM_METRICS, *(["self_consistency"] if consistency else [])], seed=seed)
    return rows, metrics, consistency


def _extra(saved: _Saved, cfg: dict[str, Any], proto: Protocol, run_proto: Protocol, consistency: Any, *,
           eps: float, weakness_only: bool) -> dict[str, Any]:
    """scores.json's ``extra``: Figure-4 data, protocol, selection, failures, truncation, notes."""
    preds = saved.preds
    extra = focus_report(saved.paper_ids, saved.human, saved.model, epsilon=eps, present_only=proto.kl_present_only,
                         binary=proto.matching == "set")
    extra["protocol"] = proto.describe()
    if proto.name != run_proto.name:
        extra["protocol"]["note"] = (
            f"scored with the {proto.name} protocol's scoring rules; the run itself followed "
            f"the {run_proto.name} protocol (expert={cfg.get('expert')}, "
            f"papers: {(cfg.get('selection') or {}).get('rule', 'all papers')})")
    extra["protocol"]["expert_used"] = cfg.get("expert")
    extra["selection"] = cfg.get("selection") or {"rule": "all papers", "used": len(preds)}
    extra["weakness_only"] = weakness_only
    extra["expert_failures"] = {"n": len(saved.expert_failed), "papers": saved.expert_failed,
                                "rule": "papers whose expert chain gave no point are not scored"}
    extra["truncation"] = {
        "rule": cfg.get("truncation"),
        "truncated": sum(1 for r in preds if (r.get("truncation") or {}).get("truncated")),
    }
    if consistency is not None:
        extra["self_consistency"] = {**consistency[1], "temperature": cfg.get("annotator_temperature")}
    extra["generation_failures"] = sum(1 for r in preds if r.get("error"))
    extra["generation_unparsed"] = sum(1 for r in preds if r.get("parse_error"))
    ref = "mean over" if proto.text_reference == "mean" else "best over"
    extra["text_metrics_note"] = (
        "ROUGE-L (rouge_score, stemmed), BLEU-4 (sacrebleu sentence BLEU /100), BERTScore F1 "
        f"(bundled all-MiniLM-L6-v2, layer 6, no baseline rescaling); {ref} expert references"
    )
    return extra
