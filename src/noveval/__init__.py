"""noveval: evaluate machine judgments of scientific novelty and of peer-review critique.

The package is layered (see ``docs/internals.md``): pure metric functions in
:mod:`noveval.metrics` and :mod:`noveval.novelty`, model backends in
:mod:`noveval.models`, benchmarks composing both in :mod:`noveval.benchmarks`, and a
thin CLI on top. Importing :mod:`noveval` is cheap; heavy libraries load on first use.
"""

from noveval._version import __version__
from noveval.quiet import apply_from_env as _apply_quiet

_apply_quiet()  # worker processes of a CLI run keep library noise off the terminal too

__all__ = ["__version__"]
