"""``noveval compare RUN_A RUN_B [RUN...]``: paired tests between runs of one system."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from pydantic import BaseModel

from noveval.cli.common import cli_errors
from noveval.cli.options import SeedOpt, option_info
from noveval.options import option


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


class CompareOptions(BaseModel):
    """The options of :func:`compare`."""

    runs: list[Path] = option(..., argument=True, help="Two or more run folders of the same system (and task), scored on overlapping items.")
    metric: list[str] | None = option(None, "--metric", help="Also rank on this metric (3+ runs) / show only these metrics (2 runs); NAME:lower or NAME:higher sets which way is better. Repeatable.")
    resamples: int = option(10_000, "--resamples", ge=100, help="Paired bootstrap resamples.")
    permutations: int = option(10_000, "--permutations", ge=100, help="Random swaps of the permutation test (exact when 2^n is fewer).")
    ci: str = option("percentile", "--ci", help="CI method: percentile | bca (bias-corrected and accelerated, as scipy).")
    confidence: float = option(0.95, "--confidence", ge=0.5, le=0.999, help="CI coverage.")
    alpha: float = option(0.05, "--alpha", ge=0.0001, le=0.5, help="Level of the leaderboard's significance marks (after Holm).")
    as_json: bool = option(False, "--json", help="Print the comparison as JSON.")


@cli_errors
def compare(
    runs: Annotated[list[Path], option_info(CompareOptions, "runs")],
    metric: Annotated[list[str] | None, option_info(CompareOptions, "metric")] = None,
    resamples: Annotated[int, option_info(CompareOptions, "resamples")] = 10_000,
    permutations: Annotated[int, option_info(CompareOptions, "permutations")] = 10_000,
    ci: Annotated[str, option_info(CompareOptions, "ci")] = "percentile",
    confidence: Annotated[float, option_info(CompareOptions, "confidence")] = 0.95,
    alpha: Annotated[float, option_info(CompareOptions, "alpha")] = 0.05,
    seed: SeedOpt = 0,
    as_json: Annotated[bool, option_info(CompareOptions, "as_json")] = False,
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
