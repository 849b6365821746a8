"""``noveval prices``: the price table in effect, where its numbers come from and when."""

from __future__ import annotations

from typing import Annotated

import typer
from pydantic import BaseModel

from noveval.cli.common import cli_errors
from noveval.cli.options import option_info
from noveval.options import option


class PricesOptions(BaseModel):
    """``noveval prices``."""

    model: str | None = option(None, "--model", "-m", help="Show the price that applies to this model spec.")


@cli_errors
def prices(
    model: Annotated[str | None, option_info(PricesOptions, "model")] = None,
) -> None:
    """Show the dollar prices used for costs and --max-cost (shipped table + $NOVEVAL_PRICES)."""
    from noveval.models.costs import PRICES_ENV, load_prices
    from noveval.models.spec import parse_spec

    table = load_prices()
    typer.echo(f"price files: {'; '.join(table.files)}  (override or add: {PRICES_ENV}=file.json, same format)")
    typer.echo("USD per 1M tokens; prices change: check the provider's page before relying on a number")
    if model is not None:
        label = parse_spec(model).label
        p = table.lookup(label)
        if p is None:
            typer.echo(f"{label}: no price: its cost is shown as unknown and --max-cost refuses to run it")
            raise typer.Exit(1)
        typer.echo(f"{label}: input {p.input:g}, cached input {p.cached_input:g}, output {p.output:g}, "
                   f"batch discount {p.batch_discount:.0%}  ({p.source})")
        return
    w = max(len(k) for k in table.entries)
    typer.echo(f"  {'model':<{w}}  {'input':>7}  {'cached':>7}  {'output':>7}  batch  source")
    for k, p in table.entries.items():
        typer.echo(f"  {k:<{w}}  {p.input:>7g}  {p.cached_input:>7g}  {p.output:>7g}  {p.batch_discount:>4.0%}   {p.source}")
