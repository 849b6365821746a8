"""``noveval compare RUN_A RUN_B [RUN...]``: paired tests between runs of one system."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

import typer
from pydantic import BaseModel, ConfigDict

from noveval.cli.common import cli_errors
from noveval.cli.generate import options_command
from noveval.options import option, shared


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


CiMethod = Literal["percentile", "bca"]
"""The paired CI methods (:data:`noveval.metrics.paired.CI_METHODS`)."""


class CompareOptions(BaseModel):
    """The options of :func:`compare`."""

    model_config = ConfigDict(extra="forbid")

    runs: list[Path] = option(..., argument=True, help="Two or more run folders of the same system (and task), scored on overlapping items.")
    metric: list[str] | None = option(None, "--metric", help="Also rank on this metric (3+ runs) / show only these metrics (2 runs); NAME:lower or NAME:higher sets which way is better. Repeatable.")
    resamples: int = option(10_000, "--resamples", ge=100, help="Paired bootstrap resamples.")
    permutations: int = option(10_000, "--permutations", ge=100, help="Random swaps of the permutation test (exact when 2^n is fewer).")
    ci: CiMethod = option("percentile", "--ci", help="CI method: percentile | bca (bias-corrected and accelerated, as scipy).")
    confidence: float = option(0.95, "--confidence", ge=0.5, le=0.999, help="CI coverage.")
    alpha: float = option(0.05, "--alpha", ge=0.0001, le=0.5, help="Level of the leaderboard's significance marks (after Holm).")
    seed: int = shared("seed")
    as_json: bool = option(False, "--json", help="Print the comparison as JSON.")


@cli_errors
@options_command(CompareOptions)
def compare(o: CompareOptions) -> None:
    """Compare runs of one system item by item: paired bootstrap CIs, permutation p-values, leaderboard."""
    from noveval.cli.generate import renamed_field
    from noveval.compare import compare_runs, format_comparison

    names, directions = _parse_metrics(o.metric or [])
    with renamed_field("metric", "--metric"):
        result = compare_runs(o.runs, metrics=names, directions=directions, n_resamples=o.resamples,
                              n_permutations=o.permutations, confidence=o.confidence, ci_method=o.ci, alpha=o.alpha,
                              seed=o.seed)
    if o.as_json:
        typer.echo(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
    else:
        typer.echo(format_comparison(result))
