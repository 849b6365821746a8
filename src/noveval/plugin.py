"""The public names a system in another package needs (a noveval plugin), in one import.

Everything here is a re-export of the name that does the work; this module adds nothing::

    # <your package>/__init__.py
    from noveval.plugin import About, Answer, Benchmark, RunHook, RunOptions, entry_points, lazy, option

    class ToyOptions(RunOptions):
        questions: str | None = option(None, "--questions", help="JSONL of {id, question, answer}.")

    @lazy                                   # imported on first use, by an ordinary import
    def _run() -> RunHook[ToyOptions]:      # mypy checks the function against the protocol
        from toy_package.system import run
        return run

    BENCHMARK = Benchmark(name="toy", ..., options=ToyOptions, run=_run, score=_score, demo=_demo,
                          answer=Answer("answer"))
    run, score = entry_points(BENCHMARK)

and register the package under the entry-point group :data:`ENTRY_POINT_GROUP` in its own
``pyproject.toml`` (``[project.entry-points."noveval.benchmarks"]``, ``toy = "toy_package"``).
docs/internals.md ("How to add a system") is the recipe: what ``run`` and ``score`` write so
that ``report``, ``compare`` and ``export`` read the run (``config.json`` through
:meth:`RunDir.create`, ``per_item.jsonl`` with an ``id`` per row and the :class:`Answer` field,
``scores.json`` from :meth:`Benchmark.make_scores`).

The declaration and its parts:
    :class:`Benchmark` (``BENCHMARK = Benchmark(...)``), :class:`About` (its prose),
    :class:`Answer` (the per-item answer ``compare`` measures agreement on),
    :class:`RunOptions` and :func:`option` (its options class: the fields of
    ``noveval run <name>`` and of ``noveval.run(name, options=...)``),
    :func:`entry_points` (the package's ``run, score``), :data:`ENTRY_POINT_GROUP`.
The hooks it holds (the function itself, or a :func:`lazy` reference that imports it on first use):
    :class:`RunHook` (``run(model, out, options)``), :class:`ScoreHook` (``score(run_folder,
    options)``), :class:`DemoHook` (``demo(*, model, embedder, real, data_dir) -> [DemoRun, ...]``:
    what ``noveval demo`` runs, through the runner, for the system), :class:`DemoRun`.
Building blocks of a system's ``run`` and ``score``:
    :func:`client_of` (a chat client from a model spec or a client), :class:`ChatRequest`,
    :class:`GenerationParams`, :class:`RunDir` (the run folder: ``config.json``, resumable
    ``<kind>.jsonl``, ``per_item.jsonl``, ``scores.json``), :func:`run_items` (the resumable,
    cached, progress-showing loop over items), :func:`summarize` (mean and 95% bootstrap CI per
    metric, what ``make_scores`` takes), :func:`read_jsonl`, :class:`InputError` (a bad input
    named by file, line and field: exit 2, nothing written).
"""

from __future__ import annotations

from noveval.benchmarks._benchmark import (
    About,
    Answer,
    Benchmark,
    DemoHook,
    DemoRun,
    Lazy,
    RunHook,
    ScoreHook,
    lazy,
)
from noveval.benchmarks._contract import client_of
from noveval.benchmarks._runner import entry_points
from noveval.errors import InputError
from noveval.io import read_jsonl
from noveval.metrics.bootstrap import summarize
from noveval.models.chat import ChatRequest, GenerationParams
from noveval.options import RunOptions, option
from noveval.registry import GROUP
from noveval.runs import RunDir, run_items

__all__ = [
    "ENTRY_POINT_GROUP",
    "About",
    "Answer",
    "Benchmark",
    "ChatRequest",
    "DemoHook",
    "DemoRun",
    "GenerationParams",
    "InputError",
    "Lazy",
    "RunDir",
    "RunHook",
    "RunOptions",
    "ScoreHook",
    "client_of",
    "entry_points",
    "lazy",
    "option",
    "read_jsonl",
    "run_items",
    "summarize",
]

ENTRY_POINT_GROUP: str = GROUP
"""The entry-point group a plugin registers its package in (``"noveval.benchmarks"``)."""
