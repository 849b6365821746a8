"""CLI of the validity study: ``noveval validate run|score|ceiling`` (also ``noveval run/score validate``).
Nothing heavy is imported at module level."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from noveval.cli.common import cli_errors
from noveval.cli.options import (
    ConcurrencyOpt,
    DataDirOpt,
    EmbedderOpt,
    LimitOpt,
    NoCacheOpt,
    OutOpt,
    OverwriteOpt,
    SeedOpt,
)

app = typer.Typer(help="Validity: do novelty metrics and LLM judges agree with human originality ratings?",
                  no_args_is_help=True)

ValidateModelOpt = Annotated[str, typer.Option(
    "--model", "-m", help="Chat model spec for the LLM judges (local | openai/<model> | "
                          "openai-compatible/<model>@<url>); 'none' skips the judges.")]


def _data_dir(data_dir: Path | None) -> Path:
    from noveval.settings import data_dir as find

    return find(data_dir) or Path(data_dir or "../shared/data")


def _print(scores: dict, as_json: bool) -> None:
    from noveval.benchmarks.validate.analysis import format_summary

    if as_json:
        typer.echo(json.dumps(scores, indent=2))
    else:
        typer.echo(format_summary(scores))


def _limits(values: list[str] | None) -> dict[str, int] | None:
    from noveval.errors import InputError

    out: dict[str, int] = {}
    for v in values or []:
        name, _, n = v.rpartition("=")
        if not n.strip().isdigit():
            raise InputError(None, None, "--metric-limit", f"expected N or NAME=N, got {v!r}")
        out[name.strip() or "*"] = int(n)
    return out or None


@cli_errors
def run(
    out: OutOpt,
    reviews: Annotated[Path | None, typer.Option("--reviews", "-r", help="Papers with reviews (JSONL.gz; default: <data-dir>/reviews/neurips-2025.jsonl.gz).")] = None,
    corpus: Annotated[Path | None, typer.Option("--corpus", help="Prior-work corpus (default: <data-dir>/corpus/papers.jsonl.gz).")] = None,
    data_dir: DataDirOpt = None,
    model: ValidateModelOpt = "local",
    embedder: EmbedderOpt = "local",
    metric: Annotated[list[str] | None, typer.Option("--metric", help="Novelty metric (repeatable): Yin, RND, SemNovel, FastTextLOF, or none. Default: all four.")] = None,
    pool: Annotated[str, typer.Option("--pool", help="neighbours (each paper's nearest prior papers) or field (a sample of the paper's field).")] = "neighbours",
    pool_size: Annotated[int, typer.Option("--pool-size", min=2, max=5000, help="Papers in each metric's pool.")] = 500,
    field: Annotated[str | None, typer.Option("--field", help="Use only prior work of this corpus field (ML, CV, NLP, ...).")] = None,
    top_k: Annotated[int, typer.Option("--top-k", min=1, help="k of the top-k mean similarity signal.")] = 10,
    judge_prompt: Annotated[list[str] | None, typer.Option("--judge-prompt", help="LLM judge prompt (repeatable): rubric (RINoBench 1-5), direct (1-4). Default: both.")] = None,
    judge_limit: Annotated[int, typer.Option("--judge-limit", min=0, help="Papers the LLM judges rate (a seeded sample); 0 = all.")] = 200,
    metric_limit: Annotated[list[str] | None, typer.Option("--metric-limit", help="Compute metrics for a seeded sample of N papers only: N (every metric) or NAME=N (repeatable), e.g. SemNovel=1000.")] = None,
    related_works: Annotated[int, typer.Option("--related-works", min=0, help="Prior papers shown to the judges.")] = 5,
    max_abstract_chars: Annotated[int, typer.Option("--max-abstract-chars", min=0, help="Characters of each prior abstract shown to the judges (0: whole).")] = 800,
    max_tokens: Annotated[int, typer.Option("--max-tokens", min=16, help="Judge answer budget.")] = 384,
    limit: LimitOpt = None,
    max_corpus: Annotated[int | None, typer.Option("--max-corpus", min=2, help="Sample at most N prior corpus papers (quick runs).")] = None,
    min_raters: Annotated[int, typer.Option("--min-raters", min=2, help="Ratings a paper needs for the human ceiling.")] = 3,
    min_group: Annotated[int, typer.Option("--min-group", min=2, help="Smallest keyword group analysed.")] = 80,
    resamples: Annotated[int, typer.Option("--resamples", min=10, help="Bootstrap resamples.")] = 1000,
    jobs: Annotated[int, typer.Option("--jobs", min=1, help="Processes for the metric fits (t-SNE, fastText).")] = 1,
    seed: SeedOpt = 0,
    concurrency: ConcurrencyOpt = None,
    no_cache: NoCacheOpt = False,
    overwrite: OverwriteOpt = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print scores.json instead of the summary table.")] = False,
) -> None:
    """Correlate novelty metrics, retrieval signals and LLM judges with reviewers' originality ratings."""
    from noveval.benchmarks.validate.api import ValidateOptions
    from noveval.benchmarks.validate.api import run as api_run
    from noveval.runs import RunDir

    d = _data_dir(data_dir)
    metrics = tuple(metric) if metric else ("Yin", "RND", "SemNovel", "FastTextLOF")
    if [m.lower() for m in metrics] == ["none"]:
        metrics = ()
    opts = ValidateOptions(
        metric_limits=_limits(metric_limit),
        metrics=metrics, pool=pool, pool_size=pool_size, field=field, top_k=top_k,
        judges=tuple(judge_prompt) if judge_prompt else ("rubric", "direct"),
        judge_limit=judge_limit or None, related_works=related_works, max_abstract_chars=max_abstract_chars, max_tokens=max_tokens, limit=limit,
        max_corpus=max_corpus, min_raters=min_raters, min_group=min_group, n_resamples=resamples, jobs=jobs, seed=seed,
    )
    path = api_run(reviews or d / "reviews" / "neurips-2025.jsonl.gz", corpus or d / "corpus" / "papers.jsonl.gz",
                   out=out, model=None if model == "none" else model, embedder=embedder, options=opts,
                   overwrite=overwrite, cache=None if no_cache else "default", concurrency=concurrency)
    scores = RunDir.open(path).scores
    _print(scores, as_json)
    typer.echo(f"run: {path}", err=True)
    if not scores.get("complete", True):
        raise typer.Exit(3)


