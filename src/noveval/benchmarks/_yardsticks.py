"""Yardsticks and published rows in every ``scores.json`` (issue 29), written in one place.

A system declares ``yardsticks`` (its ``baselines(run_folder, scores)`` hook) and
``published`` (its package's rows of the paper's main tables) on its
:class:`~noveval.benchmarks.Benchmark`; it does not write them itself. Whenever a run
folder's ``scores.json`` is finished — by the runner after a run (:func:`mark_folder`,
also used by every CLI command through :func:`noveval.cli.outcome.mark_complete`), by
:func:`~noveval.benchmarks._runner.score_benchmark` after re-scoring, or for scores that
were not saved (:func:`with_references`) — the keys below are added when missing:

- ``baselines``: ``{metric: [yardstick, ...]}`` from the hook, computed from the run's own
  gold (:mod:`noveval.metrics.yardsticks`); ``baselines_note``: why there is none (the
  declaration's ``no_yardsticks``, the hook's reason, or the error that stopped it);
- ``published``: the declared rows of the metrics this run reports whose ``match`` holds
  for it; ``published_note``: why there is none.

A system that re-scores a folder writes a fresh ``scores.json`` without them, so they are
computed again from the new scores (never kept stale).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from noveval.benchmarks._benchmark import Benchmark, published_rows, resolve

__all__ = ["KEYS", "attach_references", "mark_folder", "references", "with_references"]

log = logging.getLogger("noveval")

KEYS = ("baselines", "baselines_note", "published", "published_note")
"""The keys this module adds to ``scores.json``."""


def _baselines(bench: Benchmark, run_folder: Path | None, scores: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    if bench.yardsticks is None:
        return {}, bench.no_yardsticks or "the system declares no yardsticks"
    try:
        got = resolve(bench.yardsticks, bench.package)(run_folder, scores)
    except Exception as e:  # a yardstick must never cost the user the run it describes
        log.warning("%s: yardsticks not computed: %s: %s", bench.name, type(e).__name__, e)
        log.debug("yardstick traceback", exc_info=True)
        return {}, f"yardsticks could not be computed: {type(e).__name__}: {e}"
    if isinstance(got, str):
        return {}, got
    baselines = {k: v for k, v in dict(got).items() if v}
    return baselines, (None if baselines else "no yardstick applies to this run's metrics")


def references(bench: Benchmark, run_folder: Path | None, scores: dict[str, Any]) -> dict[str, Any]:
    """The four keys of :data:`KEYS` for one run's scores.

    Args:
        bench: The run's system.
        run_folder: Its folder (None: the scores were not saved; hooks that need files say so).
        scores: Its ``scores.json`` dict.
    """
    baselines, note = _baselines(bench, run_folder, scores)
    got = scores.get("metrics")
    metrics: dict[str, Any] = got if isinstance(got, dict) else {}
    rows = [r for r in published_rows(bench, scores=scores, detail=False) if r.get("metric") in metrics]
    if bench.published is None:
        pnote: str | None = bench.no_published or "the system declares no published rows"
    else:
        pnote = None if rows else "the paper reports none of this run's metrics in this setting"
    return {"baselines": baselines, "baselines_note": note, "published": rows, "published_note": pnote}


def _placed(scores: dict[str, Any], refs: dict[str, Any]) -> dict[str, Any]:
    """``scores`` with ``refs`` right after the metric header keys (before ``extra``)."""
    out: dict[str, Any] = {}
    anchor = "greater_is_better" if "greater_is_better" in scores else "metrics"
    for k, v in scores.items():
        if k in KEYS:
            continue
        out[k] = v
        if k == anchor:
            out.update(refs)
    if not all(k in out for k in KEYS):
        out.update(refs)
    return out


def with_references(scores: dict[str, Any], run_folder: str | Path | None = None, *,
                    force: bool = False) -> dict[str, Any]:
    """``scores`` with ``baselines``/``published`` (computed when missing, or always with ``force``).

    Scores of a system that is not registered (or without ``benchmark``) come back as they are.
    """
    from noveval.benchmarks import BENCHMARKS

    bench = BENCHMARKS.get(str(scores.get("benchmark"))) if isinstance(scores, dict) else None
    if bench is None or (not force and all(k in scores for k in KEYS)):
        return scores
    folder = Path(run_folder) if run_folder is not None else None
    return _placed(scores, references(bench, folder, scores))


def attach_references(run_folder: str | Path, *, force: bool = False) -> bool:
    """Add the keys to a run folder's ``scores.json`` when they are missing (atomic write).

    Returns:
        True when the file was written.
    """
    from noveval.io import read_json, write_json

    f = Path(run_folder) / "scores.json"
    if not f.is_file():
        return False
    scores = read_json(f)
    if not isinstance(scores, dict):
        return False
    done = with_references(scores, Path(run_folder), force=force)
    if done is scores:
        return False
    write_json(f, done)
    return True


def mark_folder(run_dir: str | Path, ledger: Any) -> dict[str, Any]:
    """Finish a run folder's ``scores.json``: its yardsticks and published rows, then the call outcome.

    What the runner and every command call for each folder they touched
    (:func:`noveval.runs.mark_complete` does the second part).
    """
    from noveval.runs import mark_complete

    attach_references(run_dir)
    return mark_complete(run_dir, ledger)
