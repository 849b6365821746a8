"""Benchmarks: each composes pure metrics with model backends. One sub-package per system.

:data:`BENCHMARKS` is the one registry: a :class:`Benchmark` entry per system names its
package, its CLI module (``noveval run/score <name>`` and the ``noveval <name> ...``
group are mounted from it), its Python entry points (``noveval.run`` / ``noveval.score``)
and its prose (:mod:`noveval.benchmarks.catalog`, shown by ``noveval benchmarks``).
Adding a system = its package + one entry here. :data:`REGISTRY` (name -> CLI module) is
derived from it for older callers.

A CLI module defines ``run`` and ``score`` (Typer-annotated functions), optionally
``app`` (extra commands under ``noveval <name> ...``) and ``demo(...)``. The Python
entry points, where a system has them, are ``run(model, out, *, data=None,
options=None) -> Path`` (``options``: the system's one typed options object, a pydantic
model, or a dict of its fields) and ``score(run, **options) -> dict`` (scores from the
run folder's saved outputs alone; the scores.json dict).

``noveval check`` is a tool, not a benchmark: it judges one idea against a corpus and
has no gold to score against, so it is not registered here (its prompts are in the
prompt catalogue under ``check``; its command is mounted by :mod:`noveval.check.cli`).
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

__all__ = ["BENCHMARKS", "Benchmark", "REGISTRY", "available", "get"]


@dataclass(frozen=True)
class Benchmark:
    """One registered system.

    Attributes:
        name: The name users type (``noveval run <name>``).
        package: Its Python package (holds ``prompts/`` when it has templates).
        cli: Module with the Typer ``run``/``score`` commands (and ``app``, ``demo``).
        api: Module with the Python entry points ``run(model, out, *, data, options)`` and
            ``score(run, **options)`` (None: not yet; use the CLI).
        paper: True for a paper's benchmark, False for a generic task (``chat``).
    """

    name: str
    package: str
    cli: str
    api: str | None = None
    paper: bool = True

    @property
    def about(self) -> Any:
        """The prose of ``noveval benchmarks`` (:class:`noveval.benchmarks.catalog.About`)."""
        from noveval.benchmarks.catalog import about

        return about(self.name)

    def entry(self, which: str) -> Callable[..., Any] | None:
        """The Python entry point ``run`` or ``score`` (None when the system has none yet)."""
        if self.api is None:
            return None
        fn = getattr(importlib.import_module(self.api), which, None)
        return fn if callable(fn) else None


def _b(name: str, *, api: bool = False, paper: bool = True) -> Benchmark:
    pkg = f"noveval.benchmarks.{name}"
    return Benchmark(name, pkg, f"{pkg}.cli", f"{pkg}.contract" if api else None, paper)


BENCHMARKS: dict[str, Benchmark] = {b.name: b for b in (
    _b("chat", api=True, paper=False),
    _b("novbench", api=True),
    _b("rinobench", api=True),
    _b("focus", api=True),
    _b("claimcheck", api=True),
    _b("axioms", api=True),
    _b("validate", api=True),
    Benchmark("novelty-pairs", "noveval.benchmarks.pairs", "noveval.benchmarks.pairs.cli",
              "noveval.benchmarks.pairs.contract", paper=False),
)}
"""Every registered system, in the order ``noveval benchmarks`` and the demo use."""

REGISTRY: dict[str, str] = {name: b.cli for name, b in BENCHMARKS.items()}
"""Name -> CLI module (derived from :data:`BENCHMARKS`)."""


def get(name: str) -> Benchmark:
    """The registry entry of ``name``.

    Raises:
        InputError: an unknown name (the message lists the registered ones).
    """
    from noveval.errors import InputError

    if name not in BENCHMARKS:
        raise InputError(None, None, "benchmark", f"unknown benchmark {name!r}; one of {', '.join(BENCHMARKS)}")
    return BENCHMARKS[name]


def available() -> dict[str, ModuleType]:
    """Import and return the CLI modules of the registered benchmarks that are installed."""
    out: dict[str, ModuleType] = {}
    for name, b in BENCHMARKS.items():
        try:
            found = importlib.util.find_spec(b.cli) is not None
        except ModuleNotFoundError:
            found = False
        if found:
            out[name] = importlib.import_module(b.cli)
    return out
