"""noveval: evaluate machine judgments of scientific novelty and of peer-review critique.

The package is layered (see ``docs/internals.md``): pure metric functions in
:mod:`noveval.metrics` and :mod:`noveval.novelty`, model backends in
:mod:`noveval.models`, benchmarks composing both in :mod:`noveval.benchmarks`, and a
thin CLI on top. Importing :mod:`noveval` is cheap; heavy libraries load on first use.
"""

from noveval._version import __version__

__all__ = ["__version__"]
