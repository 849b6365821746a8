"""End-to-end focus-level evaluation in a run directory ("Mind the Blind Spots", Fig. 2).

``run_focus``: papers -> expert points (splitter or A.1.1 chain) -> model reviews
(predictions.jsonl) -> target/aspect annotation of every human and model point
(judgments.jsonl) -> :func:`score_run`. ``score_run``: judgments + predictions ->
per_item.jsonl, scores.json (bootstrap CIs, Figure-4 data in ``extra``) and
``focus.png``. Every step is resumable: finished rows are skipped on re-run and
model calls go through the client's cache.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from noveval.benchmarks.focus.data import (
    FocusPaper,
    FocusPoint,
    load_papers,
    points_from_lists,
    points_from_sections,
)
from noveval.benchmarks.focus.generate import (
    DEFAULT_MAX_INPUT_TOKENS,
    DEFAULT_MAX_TOKENS,
    prediction_row,
    review_request,
    truncation_rule,
)
from noveval.errors import InputError
from noveval.metrics.focus import DEFAULT_EPSILON
from noveval.models.chat import ChatClientProtocol
from noveval.models.client import run_async

__all__ = ["annotate_into", "run_focus", "score_run"]


def _prompt_hashes() -> dict[str, str]:
    from noveval.prompts import prompt_hashes

    names = ["review", "target_strength", "target_weakness", "aspect_strength", "aspect_weakness",
             "expert_extract", "expert_augment", "expert_paraphrase"]
    return prompt_hashes("focus", names)


async def annotate_into(run: Any, client: ChatClientProtocol, points: list[FocusPoint], *, progress: str,
                        samples: int = 1, temperature: float = 0.0, seed: int = 0) -> list[dict]:
    """Annotate points into ``judgments.jsonl`` (resumable) and return all its rows.

    With ``samples > 1`` every prompt is asked N times (seeds ``seed .. seed + N - 1`` at
    ``temperature``) and each label voted (:func:`.annotate.sampled_judgment_row`).
    """
    from noveval.benchmarks.focus.annotate import (
        annotation_requests,
        annotation_seeds,
        judgment_row,
        sampled_judgment_row,
    )
    from noveval.runs import run_items

    seeds = annotation_seeds(seed, samples, temperature)

    async def worker(p: FocusPoint) -> dict[str, Any]:
        reqs = [annotation_requests(p, temperature=temperature, seed=s) for s in seeds]
        resps = await client.acomplete_many([r[f] for r in reqs for f in ("target", "aspect")], progress=None)
        if samples == 1:
            return judgment_row(p, resps[0], resps[1], client.model_id)
        return sampled_judgment_row(p, resps[0::2], resps[1::2], client.model_id, seeds)

    # run_items skips points already annotated and finalizes the file in this order
    return await run_items(run, "judgments", points, worker, id_of=lambda p: p.id,
                           progress=progress, client=client)


def run_focus(
    papers_path: str | Path,
    out_dir: str | Path,
    *,
    model: str = "local",
    annotator: str | None = None,
    protocol: str = "noveval",
    expert: str | None = None,
    expert_model: str | None = None,
    expert_max_tokens: int = 1200,
    source: str = "abstract",
    limit: int | None = None,
    max_reviews: int | None = None,
    max_input_tokens: int = DEFAULT_MAX_INPUT_TOKENS,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    epsilon: float = DEFAULT_EPSILON,
    seed: int = 0,
    concurrency: int | None = None,
    timeout_s: float = 600.0,
    cache: bool = True,
    refresh: bool = False,
    overwrite: bool = False,
    text_metrics: bool = True,
    plot: bool = True,
    temperature: float = 0.0,
    samples: int = 1,
) -> dict[str, Any]:
    """Generate, annotate and score; returns scores.json's content.

    Args:
        papers_path: Papers with reviews (see :mod:`.data`).
        out_dir: Run directory (resumed when its config matches).
        model: Spec of the reviewing model.
        annotator: Spec of the annotator (default: same as ``model``).
        protocol: ``"noveval"`` (default) or ``"paper"`` (Shin et al.'s choices; see
            :mod:`.protocol`): expert route, paper selection and scoring rules.
        expert: ``"split"`` (deterministic splitter) or ``"chain"`` (Appendix A.1.1);
            default: the protocol's. The paper protocol needs ``"chain"``.
        expert_model: Model of the expert chain (default: the annotator).
        expert_max_tokens: Output budget of each step of the expert chain.
        source: ``"abstract"`` or ``"fulltext"`` input for the reviewing model.
        limit: First N papers only.
        max_reviews: Split route: use only the first N reviews of each paper.
        max_input_tokens: Truncation budget of the paper text (rule in config).
        max_tokens: Output budget of a generated review.
        epsilon: KL smoothing (see :mod:`noveval.metrics.focus`).
        seed: Generation seed and bootstrap seed.
        concurrency: Max requests in flight.
        timeout_s: Per-attempt timeout of a model call (a long chain step of a small
            local model on a busy CPU needs minutes).
        cache: Use the response cache.
        refresh: Ignore cached responses.
        overwrite: Replace a run with other settings.
        text_metrics: Compute ROUGE-L / BLEU-4 / BERTScore.
        plot: Save ``focus.png``.
        temperature: The annotator's sampling temperature (0: greedy; the reviews and
            the expert chain stay at 0).
        samples: Ask the annotator each target/aspect prompt this many times (seeds
            ``seed .. seed + N - 1``, ``temperature`` above 0) and take each label by
            plurality vote; per-point samples and self-consistency go into
            ``judgments.jsonl``, the mean into ``scores.json`` (issue 18).

    Raises:
        InputError: bad options (``samples`` above 1 at temperature 0 among them) or
            papers, before anything is written.
    """
    from noveval.benchmarks.focus.protocol import get_protocol, select_papers
    from noveval.metrics.consistency import check_samples
    from noveval.models.client import get_client
    from noveval.runs import RunDir

    proto = get_protocol(protocol)
    expert = expert or proto.expert
    if expert not in ("split", "chain"):
        raise InputError(None, None, "expert", f"expected 'split' or 'chain', got {expert!r}")
    if proto.name == "paper" and expert != proto.expert:
        raise InputError(None, None, "expert", "--protocol paper takes the expert side from the "
                         "meta-review chain (Appendix A.1.1); drop --expert or use --protocol noveval")
    if source not in ("abstract", "fulltext"):
        raise InputError(None, None, "source", f"expected 'abstract' or 'fulltext', got {source!r}")
    if not 0.0 <= temperature <= 2.0:
        raise InputError(None, None, "--temperature", f"must be in [0, 2], got {temperature}")
    check_samples(samples, temperature, hint="give --temperature above 0 (the annotator's)")
    # validates before anything is written; rejected-only needs the whole file to count
    loaded = load_papers(papers_path, limit=None if proto.rejected_only else limit)
    papers, selection = select_papers(loaded, proto, limit=limit)
    if not papers:
        raise InputError(papers_path, None, "accepted", f"no paper qualifies under --protocol "
                         f"{proto.name} ({selection['rule']}; {selection['accepted']} accepted)")
    annotator = annotator or model
    kw: dict[str, Any] = {"cache": "default" if cache else None, "refresh": refresh, "concurrency": concurrency,
                          "timeout_s": timeout_s}
    gen_client = get_client(model, **kw)
    ann_client = gen_client if annotator == model else get_client(annotator, **kw)
    config = {
        "benchmark": "focus",
        "protocol": proto.name,
        "protocol_settings": proto.describe(),
        "selection": selection,
        "papers": str(papers_path),
        "paper_ids": [p.id for p in papers],
        "model": gen_client.model_id,
        "annotator": ann_client.model_id,
        "expert": expert,
        "expert_model": expert_model or annotator if expert == "chain" else None,
        "expert_max_tokens": expert_max_tokens if expert == "chain" else None,
        "max_reviews": max_reviews,
        "source": source,
        "truncation": truncation_rule(max_input_tokens),
        "max_input_tokens": max_input_tokens,
        "max_tokens": max_tokens,
        "epsilon": epsilon,
        "seed": seed,
        "prompts": _prompt_hashes(),
        # absent at the defaults, so runs made before --samples existed resume unchanged
        **({"annotator_temperature": temperature} if temperature else {}),
        **({"annotator_samples": samples} if samples > 1 else {}),
    }
    run = RunDir.create(out_dir, config, overwrite=overwrite)
    run_async(
        _generate_and_annotate(
            run, papers, gen_client, ann_client,
            expert=expert, expert_model=expert_model or annotator,
            expert_max_tokens=expert_max_tokens, max_reviews=max_reviews,
            source=source, max_input_tokens=max_input_tokens, max_tokens=max_tokens,
            seed=seed, kw=kw, samples=samples, temperature=temperature,
        ),
        gen_client, ann_client,
    )
    return score_run(run.path, epsilon=epsilon, seed=seed, text_metrics=text_metrics, plot=plot,
                     cache=gen_client.stats)


async def _generate_and_annotate(
    run: Any, papers: list[FocusPaper], gen_client: ChatClientProtocol, ann_client: ChatClientProtocol, *, expert: str,
    expert_model: str, expert_max_tokens: int, max_reviews: int | None, source: str, max_input_tokens: int,
    max_tokens: int, seed: int, kw: dict[str, Any], samples: int = 1, temperature: float = 0.0,
) -> None:
    from noveval.runs import run_items

    # 1. expert points
    if expert == "chain":
        from noveval.benchmarks.focus.expert import expert_rows
        from noveval.models.client import get_client

        ex_client = ann_client if expert_model == ann_client.model_id else get_client(expert_model, **kw)
        expert_out = await expert_rows(run, ex_client, papers, max_tokens=expert_max_tokens)
        human: list[FocusPoint] = []
        for row in expert_out:
            human += points_from_lists(row["id"], "human", row["strengths"], row["weaknesses"])
    else:
        human = [pt for p in papers for pt in points_from_sections(p, max_reviews=max_reviews)]

    # 2. model reviews
    async def review(p: FocusPaper) -> dict[str, Any]:
        req, info = review_request(p, source=source, max_input_tokens=max_input_tokens,
                                   max_tokens=max_tokens, seed=seed)
        (resp,) = await gen_client.acomplete_many([req], progress=None)
        return prediction_row(p, resp, info, gen_client.model_id)

    preds = await run_items(run, "predictions", papers, review, id_of=lambda p: p.id,
                            progress="focus: reviews", client=gen_client)
    model_points: list[FocusPoint] = []
    for row in preds:
        model_points += points_from_lists(row["id"], "model", row["strengths"], row["weaknesses"])

    # 3. annotation of every point
    await annotate_into(run, ann_client, human + model_points, progress="focus: annotate", samples=samples,
                        temperature=temperature, seed=seed)


def _expert_texts(run: Any, judgments: list[dict]) -> dict[str, list[str]]:
    """Reference texts: the chain's final review, or each human review's points."""
    from noveval.benchmarks.focus.generate import render_review

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


def score_run(
    run_dir: str | Path,
    *,
    protocol: str | None = None,
    epsilon: float | None = None,
    seed: int = 0,
    text_metrics: bool = True,
    plot: bool = True,
    cache: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Score a focus run directory from its judgments and predictions (no model calls).

    Writes ``per_item.jsonl``, ``scores.json`` and (``plot``) ``focus.png``.

    Args:
        run_dir: The run directory.
        protocol: Scoring rules, ``"paper"`` or ``"noveval"``; default: the run's
            protocol (``"noveval"`` for runs made before protocols existed). Scoring a
            run under another protocol changes only the scoring rules (matching,
            overall F1, text reference, KL); the expert route and the paper selection
            are the run's, and scores.json says so.
        epsilon: KL smoothing (default: the run's).
        seed: Bootstrap seed.
        text_metrics: Compute ROUGE-L / BLEU-4 / BERTScore.
        plot: Save ``focus.png``.
        cache: Cache statistics to record.

    Returns:
        The scores dict (``primary_metric`` is ``kl_mean``, lower is better).

    Raises:
        InputError: No predictions, or a judgments row with an unknown label or
            polarity (file, line, field). A run whose points all failed (no
            judgments) is scored: every paper without points, failures counted.
    """
    from noveval.benchmarks.focus.data import read_judgments
    from noveval.benchmarks.focus.protocol import get_protocol
    from noveval.benchmarks.focus.score import (
        PER_ITEM_METRICS,
        annotator_consistency,
        bootstrap_kl,
        focus_report,
        per_paper_rows,
    )
    from noveval.metrics.bootstrap import summarize
    from noveval.runs import RunDir

    run = RunDir.open(run_dir)
    cfg = run.config
    run_proto = get_protocol(cfg.get("protocol"))
    proto = get_protocol(protocol) if protocol else run_proto
    eps = cfg.get("epsilon", DEFAULT_EPSILON) if epsilon is None else epsilon
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
    in_run = set(paper_ids)
    weakness_only = proto.weakness_only_if_no_strengths and not any(
        r["polarity"] == "strength" and r["paper_id"] in in_run for r in model)
    rows = per_paper_rows(
        paper_ids, human, model,
        model_texts={r["id"]: r.get("review_text", "") for r in preds},
        expert_texts=_expert_texts(run, judgments),
        text_metrics=text_metrics,
        matching=proto.matching,
        text_reference=proto.text_reference,
        weakness_only=weakness_only,
    )
    consistency = annotator_consistency(paper_ids, judgments)  # --samples N (issue 18)
    if consistency is not None:
        for r in rows:
            r["self_consistency"] = consistency[0].get(r["id"])
    metrics = summarize(rows, [*PER_ITEM_METRICS, *(["self_consistency"] if consistency else [])], seed=seed)
    kl = bootstrap_kl(human, model, paper_ids, epsilon=eps, present_only=proto.kl_present_only, seed=seed)
    metrics["kl_mean"] = kl
    extra = focus_report(paper_ids, human, model, epsilon=eps, present_only=proto.kl_present_only,
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
    extra["expert_failures"] = {"n": len(expert_failed), "papers": expert_failed,
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
    if plot:
        from noveval.benchmarks.focus.plots import plot_focus

        png = plot_focus(extra["distributions"], run.path / "focus.png",
                         model_label=str(cfg.get("model")), facets=extra["facets"])
        extra["figure"] = png.name
    run.write("per_item", rows)
    scores = {
        "benchmark": "focus",
        "model": cfg.get("model"),
        "annotator": cfg.get("annotator"),
        "protocol": proto.name,
        "metrics": metrics,
        "primary_metric": "kl_mean",
        "greater_is_better": False,
        "cache": cache or {},
        "extra": extra,
    }
    run.write_scores(scores)
    return scores
