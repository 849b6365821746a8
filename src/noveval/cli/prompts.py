"""``noveval prompts list|show|export``: the prompt templates of every system (docs/prompts.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from pydantic import BaseModel

from noveval.cli.common import cli_errors
from noveval.cli.options import option_info
from noveval.options import option

__all__ = ["prompts_app"]

prompts_app = typer.Typer(help="List, show or export the prompt templates (override with $NOVEVAL_PROMPTS_DIR).",
                          no_args_is_help=True)


class ShowOptions(BaseModel):
    """``noveval prompts show``."""

    system: str = option(..., argument=True, help="System (novbench, rinobench, focus, claimcheck, axioms, check, "
                                                  "index, validate), or SYSTEM/NAME.")
    name: str | None = option(None, argument=True, help="Template name, e.g. alignment or alignment.txt.")


class ExportOptions(BaseModel):
    """``noveval prompts export``."""

    dest: Path = option(..., argument=True, help="Folder to write <system>/<name>.txt templates into.")
    variants: bool = option(False, help="Write the prompt variants the systems ship for `run <system> "
                                        "--prompt-variants bundled` instead (DEST/<variant>/<system>/<name>.txt), to "
                                        "edit or add to.")


@prompts_app.command("list")
@cli_errors
def prompts_list() -> None:
    """List every prompt template with its hash and variables; '*' marks one overridden by $NOVEVAL_PROMPTS_DIR."""
    from noveval.prompts import list_prompts, load, override_dir, unused_overrides, variables

    over = override_dir()
    typer.echo(f"overrides: {over if over else '(none: set NOVEVAL_PROMPTS_DIR)'}")
    declared: dict[str, dict[str, dict[str, str]]] = {}
    for system, fname, overridden in list_prompts():
        if system not in declared:
            declared[system] = variables(system)
        t = load(system, fname)
        names = ", ".join(declared[system].get(t.name, {})) or "-"
        typer.echo(f"{'*' if overridden else ' '} {system}/{fname:<32} {t.sha}  variables: {names}")
    for p in unused_overrides(over):
        typer.echo(f"! {p}: matches no shipped template, not used", err=True)


@prompts_app.command("show")
@cli_errors
def prompts_show(
    system: Annotated[str, option_info(ShowOptions, "system")],
    name: Annotated[str | None, option_info(ShowOptions, "name")] = None,
) -> None:
    """Print the template in effect (the override if there is one), exactly as in its file."""
    from noveval.prompts import load

    if name is None:
        system, sep, name = system.partition("/")
        if not sep or not name:
            from noveval.errors import InputError

            raise InputError(None, None, "name", "give SYSTEM NAME or SYSTEM/NAME (see: noveval prompts list)")
    typer.echo(load(system, name).text, nl=False)


@prompts_app.command("export")
@cli_errors
def prompts_export(
    dest: Annotated[Path, option_info(ExportOptions, "dest")],
    variants: Annotated[bool, option_info(ExportOptions, "variants")] = False,
) -> None:
    """Copy every shipped template into a folder, to edit and use via $NOVEVAL_PROMPTS_DIR."""
    if variants:
        from noveval.benchmarks import BENCHMARKS
        from noveval.benchmarks._variants import export_bundled

        got = export_bundled(dest, list(BENCHMARKS.values()))
        for system, names in got.items():
            typer.echo(f"{system}: the prompt variants {', '.join(names)} under {dest}; edit or add variant folders, "
                       f"then: noveval run {system} -o OUT --prompt-variants {dest}")
        return
    from noveval.prompts import export_prompts

    n = export_prompts(dest)
    typer.echo(f"wrote {n} templates under {dest}; edit them and set NOVEVAL_PROMPTS_DIR={dest}")
