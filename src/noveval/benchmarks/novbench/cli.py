"""CLI of NovBench beyond the generated ``noveval run novbench``: ``noveval score novbench``
(predictions made anywhere, several at once as a table) and ``noveval novbench ...`` (the
dataset-construction stages and the human agreement). Nothing heavy is imported at module
level; each command imports what it needs.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from noveval.benchmarks.novbench.options import NovBenchScoreOptions
from noveval.cli.common import cli_errors, make_client, print_cache_summary
from noveval.cli.options import (
    ConcurrencyOpt,
    EmbedderOpt,
    LimitOpt,
    ModelOpt,
    NoCacheOpt,
    RefreshOpt,
    SeedOpt,
)
from noveval.cli.outcome import model_command, run_command
from noveval.models.client import run_async
from noveval.options import flags_of

if TYPE_CHECKING:
    from noveval.models.chat import ChatClientProtocol

app = typer.Typer(help="NovBench (Wu et al.): dataset-construction stages and human agreement.")

MaxTokensOpt = Annotated[int, typer.Option("--max-tokens", min=1, help="Max new tokens per reply.")]
ConstrainedOpt = Annotated[
    bool, typer.Option("--constrained", help='Ask for {"answer": "Yes"|"No"} under a JSON schema.')
]


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


def _help(name: str) -> str:
    """The help of a scoring option (declared once, on :class:`NovBenchScoreOptions`)."""
    return NovBenchScoreOptions.model_fields[name].description or ""


def _flags(name: str) -> list[str]:
    return flags_of(NovBenchScoreOptions, name)


_DEFAULT = NovBenchScoreOptions()  # the CLI's defaults are the options' own


@run_command
def score(
    predictions: Annotated[
        list[Path] | None,
        typer.Argument(help="Run directories or predictions JSONL files (several: a table).", show_default=False),
    ] = None,
    predictions_opt: Annotated[
        list[Path] | None,
        typer.Option("--predictions", "-r", hidden=True, help="Old spelling of PREDICTIONS (repeatable)."),
    ] = None,
    data: Annotated[Path | None, typer.Option(*_flags("data"), help=_help("data"))] = None,
    embedder: EmbedderOpt = _DEFAULT.embedder,
    relevance_embedder: Annotated[str | None, typer.Option(*_flags("relevance_embedder"), help=_help("relevance_embedder"))] = None,
    ppl_model: Annotated[str | None, typer.Option(*_flags("ppl_model"), help=_help("ppl_model"))] = None,
    clarity: Annotated[str, typer.Option(*_flags("clarity"), help=_help("clarity"))] = _DEFAULT.clarity,
    tau: Annotated[float, typer.Option(*_flags("tau"), help=_help("tau"))] = _DEFAULT.tau,
    placeholders: Annotated[str, typer.Option(*_flags("placeholders"), help=_help("placeholders"))] = _DEFAULT.placeholders,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Where to write (single input only; default: next to it).")
    ] = None,
    seed: Annotated[int | None, typer.Option(*_flags("seed"), help=_help("seed"))] = None,
) -> list[Path]:
    """Score NovBench predictions: Relevance, Coverage, Clarity, DistAcc (+ Human row)."""
    from noveval.benchmarks.novbench.analyses import render_table
    from noveval.benchmarks.novbench.contract import score_predictions
    from noveval.cli.generate import flag_errors
    from noveval.cli.options import positional_or_alias
    from noveval.errors import InputError
    from noveval.options import as_options

    predictions = positional_or_alias(predictions, predictions_opt, what="predictions", alias_name="--predictions")
    if out is not None and len(predictions) > 1:
        raise InputError(None, None, "--out", "--out works with a single predictions input")
    results = []
    with flag_errors(NovBenchScoreOptions, {"out": "--out"}):
        o = as_options(NovBenchScoreOptions, {
            "data": data, "embedder": embedder, "relevance_embedder": relevance_embedder, "ppl_model": ppl_model,
            "clarity": clarity, "tau": tau, "placeholders": placeholders, "seed": seed})
        for p in predictions:
            results.append(score_predictions(p, o, out=out))
    _echo_scores("Human (the gold evaluations scored as predictions)", results[0]["extra"]["human"])
    if len(results) > 1:
        typer.echo(render_table(results, clarity="reference" if o.clarity == "reference" else "paper"))
    return [Path(out) if out else (p if p.is_dir() else p.parent) for p in predictions]


@app.command("extract-descriptions")
@model_command
def extract_descriptions(
    input: Annotated[Path, typer.Option("--input", "-i", help="CSV paper_id,sentence[,label].")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output JSONL of per-sentence predictions.")],
    strategy: Annotated[
        str, typer.Option("--strategy", "-s", help="zero-shot | few-shot | step-by-step | context (Appendix A).")
    ] = "context",
    model: ModelOpt = "local",
    limit: LimitOpt = None,
    papers: Annotated[
        int | None, typer.Option("--papers", min=1, help="Use only the first N papers (keeps contexts whole).")
    ] = None,
    constrained: ConstrainedOpt = False,
    concurrency: ConcurrencyOpt = None,
    no_cache: NoCacheOpt = False,
    refresh: RefreshOpt = False,
    seed: SeedOpt = 0,
) -> None:
    """Stage 1: classify introduction sentences as novelty descriptions (Yes/No)."""

    from noveval.benchmarks.novbench.data import load_intro_sentences
    from noveval.benchmarks.novbench.pipeline import (
        DESCRIPTION_STRATEGIES,
        aextract_descriptions,
    )
    from noveval.errors import InputError

    if strategy not in DESCRIPTION_STRATEGIES:
        raise InputError(None, None, "--strategy", f"must be one of {', '.join(DESCRIPTION_STRATEGIES)}")
    sents = load_intro_sentences(input)
    if papers:
        keep = list(dict.fromkeys(s.paper_id for s in sents))[:papers]
        sents = [s for s in sents if s.paper_id in set(keep)]
    if limit:
        sents = sents[:limit]
    client = make_client(model, no_cache=no_cache, refresh=refresh, concurrency=concurrency)
    rows = run_async(
        aextract_descriptions(client, sents, strategy=strategy, constrained=constrained, seed=seed),  # type: ignore[arg-type]
        client,
    )
    _write_classified(client, rows, out, {"strategy": strategy, "model": client.model_id, "input": str(input)})


@app.command("extract-evaluations")
@model_command
def extract_evaluations(
    input: Annotated[
        list[Path],
        typer.Option("--input", "-i", help="Review sentences: [sentence, NOVELTY] JSON, {text, labels} JSON, CSV/JSONL sentence[,label]. Repeatable."),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output JSONL of per-sentence predictions.")],
    strategy: Annotated[str, typer.Option("--strategy", "-s", help="zero-shot | rag (Appendix B).")] = "zero-shot",
    pool: Annotated[
        Path | None, typer.Option("--pool", help="Labelled novelty sentences for rag (e.g. reviewadvisor-novelty-sentences.json.gz).")
    ] = None,
    k: Annotated[int, typer.Option("--k", min=1, help="Examples retrieved per sentence (rag).")] = 5,
    model: ModelOpt = "local",
    embedder: EmbedderOpt = "local",
    limit: LimitOpt = None,
    sample: Annotated[
        int | None, typer.Option("--sample", min=1, help="Random sample of N sentences (seeded), instead of the first N.")
    ] = None,
    constrained: ConstrainedOpt = False,
    concurrency: ConcurrencyOpt = None,
    no_cache: NoCacheOpt = False,
    refresh: RefreshOpt = False,
    seed: SeedOpt = 0,
) -> None:
    """Stage 2: classify review sentences as novelty evaluations (Yes/No)."""
    import random

    from noveval.benchmarks.novbench.data import load_review_sentences, load_sentence_pool
    from noveval.benchmarks.novbench.pipeline import (
        EVALUATION_STRATEGIES,
        aextract_evaluations,
    )
    from noveval.errors import InputError

    if strategy not in EVALUATION_STRATEGIES:
        raise InputError(None, None, "--strategy", f"must be one of {', '.join(EVALUATION_STRATEGIES)}")
    if strategy == "rag" and pool is None:
        raise InputError(None, None, "--pool", "the rag strategy needs --pool")
    sents = load_review_sentences(*input)
    if sample and sample < len(sents):
        sents = random.Random(seed).sample(sents, sample)
    if limit:
        sents = sents[:limit]
    pool_sents = load_sentence_pool(pool) if pool else None
    emb = None
    if strategy == "rag":
        from noveval.models import get_embedder

        emb = get_embedder(embedder)
    client = make_client(model, no_cache=no_cache, refresh=refresh, concurrency=concurrency)
    rows = run_async(
        aextract_evaluations(
            client, sents, strategy=strategy, pool=pool_sents, embedder=emb, k=k,  # type: ignore[arg-type]
            constrained=constrained, seed=seed,
        ),
        client,
    )
    _write_classified(client, rows, out,
                      {"strategy": strategy, "model": client.model_id, "inputs": [str(p) for p in input]})


@app.command("structure")
@model_command
def structure(
    input: Annotated[
        Path, typer.Option("--input", "-i", help="NovBench records (uses review_novelty) or JSONL {id, comments: [...]}.")
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output JSONL {id, output_format, counts}.")],
    model: ModelOpt = "local",
    limit: LimitOpt = None,
    max_tokens: MaxTokensOpt = 768,
    concurrency: ConcurrencyOpt = None,
    no_cache: NoCacheOpt = False,
    refresh: RefreshOpt = False,
    seed: SeedOpt = 0,
) -> None:
    """Stage 3: deduplicate novelty comments and sort them by sentiment (Appendix C)."""

    from noveval.benchmarks.novbench.analyses import load_comments
    from noveval.benchmarks.novbench.evaluation_text import format_evaluation
    from noveval.benchmarks.novbench.pipeline import astructure
    from noveval.io import write_jsonl

    comments = load_comments(input)
    if limit:
        comments = dict(list(comments.items())[:limit])
    client = make_client(model, no_cache=no_cache, refresh=refresh, concurrency=concurrency)
    res = run_async(astructure(client, comments, max_tokens=max_tokens, seed=seed), client)
    rows = [
        {
            "id": i,
            "output_format": format_evaluation(ev),
            "counts": ev.counts(),
            "raw": raw,
            "error": err,
        }
        for i, (ev, raw, err) in res.items()
    ]
    write_jsonl(out, rows)
    print_cache_summary(client)
    typer.echo(f"{len(rows)} structured evaluations -> {out}")


@app.command("agreement")
@cli_errors
def agreement(
    input: Annotated[
        Path,
        typer.Option("--input", "-i", help="JSON/JSONL rows {id, annotators: [A|B|tie, ...], metric: A|B|tie} or {..., metric_a, metric_b}."),
    ],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write the result JSON here.")] = None,
    metric_field: Annotated[
        str, typer.Option("--metric-field", help="Per-row metric field holding the metric's score difference or choice.")
    ] = "metric",
) -> None:
    """Human agreement (Appendix D): Fleiss' κ, majority-vote agreement, Spearman ρ."""
    import json

    from noveval.benchmarks.novbench.agreement import agreement_report, load_preferences
    from noveval.io import write_json

    rows = load_preferences(input, metric_field=metric_field)
    rep = agreement_report(rows)
    if out:
        write_json(out, rep)
    typer.echo(json.dumps(rep, indent=2))
