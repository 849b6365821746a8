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

Each published row names the ``dataset`` it was measured on, the ``data_file`` that holds
that dataset in a noveval data folder (absent: not public) and its ``protocol`` (issue 37);
each yardstick is on the run's own items (:data:`OWN_ITEMS`). What is shown beside a model
is only what is comparable with its run (:func:`run_data`, :func:`split_comparable`): the
same data file and protocol; the rest is folded under "other data" with its dataset named
(:func:`other_data_text`). A run on the shipped samples (invented items) has no comparable
published row.

A system that re-scores a folder writes a fresh ``scores.json`` without them, so they are
computed again from the new scores (never kept stale).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from noveval.benchmarks._benchmark import Benchmark, load, published_rows
from noveval.io import read_json, write_json
from noveval.runs import mark_complete

__all__ = ["INVENTED", "KEYS", "OWN_ITEMS", "RunData", "attach_references", "comparable", "mark_folder",
           "other_data_text", "published_label", "references", "run_data", "split_comparable", "with_declared_data",
           "with_references"]

log = logging.getLogger("noveval")

KEYS = ("baselines", "baselines_note", "published", "published_note")
"""The keys this module adds to ``scores.json``."""


OWN_ITEMS = "the run's own items"
"""The ``dataset`` of every yardstick: it is computed from the run's own gold, so it is always comparable."""
INVENTED = "invented sample items — not an evaluation"
"""What a table of runs on the shipped samples says first."""


@dataclass(frozen=True)
class RunData:
    """The data and protocol one run ran on: what a published row must share to stand beside it.

    Attributes:
        files: The data paths the run read (the path values of its ``config.json``).
        sample: True when it ran on the shipped samples (invented items).
        protocol: ``paper`` or ``noveval`` (the eval's ``--protocol``); None: not recorded.
    """

    files: tuple[str, ...]
    sample: bool
    protocol: str | None


def _paths(obj: Any) -> Iterable[str]:
    """The string values of a config that look like file paths (any depth)."""
    if isinstance(obj, dict):
        for v in obj.values():
            yield from _paths(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _paths(v)
    elif isinstance(obj, str) and "/" in obj and "://" not in obj and "\n" not in obj:
        yield obj.replace("\\", "/")


def run_data(config: dict[str, Any], *, protocol: str | None, sample: bool | None = None) -> RunData:
    """What a run ran on, from its ``config.json`` (pure).

    Args:
        config: The run's ``config.json`` dict.
        protocol: The eval's protocol (``paper`` / ``noveval``; None: unknown).
        sample: True/False when the caller knows (an eval's ``data`` is ``"sample"``); None:
            True when a data path of the config lies in noveval's shipped ``samples`` folder.
    """
    samples = str(Path(__file__).resolve().parents[1] / "samples").replace("\\", "/") + "/"
    files = tuple(dict.fromkeys(_paths(config)))
    if sample is None:
        sample = any(f.startswith(samples) for f in files)
    return RunData(files, bool(sample), protocol)


def comparable(row: dict[str, Any], data: RunData) -> bool:
    """A published row or yardstick may stand beside a run's value: the same data and protocol.

    A yardstick (``dataset`` :data:`OWN_ITEMS`) always may; a published row only when the run
    is not on the samples, one of its data paths ends with the row's ``data_file`` and the
    row's ``protocol`` is the run's (a row without ``data_file``: its dataset is not public).
    """
    if row.get("dataset") == OWN_ITEMS:
        return True
    want = row.get("data_file")
    if data.sample or not isinstance(want, str) or not want:
        return False
    if row.get("protocol") and data.protocol is not None and row.get("protocol") != data.protocol:
        return False
    return any(f == want or f.endswith("/" + want) for f in data.files)


def split_comparable(rows: Iterable[dict[str, Any]], data: RunData) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``rows`` as (comparable with the run, the rest), each in order."""
    same: list[dict[str, Any]] = []
    other: list[dict[str, Any]] = []
    for r in rows:
        (same if comparable(r, data) else other).append(r)
    return same, other


def with_declared_data(system: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` (a ``scores.json``'s published rows) with ``dataset``, ``data_file`` and ``protocol``
    taken from the system's declaration where missing (scores written before rows carried them)."""
    from noveval.benchmarks import BENCHMARKS

    bench = BENCHMARKS.get(system)
    if bench is None or all("dataset" in r for r in rows):
        return rows

    def key(r: dict[str, Any]) -> tuple[Any, ...]:
        return r.get("model"), r.get("setting"), r.get("metric"), r.get("table")

    declared = {key(r): r for r in published_rows(bench)}
    out: list[dict[str, Any]] = []
    for r in rows:
        d: dict[str, Any] = declared.get(key(r)) or {}
        facts: dict[str, Any] = {k: d[k] for k in ("dataset", "data_file", "protocol") if k in d}
        out.append({**facts, **r})
    return out


def published_label(row: dict[str, Any]) -> str:
    """A published row's name with its table and dataset: ``GPT-4o · Table 4, NovBench COLING 2020``."""
    where = ", ".join(str(x) for x in (row.get("table"), row.get("dataset")) if x)
    return " · ".join(str(x) for x in (row.get("model"), where) if x)


def other_data_text(rows: Iterable[dict[str, Any]]) -> str:
    """The folded rows by dataset: ``22 rows of NovBench (EMNLP 2023, not public) (Table 2, protocol paper)``."""
    groups: dict[tuple[str, str], int] = {}
    for r in rows:
        key = (str(r.get("dataset") or "an unnamed dataset"),
               ", ".join(str(x) for x in (r.get("table"), r.get("protocol") and f"protocol {r['protocol']}") if x))
        groups[key] = groups.get(key, 0) + 1
    return "; ".join(f"{n} row{'s' if n != 1 else ''} of {ds}" + (f" ({how})" if how else "")
                     for (ds, how), n in groups.items())


def _baselines(bench: Benchmark, run_folder: Path | None, scores: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    if bench.yardsticks is None:
        return {}, bench.no_yardsticks or "the system declares no yardsticks"
    try:
        got = load(bench.yardsticks)(run_folder, scores)
    except Exception as e:  # a yardstick must never cost the user the run it describes
        log.warning("%s: yardsticks not computed: %s: %s", bench.name, type(e).__name__, e)
        log.debug("yardstick traceback", exc_info=True)
        return {}, f"yardsticks could not be computed: {type(e).__name__}: {e}"
    if isinstance(got, str):
        return {}, got
    baselines = {k: [{**y, "dataset": y.get("dataset") or OWN_ITEMS} if isinstance(y, dict) else y for y in v]
                 for k, v in dict(got).items() if v}
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
    attach_references(run_dir)
    return mark_complete(run_dir, ledger)
