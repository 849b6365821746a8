"""``noveval benchmarks``: every registered system, its paper, inputs, data and commands.

Built from :data:`noveval.benchmarks.REGISTRY` (the names and their CLI modules: the
commands are read from the modules, so they are the ones that exist) and
:data:`noveval.benchmarks.catalog.CATALOG` (the prose).
"""

from __future__ import annotations

import json
import textwrap
from typing import Annotated, Any

import typer

from noveval.cli.common import cli_errors

__all__ = ["benchmarks", "describe"]


def _commands(name: str, mod: Any) -> list[str]:
    out = []
    if hasattr(mod, "run"):
        out.append(f"noveval run {name}")
    if hasattr(mod, "score"):
        out.append(f"noveval score {name}")
    sub = getattr(mod, "app", None)
    if sub is not None:
        cmd = typer.main.get_command(sub)
        out.extend(f"noveval {name} {c}" for c in sorted(getattr(cmd, "commands", {}) or {}))
    if hasattr(mod, "demo"):
        out.append(f"noveval demo --only {name}")
    return list(dict.fromkeys(out))


def describe(names: list[str] | None = None) -> list[dict[str, Any]]:
    """One dict per registered benchmark (in registry order): name, prose, commands.

    Args:
        names: Only these benchmarks (None: all).

    Raises:
        InputError: a name that is not registered.
    """
    from noveval.benchmarks import REGISTRY, available
    from noveval.benchmarks.catalog import about
    from noveval.errors import InputError

    unknown = [n for n in names or [] if n not in REGISTRY]
    if unknown:
        raise InputError(None, None, "name", f"unknown benchmark(s) {', '.join(unknown)}; one of {', '.join(REGISTRY)}")
    mods = available()
    rows = []
    for name in REGISTRY:
        if names and name not in names:
            continue
        a = about(name)
        rows.append({
            "name": name,
            "installed": name in mods,
            "title": a.title if a else name,
            "paper": a.paper if a else None,
            "task": a.task if a else None,
            "needs": list(a.needs) if a else [],
            "data": list(a.data) if a else [],
            "demo": list(a.demo) if a else [],
            "commands": _commands(name, mods[name]) if name in mods else [],
            "examples": list(a.examples) if a else [],
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
    out.append("$D is the data folder (--data-dir, $NOVEVAL_DATA_DIR or ../shared/data). "
               "Model specs: local | local:/path.gguf | openai/<model> | openai-compatible/<model>@<url>.")
    typer.echo("\n".join(out))
