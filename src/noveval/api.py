"""The public Python API: ``noveval.run``, ``noveval.score``, ``noveval.load_run``, ``noveval.read_scores``.

One call per step, the same for every system that has Python entry points (the
registry, :mod:`noveval.benchmarks`, says which)::

    import noveval
    folder = noveval.run("rinobench", model="local", out="runs/rino", options={"limit": 2})
    scores = noveval.score(folder)        # from the saved outputs alone -> Scores
    results = noveval.load_run(folder)    # per-item and score tables (pandas)

:func:`run` and :func:`score` dispatch to the system's ``contract`` module;
:func:`read_scores` types any run folder's ``scores.json`` (every system, old folders
too); :func:`load_run` is :func:`noveval.export.load_run`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from noveval.export import RunResults, load_run
from noveval.scores import MetricValue, Scores, read_scores

__all__ = ["MetricValue", "RunResults", "Scores", "load_run", "read_scores", "run", "score"]


def _entry(name: str, which: str) -> Any:
    from noveval.benchmarks import get
    from noveval.errors import ConfigError

    fn = get(name).entry(which)
    if fn is None:
        raise ConfigError(f"{name} has no Python '{which}' entry point yet; use the CLI: noveval {which} {name} --help "
                          "(noveval.read_scores reads any run folder's scores)")
    return fn


def run(benchmark: str, model: str | Any = "local", out: str | Path = "runs/noveval", *,
        data: str | Path | None = None, options: Any = None) -> Path:
    """Run a registered benchmark with a model; resumable (a second call with the same settings makes no model call).

    Args:
        benchmark: Registered name (``noveval.benchmarks.BENCHMARKS``), e.g. ``"rinobench"``.
        model: Model spec (``"local"`` is the bundled SmolLM2-135M; ``"openai/gpt-4o"``, ...)
            or a ready chat client.
        out: Run folder.
        data: The system's input file or ``hf:NAME[:SPLIT]`` (None: its shipped sample).
        options: The system's options object (e.g.
            :class:`noveval.benchmarks.rinobench.contract.RINoBenchOptions`) or a dict of its fields.

    Returns:
        The run folder (``config.json``, ``predictions.jsonl``, ``scores.json`` when gold is present).

    Raises:
        InputError: an unknown benchmark, a bad option (``options.<field>``), a bad input file.
        ConfigError: a model spec that cannot work, or a system without a Python entry point.
    """
    return Path(_entry(benchmark, "run")(model, out, data=data, options=options))


def score(run: str | Path, **options: Any) -> Scores:
    """Score a run folder from its saved outputs alone (the system is read from its ``config.json``).

    Args:
        run: The run folder.
        **options: The system's scoring options (e.g. ``judge=`` for RINoBench's
            justification metrics, ``data=`` for chat's references).

    Returns:
        The typed :class:`~noveval.scores.Scores` (``metrics[name].mean/ci_low/ci_high/n``,
        ``primary_metric``, ``greater_is_better``).

    Raises:
        InputError: not a run folder, or the system cannot score it.
    """
    from noveval.errors import InputError
    from noveval.io import read_json

    cfg_path = Path(run) / "config.json"
    if not cfg_path.is_file():
        raise InputError(cfg_path, None, None, "not a run folder (no config.json)")
    cfg = read_json(cfg_path)
    name = cfg.get("benchmark") if isinstance(cfg, dict) else None
    if not isinstance(name, str):
        raise InputError(cfg_path, None, "benchmark", "the run does not say which benchmark made it")
    return read_scores(_entry(name, "score")(run, **options))
