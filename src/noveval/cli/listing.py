"""``noveval benchmarks``: every registered system, its paper, inputs, data and commands.

Built from :data:`noveval.benchmarks.BENCHMARKS`: each system's declaration gives the prose
(``about``) and its commands (the mounted ones, so they are the ones that exist).
"""

from __future__ import annotations

import json
import textwrap
from typing import Annotated, Any

import typer

from noveval.cli.common import cli_errors

__all__ = ["benchmarks", "describe"]


def _commands(bench: Any) -> list[str]:
    out = [f"noveval run {bench.name}", f"noveval score {bench.name}"]
    commands = getattr(bench.presentation("cli"), "app", None)
    if isinstance(commands, typer.Typer):
        cmd = typer.main.get_command(commands)
        out.extend(f"noveval {bench.name} {c}" for c in sorted(getattr(cmd, "commands", {}) or {}))
    if bench.demo is not None:
        out.append(f"noveval demo --only {bench.name}")
    return list(dict.fromkeys(out))


def describe(names: list[str] | None = None) -> list[dict[str, Any]]:
    """One dict per registered benchmark (in registry order): name, prose, commands.

    Args:
        names: Only these benchmarks (None: all).

    Raises:
        InputError: a name that is not registered.
    """
    from noveval.benchmarks import BENCHMARKS
    from noveval.errors import InputError

    unknown = [n for n in names or [] if n not in BENCHMARKS]
    if unknown:
        raise InputError(None, None, "name", f"unknown benchmark(s) {', '.join(unknown)}; one of {', '.join(BENCHMARKS)}")
    rows = []
    for name, b in BENCHMARKS.items():
        if names and name not in names:
            continue
        a = b.about
        rows.append({
            "name": name,
            "installed": True,
            "title": b.title,
            "paper": a.paper,
            "task": a.task,
            "needs": list(a.needs),
            "data": list(a.data),
            "demo": list(a.demo),
            "commands": _commands(b),
            "examples": list(a.examples),
            "package": b.package,
        })
    return rows


def _block(label: str, items: list[str], width: int = 100) -> list[str]:
    lines = []
    for i, item in enumerate(items):
        head = f"  {label:<9}" if i == 0 else " " * 11
        wrapped = textwrap.wrap(item, width=width - 13) or [""]
        lines.append(f"{head}{'- ' if len(items) > 1 else ''}{wrapped[0]}")
        pad = " " * (13 if len(items) > 1 else 11)
        lines.extend(pad + w for w in wrapped[1:])
    return lines


@cli_errors
def benchmarks(
    names: Annotated[list[str] | None, typer.Argument(help="Only these benchmarks (default: all).")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")] = False,
) -> None:
    """List the systems: paper, what each needs, where its data come from, its commands."""
    rows = describe(names)
    if json_out:
        typer.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    out: list[str] = []
    for r in rows:
        out.append(f"{r['name']} — {r['title']}" + ("" if r["installed"] else "  (not installed)"))
        if r["paper"]:
            out += _block("paper", [r["paper"]])
        if r["task"]:
            out += _block("task", [r["task"]])
        out += _block("needs", r["needs"])
        out += _block("data", r["data"])
        if r["demo"]:
            out += _block("demo", r["demo"])
        out += _block("commands", r["commands"], width=400)
        out += _block("e.g.", r["examples"], width=400)
        out.append("")
    out.append("$D is the data folder (noveval data dir; noveval data get NAME fills it, noveval data list shows what is there). "
               "Model specs: local | local:/path.gguf | openai/<model> | openai-compatible/<model>@<url>.")
    typer.echo("\n".join(out))
