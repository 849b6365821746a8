"""``noveval compare RUN_A RUN_B [RUN...]``: paired tests between runs of one system."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from noveval.cli.common import cli_errors
from noveval.cli.options import SeedOpt


def _parse_metrics(specs: list[str]) -> tuple[list[str], dict[str, bool]]:
    """``NAME`` / ``NAME:lower`` / ``NAME:higher`` -> names and direction overrides."""
    from noveval.errors import InputError

    names: list[str] = []
    directions: dict[str, bool] = {}
    for spec in specs:
        name, _, way = spec.partition(":")
        if not name or way not in ("", "lower", "higher"):
            raise InputError(None, None, "--metric", f"{spec!r}: expected NAME, NAME:lower or NAME:higher")
        names.append(name)
        if way:
            directions[name] = way == "lower"
    return names, directions


@cli_errors
def compare(
    runs: Annotated[list[Path], typer.Argument(help="Two or more run folders of the same system (and task), scored on overlapping items.")],
    metric: Annotated[list[str] | None, typer.Option("--metric", help="Also rank on this metric (3+ runs) / show only these metrics (2 runs); NAME:lower or NAME:higher sets which way is better. Repeatable.")] = None,
    resamples: Annotated[int, typer.Option("--resamples", min=100, help="Paired bootstrap resamples.")] = 10_000,
    permutations: Annotated[int, typer.Option("--permutations", min=100, help="Random swaps of the permutation test (exact when 2^n is fewer).")] = 10_000,
    ci: Annotated[str, typer.Option("--ci", help="CI method: percentile | bca (bias-corrected and accelerated, as scipy).")] = "percentile",
    confidence: Annotated[float, typer.Option("--confidence", min=0.5, max=0.999, help="CI coverage.")] = 0.95,
    alpha: Annotated[float, typer.Option("--alpha", min=0.0001, max=0.5, help="Level of the leaderboard's significance marks (after Holm).")] = 0.05,
    seed: SeedOpt = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the comparison as JSON.")] = False,
) -> None:
    """Compare runs of one system item by item: paired bootstrap CIs, permutation p-values, leaderboard."""
    from noveval.compare import compare_runs, format_comparison
    from noveval.errors import InputError
    from noveval.metrics.paired import CI_METHODS

    if ci not in CI_METHODS:
        raise InputError(None, None, "--ci", f"{ci!r}: one of {', '.join(CI_METHODS)}")
    names, directions = _parse_metrics(metric or [])
    from noveval.cli.generate import renamed_field

    with renamed_field("metric", "--metric"):
        result = compare_runs(runs, metrics=names, directions=directions, n_resamples=resamples,
                              n_permutations=permutations, confidence=confidence, ci_method=ci, alpha=alpha, seed=seed)
    if as_json:
        typer.echo(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
    else:
        typer.echo(format_comparison(result))
