"""Benchmarks: each composes pure metrics with model backends. One sub-package per system.

``REGISTRY`` maps a benchmark name to its CLI module; the CLI mounts whatever is
registered, so ``noveval run <name>`` / ``noveval score <name>`` stay generic. A CLI
module defines ``run`` and ``score`` (Typer-annotated functions), optionally ``app``
(extra commands under ``noveval <name> ...``) and ``demo(...)``.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

REGISTRY: dict[str, str] = {
    "chat": "noveval.benchmarks.chat.cli",
    "novbench": "noveval.benchmarks.novbench.cli",
    "rinobench": "noveval.benchmarks.rinobench.cli",
    "focus": "noveval.benchmarks.focus.cli",
    "claimcheck": "noveval.benchmarks.claimcheck.cli",
    "axioms": "noveval.benchmarks.axioms.cli",
    "validate": "noveval.benchmarks.validate.cli",
}


def available() -> dict[str, ModuleType]:
    """Import and return the CLI modules of the registered benchmarks that are installed."""
    out: dict[str, ModuleType] = {}
    for name, mod in REGISTRY.items():
        try:
            found = importlib.util.find_spec(mod) is not None
        except ModuleNotFoundError:
            found = False
        if found:
            out[name] = importlib.import_module(mod)
    return out
