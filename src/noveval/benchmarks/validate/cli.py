"""CLI of the validity study: ``noveval validate run|score|ceiling``. ``run`` and ``score`` are the
generated ``noveval run validate`` / ``noveval score validate`` (:mod:`noveval.cli.generate`).
Nothing heavy is imported at module level."""

from __future__ import annotations

import typer

from noveval.benchmarks.validate import BENCHMARK
from noveval.benchmarks.validate.options import CeilingCommand
from noveval.cli.common import cli_errors
from noveval.cli.generate import make_run_command, make_score_command, options_command

app = typer.Typer(help="Validity: do novelty metrics and LLM judges agree with human originality ratings?",
                  no_args_is_help=True)


@cli_errors
@options_command(CeilingCommand)
def ceiling(o: CeilingCommand) -> None:
    """Human agreement alone: leave-one-reviewer-out Spearman (95% CI) and Krippendorff's alpha."""
    import numpy as np

    from noveval.benchmarks.validate.data import load_peerread_ratings, load_rated_papers
    from noveval.metrics.agreement import krippendorff_alpha
    from noveval.metrics.correlation import loro_ceiling, loro_ci

    ratings, aspect, min_raters = o.ratings, o.aspect, o.min_raters
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
    lo, hi = loro_ci(lists, min_raters=min_raters, n_resamples=o.resamples, seed=o.seed)
    n = sum(len(r) >= min_raters for r in lists)
    typer.echo(f"leave-one-reviewer-out Spearman: {rho:.3f} [{lo:.3f}, {hi:.3f}] over {n} papers with >= {min_raters} "
               f"ratings; Krippendorff alpha (ordinal, all {len(lists)} rated papers): "
               f"{krippendorff_alpha(data, level='ordinal'):.3f}")


app.command("run")(make_run_command(BENCHMARK))
app.command("score", help="Recompute the correlations of a validity run from its per_item.jsonl (no model calls).")(
    make_score_command(BENCHMARK))
app.command("ceiling")(ceiling)
