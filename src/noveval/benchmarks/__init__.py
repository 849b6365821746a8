"""Benchmarks: each composes pure metrics with model backends. One sub-package per system.

:data:`BENCHMARKS` is the one registry: name -> :class:`Benchmark`, the declaration each
system package makes as ``BENCHMARK`` (options, run, score, prose, answer, views, demo).
The packages come from :mod:`noveval.registry` (the in-tree list, then the entry-point
group ``noveval.benchmarks`` for systems in other installed packages); they are imported on
first use of the registry. Adding a system = its package + one line in
:data:`noveval.registry.IN_TREE` (or one entry point in its own package).

``noveval check`` is a tool, not a benchmark: it judges one idea against a corpus and
has no gold to score against, so it is not registered here (its prompts are in the
prompt catalogue under ``check``; its command is mounted by :mod:`noveval.check.cli`).
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Iterator, Mapping
from typing import Any

from noveval.benchmarks._benchmark import (
    About,
    Answer,
    Benchmark,
    DemoRun,
    Lazy,
    declare,
    lazy,
    lazy_exports,
    load,
    resolve,
)

__all__ = ["BENCHMARKS", "About", "Answer", "Benchmark", "DemoRun", "Lazy", "declare", "get", "lazy", "lazy_exports",
           "load", "resolve"]

log = logging.getLogger("noveval")


class _Registry(Mapping[str, Benchmark[Any, Any]]):
    """The declarations of every system, read on first use (importing this module is cheap)."""

    def __init__(self) -> None:
        self._entries: dict[str, Benchmark[Any, Any]] | None = None

    def _load(self) -> dict[str, Benchmark[Any, Any]]:
        if self._entries is None:
            from dataclasses import replace

            from noveval.registry import IN_TREE, packages

            entries: dict[str, Benchmark[Any, Any]] = {}
            for name, package in packages().items():
                try:
                    decl = getattr(importlib.import_module(package), "BENCHMARK", None)
                except Exception as e:  # a broken plugin must not take the shipped systems down
                    if name in IN_TREE:
                        raise
                    log.warning("benchmark plugin %r (%s) could not be imported: %s", name, package, e)
                    continue
                if not isinstance(decl, Benchmark) or decl.name != name:
                    log.warning("benchmark %r: %s has no BENCHMARK declaration named %r; ignored", name, package, name)
                    continue
                entries[name] = decl if decl.package else replace(decl, package=package)
            self._entries = entries
        return self._entries

    def __getitem__(self, name: str) -> Benchmark[Any, Any]:
        return self._load()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())

    def reload(self) -> None:
        """Forget the declarations read (a newly installed plugin is found on next use)."""
        from noveval.registry import refresh

        refresh()
        self._entries = None


BENCHMARKS = _Registry()
"""Every registered system, in the order ``noveval benchmarks``, the demo and the report use."""


def get(name: str) -> Benchmark[Any, Any]:
    """The registry entry of ``name``.

    Raises:
        InputError: an unknown name (the message lists the registered ones).
    """
    from noveval.errors import InputError

    if name not in BENCHMARKS:
        raise InputError(None, None, "benchmark", f"unknown benchmark {name!r}; one of {', '.join(BENCHMARKS)}")
    return BENCHMARKS[name]
