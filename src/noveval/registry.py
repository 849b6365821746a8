"""Where the systems are: names and packages, without importing any of them.

A system is a package whose ``BENCHMARK`` attribute declares it
(:class:`noveval.benchmarks.Benchmark`). The in-tree systems are listed in
:data:`IN_TREE`; a system in another installed package registers itself through the
Python entry-point group :data:`GROUP`::

    # the plugin's pyproject.toml
    [project.entry-points."noveval.benchmarks"]
    toy = "toy_benchmark"          # a package (or module) with a BENCHMARK attribute

This module only reads names (entry-point metadata, strings), so the pure layer (the prompt
catalogue) can ask it which packages hold templates; :data:`noveval.benchmarks.BENCHMARKS`
imports the packages and reads their declarations.
"""

from __future__ import annotations

import functools
import logging
from importlib.metadata import entry_points

__all__ = ["GROUP", "IN_TREE", "TOOLS", "packages", "refresh"]

log = logging.getLogger("noveval")

GROUP = "noveval.benchmarks"
"""The entry-point group third-party systems register in."""

IN_TREE: dict[str, str] = {
    "novbench": "noveval.benchmarks.novbench",
    "rinobench": "noveval.benchmarks.rinobench",
    "focus": "noveval.benchmarks.focus",
    "axioms": "noveval.benchmarks.axioms",
    "claimcheck": "noveval.benchmarks.claimcheck",
    "validate": "noveval.benchmarks.validate",
    "novelty-pairs": "noveval.benchmarks.pairs",
    "chat": "noveval.benchmarks.chat",
}
"""The systems that ship with noveval: name -> package, in the order lists and the demo use."""

TOOLS: dict[str, str] = {
    "check": "noveval.check",
    "index": "noveval.index",
}
"""Tools that are not systems (no gold, no run folder) but ship prompt templates."""


def refresh() -> None:
    """Read the entry points again on next use (a plugin installed while the process runs)."""
    _packages.cache_clear()


def packages() -> dict[str, str]:
    """Every system: name -> package (in-tree first, then entry points in name order).

    An entry point whose name is already taken (in-tree, or an earlier plugin) is skipped
    with a warning, so a plugin cannot shadow a shipped system.
    """
    return dict(_packages())


@functools.cache
def _packages() -> dict[str, str]:
    out = dict(IN_TREE)
    for ep in sorted(entry_points(group=GROUP), key=lambda e: e.name):
        if ep.name in out or ep.name in TOOLS:
            if out.get(ep.name) != ep.module:
                log.warning("benchmark plugin %r (%s) ignored: the name is taken by %s", ep.name, ep.value,
                            out.get(ep.name) or TOOLS.get(ep.name))
            continue
        out[ep.name] = ep.module
    return out