@cli_errors
def score(
    run_dir: Annotated[Path, typer.Argument(help="A validity run folder.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print scores.json instead of the summary table.")] = False,
) -> None:
    """Recompute the correlations of a validity run from its per_item.jsonl (no model calls)."""
    from noveval.benchmarks.validate.api import score as api_score

    scores = api_score(run_dir)
    _print(scores, as_json)
    if not scores.get("complete", True):
        raise typer.Exit(3)


@cli_errors
def ceiling(
    ratings: Annotated[Path, typer.Argument(help="A reviews JSONL(.gz) (scores.<aspect> per review) or the PeerRead aspect-score TSV.")],
    aspect: Annotated[str | None, typer.Option("--aspect", help="Score to use (default: originality; ORIGINALITY for a TSV).")] = None,
    min_raters: Annotated[int, typer.Option("--min-raters", min=2, help="Ratings a paper needs.")] = 3,
    resamples: Annotated[int, typer.Option("--resamples", min=10, help="Bootstrap resamples.")] = 1000,
    seed: SeedOpt = 0,
) -> None:
    """Human agreement alone: leave-one-reviewer-out Spearman (95% CI) and Krippendorff's alpha."""
    import numpy as np

    from noveval.benchmarks.validate.data import load_peerread_ratings, load_rated_papers
    from noveval.metrics.agreement import krippendorff_alpha
    from noveval.metrics.correlation import loro_ceiling, loro_ci

    if ratings.suffix.lower() == ".tsv":
        lists, counts = load_peerread_ratings(ratings, aspect=aspect or "ORIGINALITY")
        typer.echo(f"{ratings.name}: {counts}")
    else:
        papers = load_rated_papers(ratings, aspect=aspect or "originality", scale=(1, 10))
        lists = [p.ratings for p in papers if p.ratings]
    m = max(len(r) for r in lists)
    data = np.full((m, len(lists)), np.nan)
    for u, rs in enumerate(lists):
        data[: len(rs), u] = rs
    rho = loro_ceiling(lists, min_raters=min_raters)
    lo, hi = loro_ci(lists, min_raters=min_raters, n_resamples=resamples, seed=seed)
    n = sum(len(r) >= min_raters for r in lists)
    typer.echo(f"leave-one-reviewer-out Spearman: {rho:.3f} [{lo:.3f}, {hi:.3f}] over {n} papers with >= {min_raters} "
               f"ratings; Krippendorff alpha (ordinal, all {len(lists)} rated papers): "
               f"{krippendorff_alpha(data, level='ordinal'):.3f}")


app.command("run")(run)
app.command("score")(score)
app.command("ceiling")(ceiling)


def demo(out_dir: Path, model: str = "local", embedder: str = "local", real: bool = False,
         data_dir: Path | None = None) -> list[Path]:
    """Small run: the shipped fixture-sized sample (or 60 real NeurIPS 2025 papers with ``real``)."""
    from noveval.benchmarks.validate.api import ValidateOptions
    from noveval.benchmarks.validate.api import run as api_run

    if real:
        d = _data_dir(data_dir)
        opts = ValidateOptions(limit=60, pool_size=100, max_corpus=3000, judge_limit=3, max_tokens=160,
                               n_resamples=200, min_group=10)
        path = api_run(d / "reviews" / "neurips-2025.jsonl.gz", d / "corpus" / "papers.jsonl.gz",
                       out=Path(out_dir) / "run", model=model, embedder=embedder, options=opts, overwrite=True)
    else:
        from noveval.benchmarks.validate.data import sample_paths

        reviews, corpus = sample_paths()
        opts = ValidateOptions(pool_size=20, judge_limit=3, max_tokens=160, n_resamples=200, min_group=4, top_k=3)
        path = api_run(reviews, corpus, out=Path(out_dir) / "run", model=model, embedder=embedder, options=opts,
                       overwrite=True)
    return [path]
