"""CLI of NovBench beyond the generated ``noveval run novbench``: ``noveval score novbench``
(predictions made anywhere, several at once as a table) and ``noveval novbench ...`` (the
dataset-construction stages and the human agreement). Nothing heavy is imported at module
level; each command imports what it needs.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from noveval.benchmarks.novbench.options import (
    AgreementCommand,
    ExtractDescriptionsCommand,
    ExtractEvaluationsCommand,
    NovBenchScoreCommand,
    NovBenchScoreOptions,
    StructureCommand,
)
from noveval.cli.common import cli_errors, make_client, print_cache_summary
from noveval.cli.generate import options_command
from noveval.cli.outcome import model_command, run_command
from noveval.models.client import run_async
from noveval.options import narrow

if TYPE_CHECKING:
    from noveval.models.chat import ChatClientProtocol

app = typer.Typer(help="NovBench (Wu et al.): dataset-construction stages and human agreement.")


def _echo_scores(label: str, metrics: dict) -> None:
    """One line of means and CIs, on stderr (stdout is the summary, or scores.json with --json)."""
    parts = []
    for k, m in metrics.items():
        if m.get("mean") is None:
            continue
        parts.append(f"{k} {m['mean']:.4f} [{m['ci_low']:.4f}, {m['ci_high']:.4f}]")
    typer.echo(f"{label}: " + "; ".join(parts), err=True)


def _write_classified(client: ChatClientProtocol, rows: list[dict[str, Any]], out: Path, about: dict[str, Any]) -> None:
    """Write a Yes/No stage's rows to ``out`` and ``about`` + metrics beside it; print the summary."""
    from noveval.benchmarks.novbench.pipeline import classification_metrics
    from noveval.io import write_json, write_jsonl

    m = classification_metrics(rows)
    write_jsonl(out, rows)
    write_json(out.with_suffix(".metrics.json"), {**about, "metrics": m})
    print_cache_summary(client)
    typer.echo(f"{len(rows)} sentences -> {out}; {sum(r['pred'] for r in rows)} predicted novelty")
    if m:
        typer.echo(f"accuracy {m['accuracy']:.4f}  macro-F1 {m['macro_f1']:.4f}  (n={m['n']}, unparsed {m['n_unparsed']})")


def _client(o: Any) -> Any:
    return make_client(o.model, no_cache=o.no_cache, refresh=o.refresh, concurrency=o.concurrency)


@run_command
@options_command(NovBenchScoreCommand)
def score(o: NovBenchScoreCommand) -> list[Path]:
    """Score NovBench predictions: Relevance, Coverage, Clarity, DistAcc (+ Human row)."""
    from noveval.benchmarks.novbench.analyses import render_table
    from noveval.benchmarks.novbench.contract import score_predictions
    from noveval.errors import InputError

    if o.out is not None and len(o.predictions) > 1:
        raise InputError(None, None, "--out", "--out works with a single predictions input")
    scoring = narrow(o, NovBenchScoreOptions)
    results = [score_predictions(p, scoring, out=o.out) for p in o.predictions]
    _echo_scores("Human (the gold evaluations scored as predictions)", results[0]["extra"]["human"])
    if len(results) > 1:
        typer.echo(render_table(results, clarity="reference" if o.clarity == "reference" else "paper"))
    return [Path(o.out) if o.out else (p if p.is_dir() else p.parent) for p in o.predictions]


@app.command("extract-descriptions")
@model_command
@options_command(ExtractDescriptionsCommand)
def extract_descriptions(o: ExtractDescriptionsCommand) -> None:
    """Stage 1: classify introduction sentences as novelty descriptions (Yes/No)."""
    from noveval.benchmarks.novbench.data import load_intro_sentences
    from noveval.benchmarks.novbench.pipeline import aextract_descriptions

    sents = load_intro_sentences(o.input)
    if o.papers:
        keep = set(list(dict.fromkeys(s.paper_id for s in sents))[:o.papers])
        sents = [s for s in sents if s.paper_id in keep]
    if o.limit:
        sents = sents[:o.limit]
    client = _client(o)
    rows = run_async(aextract_descriptions(client, sents, strategy=o.strategy, constrained=o.constrained, seed=o.seed),
                     client)
    _write_classified(client, rows, o.out, {"strategy": o.strategy, "model": client.model_id, "input": str(o.input)})


@app.command("extract-evaluations")
@model_command
@options_command(ExtractEvaluationsCommand)
def extract_evaluations(o: ExtractEvaluationsCommand) -> None:
    """Stage 2: classify review sentences as novelty evaluations (Yes/No)."""
    import random

    from noveval.benchmarks.novbench.data import load_review_sentences, load_sentence_pool
    from noveval.benchmarks.novbench.pipeline import aextract_evaluations
    from noveval.errors import InputError

    if o.strategy == "rag" and o.pool is None:
        raise InputError(None, None, "--pool", "the rag strategy needs --pool")
    sents = load_review_sentences(*o.input)
    if o.sample and o.sample < len(sents):
        sents = random.Random(o.seed).sample(sents, o.sample)
    if o.limit:
        sents = sents[:o.limit]
    pool_sents = load_sentence_pool(o.pool) if o.pool else None
    emb = None
    if o.strategy == "rag":
        from noveval.models import get_embedder

        emb = get_embedder(o.embedder)
    client = _client(o)
    rows = run_async(
        aextract_evaluations(client, sents, strategy=o.strategy, pool=pool_sents, embedder=emb, k=o.k,
                             constrained=o.constrained, seed=o.seed),
        client,
    )
    _write_classified(client, rows, o.out,
                      {"strategy": o.strategy, "model": client.model_id, "inputs": [str(p) for p in o.input]})


@app.command("structure")
@model_command
@options_command(StructureCommand)
def structure(o: StructureCommand) -> None:
    """Stage 3: deduplicate novelty comments and sort them by sentiment (Appendix C)."""
    from noveval.benchmarks.novbench.analyses import load_comments
    from noveval.benchmarks.novbench.evaluation_text import format_evaluation
    from noveval.benchmarks.novbench.pipeline import astructure
    from noveval.io import write_jsonl

    comments = load_comments(o.input)
    if o.limit:
        comments = dict(list(comments.items())[:o.limit])
    client = _client(o)
    res = run_async(astructure(client, comments, max_tokens=o.max_tokens, seed=o.seed), client)
    rows = [{"id": i, "output_format": format_evaluation(ev), "counts": ev.counts(), "raw": raw, "error": err}
            for i, (ev, raw, err) in res.items()]
    write_jsonl(o.out, rows)
    print_cache_summary(client)
    typer.echo(f"{len(rows)} structured evaluations -> {o.out}")


@app.command("agreement")
@cli_errors
@options_command(AgreementCommand)
def agreement(o: AgreementCommand) -> None:
    """Human agreement (Appendix D): Fleiss' κ, majority-vote agreement, Spearman ρ."""
    import json

    from noveval.benchmarks.novbench.agreement import agreement_report, load_preferences
    from noveval.io import write_json

    rep = agreement_report(load_preferences(o.input, metric_field=o.metric_field))
    if o.out:
        write_json(o.out, rep)
    typer.echo(json.dumps(rep, indent=2))
