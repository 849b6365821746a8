"""CLI of the validity study: ``noveval validate run|score|ceiling``. ``run`` and ``score`` are the
generated ``noveval run validate`` / ``noveval score validate`` (:mod:`noveval.cli.generate`).
Nothing heavy is imported at module level."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from noveval.benchmarks.validate import BENCHMARK
from noveval.cli.common import cli_errors
from noveval.cli.generate import make_run_command, make_score_command
from noveval.cli.options import SeedOpt

app = typer.Typer(help="Validity: do novelty metrics and LLM judges agree with human originality ratings?",
                  no_args_is_help=True)


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


app.command("run")(make_run_command(BENCHMARK))
app.command("score", help="Recompute the correlations of a validity run from its per_item.jsonl (no model calls).")(
    make_score_command(BENCHMARK))
app.command("ceiling")(ceiling)
