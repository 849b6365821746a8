"""noveval: evaluate machine judgments of scientific novelty and of peer-review critique.

The package is layered (see ``docs/internals.md``): pure metric functions in
:mod:`noveval.metrics` and :mod:`noveval.novelty`, model backends in
:mod:`noveval.models`, benchmarks composing both in :mod:`noveval.benchmarks`, and a
thin CLI on top. Importing :mod:`noveval` is cheap; heavy libraries load on first use.

Python API (:mod:`noveval.api`)::

    import noveval
    folder = noveval.run("rinobench", model="local", out="runs/rino", options={"limit": 2})
    scores = noveval.score(folder)            # typed Scores, from the saved outputs alone
    table = noveval.load_run(folder).scores   # pandas DataFrame
    noveval.benchmarks.BENCHMARKS             # the registry: every system
"""

from noveval._version import __version__
from noveval.quiet import apply_from_env as _apply_quiet

_apply_quiet()  # worker processes of a CLI run keep library noise off the terminal too

_API = ("run", "score", "load_run", "read_scores", "Scores", "MetricValue", "RunResults")

__all__ = ["__version__", "benchmarks", *_API]


def __getattr__(name: str) -> object:
    """The API names load on first use (``import noveval`` stays cheap)."""
    if name in _API:
        from noveval import api

        return getattr(api, name)
    if name == "benchmarks":
        import importlib

        return importlib.import_module("noveval.benchmarks")
    raise AttributeError(f"module 'noveval' has no attribute {name!r}")
