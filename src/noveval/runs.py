"""Run directories: everything needed to audit, resume or re-score a run.

Layout of a run directory::

    config.json       benchmark, model specs, prompt hashes, parameters, version, seed
    predictions.jsonl one row per item, the model's output (``id`` field)
    judgments.jsonl   raw judge outputs, one row per judge call or item
    per_item.jsonl    per-item metrics
    scores.json       aggregate metrics with 95% bootstrap CIs
    transcripts.jsonl one row per chat request made for an item: messages, parameters, reply

Resumability: rows are appended (and fsynced) the moment an item finishes, so a
run killed at any point keeps its finished items; re-running with the same config
skips them and redoes nothing. At the end the file is rewritten atomically in input
order, so an interrupted-then-resumed run ends byte-identical to an uninterrupted one.
A torn last line (a kill mid-write) is ignored on resume.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import datetime as _dt
import hashlib
import json
import logging
import platform
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar, runtime_checkable

from noveval._version import __version__
from noveval.errors import InputError
from noveval.io import (
    append_jsonl,
    make_dir,
    read_json,
    to_jsonable,
    write_json,
    write_jsonl,
    write_text,
)
from noveval.models.chat import ChatClientProtocol
from noveval.scores import Scores, read_scores

T = TypeVar("T")

KINDS = ("predictions", "judgments", "per_item")
_VOLATILE = {"created", "noveval_version", "python", "resumed", "timeout_s"}
_RUN_SETTINGS: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("noveval_run_settings",
                                                                                       default=None)


@contextlib.contextmanager
def run_settings(**settings: Any) -> Iterator[None]:
    """Settings that every run folder made inside records in its ``config.json`` (beside the
    system's own config): the runner's generation controls (``generation``) and ``timeout_s``.

    ``timeout_s`` is recorded but does not block a resume (it changes no answer); the others
    are compared like any setting. None values are left out.
    """
    token = _RUN_SETTINGS.set({**(_RUN_SETTINGS.get() or {}), **{k: v for k, v in settings.items() if v is not None}})
    try:
        yield
    finally:
        _RUN_SETTINGS.reset(token)


def text_sha(text: str) -> str:
    """Short SHA-256 of a text (12 hex chars): how configs identify prompt templates."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


class RunDir:
    """A run directory. Make one with :meth:`create` (new or resumed) or :meth:`open`."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    # -- creation -----------------------------------------------------------------
    @classmethod
    def create(cls, path: str | Path, config: dict[str, Any], *, overwrite: bool = False) -> RunDir:
        """Create a run directory, or resume the one there if its config matches.

        Args:
            path: The folder.
            config: Everything that determines the results (benchmark, model specs,
                prompt hashes, parameters, seed). Version/time fields are added.
            overwrite: Start afresh even if a run with another config is there.

        Raises:
            InputError: a run with a different config exists and ``overwrite`` is False.
        """
        run = cls(path)
        cfg = dict(to_jsonable({**config, **(_RUN_SETTINGS.get() or {})}))
        cfg_file = run.path / "config.json"
        if cfg_file.exists() and not overwrite:
            old = cls.check_resumable(path, cfg)
            cfg["created"] = old.get("created")
            cfg["resumed"] = int(old.get("resumed", 0)) + 1
        else:
            if overwrite and run.path.exists():
                discard_run(run.path)
            cfg["created"] = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
        cfg["noveval_version"] = __version__
        cfg["python"] = platform.python_version()
        make_dir(run.path, "--out")
        write_json(cfg_file, cfg)
        from noveval.models.calls import active_ledger

        ledger = active_ledger()
        if ledger is not None:
            ledger.enter_run(run.path)
        return run

    @staticmethod
    def check_resumable(path: str | Path, config: dict[str, Any]) -> dict[str, Any]:
        """Check, writing nothing, that :meth:`create` (without ``overwrite``) would accept ``config``.

        Args:
            path: The run folder (it may not exist yet).
            config: The run's settings.

        Returns:
            The ``config.json`` already there (empty when there is none).

        Raises:
            InputError: ``path`` holds a run with different settings (naming the first
                differing key).
        """
        cfg_file = Path(path) / "config.json"
        if not cfg_file.exists():
            return {}
        old: dict[str, Any] = read_json(cfg_file)
        diff = _config_diff(old, dict(to_jsonable({**config, **(_RUN_SETTINGS.get() or {})})))
        if diff:
            raise InputError(
                cfg_file,
                None,
                diff[0],
                "this folder holds a run with different settings "
                f"({', '.join(diff[:5])}); use another --out folder or --overwrite",
            )
        return old

    @classmethod
    def open(cls, path: str | Path) -> RunDir:
        """Open an existing run directory (must have config.json)."""
        run = cls(path)
        if not run.path.exists():
            raise InputError(run.path, None, None, "no such run folder")
        if not run.path.is_dir():
            raise InputError(run.path, None, None, "is a file, expected a run folder")
        if not (run.path / "config.json").exists():
            raise InputError(run.path, None, None, "not a run directory (no config.json)")
        return run

    # -- files ----------------------------------------------------------------------
    @property
    def config(self) -> dict[str, Any]:
        """The run's config.json."""
        return read_json(self.path / "config.json")  # type: ignore[no-any-return]

    def file(self, kind: str) -> Path:
        """Path of ``<kind>.jsonl``."""
        return self.path / f"{kind}.jsonl"

    def rows(self, kind: str) -> list[dict[str, Any]]:
        """All complete rows of ``<kind>.jsonl`` (a torn last line is skipped)."""
        f = self.file(kind)
        if not f.exists():
            return []
        out = []
        for line in f.read_text(encoding="utf-8").split("\n"):  # not splitlines(): U+2028 is valid inside JSON strings
            if not line.strip():
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # torn write from a killed process
        return out

    def done(self, kind: str = "predictions", *, key: str = "id") -> dict[str, dict[str, Any]]:
        """Rows already finished, by ``key`` (the last one wins)."""
        return {str(r[key]): r for r in self.rows(kind) if key in r}

    def append(self, kind: str, row: Any) -> None:
        """Append one finished row (fsynced). A torn last line is closed off first."""
        f = self.file(kind)
        if f.exists() and f.stat().st_size > 0:
            with open(f, "rb+") as fh:
                fh.seek(-1, 2)
                if fh.read(1) != b"\n":
                    fh.write(b"\n")
        append_jsonl(f, row)

    def drop_transcripts(self, stage: str, ids: Iterable[str]) -> None:
        """Remove the transcript rows of ``stage`` for items about to be asked again.

        :func:`run_items` calls it before its loop, so a re-run replaces an item's earlier rows
        instead of adding to them. The file is rewritten (atomically) only when a row goes or
        a torn last line (a kill mid-write) has to be closed off.
        """
        from noveval.models.calls import TRANSCRIPTS_FILE

        f = self.path / TRANSCRIPTS_FILE
        gone = set(ids)
        if not gone or not f.is_file():
            return
        text = f.read_text(encoding="utf-8")
        lines = [ln for ln in text.split("\n") if ln.strip()]
        keep = []
        for ln in lines:
            try:
                row = json.loads(ln)
            except json.JSONDecodeError:
                continue  # torn write from a killed process
            if not (isinstance(row, dict) and row.get("stage") == stage and str(row.get("item")) in gone):
                keep.append(ln)
        if len(keep) != len(lines) or (text and not text.endswith("\n")):
            write_text(f, "".join(ln + "\n" for ln in keep))

    def write(self, kind: str, rows: Iterable[Any]) -> None:
        """Atomically replace ``<kind>.jsonl``."""
        write_jsonl(self.file(kind), rows)

    def finalize(self, kind: str, order: Sequence[str], *, key: str = "id") -> list[dict[str, Any]]:
        """Rewrite ``<kind>.jsonl`` with one row per id, in ``order`` (atomic)."""
        done = self.done(kind, key=key)
        rows = [done[i] for i in order if i in done]
        self.write(kind, rows)
        return rows

    def write_scores(self, scores: dict[str, Any]) -> None:
        """Atomically write scores.json."""
        write_json(self.path / "scores.json", scores)

    @property
    def scores(self) -> dict[str, Any]:
        """scores.json (empty dict if not scored yet)."""
        f = self.path / "scores.json"
        return read_json(f) if f.exists() else {}  # type: ignore[no-any-return]


def discard_run(path: str | Path) -> None:
    """Delete a run folder's run files (``--overwrite``); other files in it are left alone.

    The command's call ledger forgets what earlier invocations spent on it.
    """
    p = Path(path)
    for name in ("config.json", "scores.json", "calls.json", "batches.json", "transcripts.jsonl",
                 *(f"{k}.jsonl" for k in KINDS)):
        (p / name).unlink(missing_ok=True)
    from noveval.models.calls import active_ledger

    if (ledger := active_ledger()) is not None:
        ledger.forget_earlier(p)


def mark_complete(run_dir: str | Path, ledger: Any) -> dict[str, Any]:
    """Write a call ledger's outcome for ``run_dir`` into its scores.json (when there is one).

    Adds ``"complete"``, ``"calls"`` and ``"cost"`` (see
    :meth:`noveval.models.calls.CallLedger.outcome`, which also keeps the failed calls not
    yet redone in ``calls.json``). Calling it again in the same invocation writes the same.

    Args:
        run_dir: The run folder.
        ledger: The command's :class:`~noveval.models.calls.CallLedger`.

    Returns:
        The outcome (``complete``, ``requests``, ``failed``, ``failed_earlier``, ``first_error``, ...).
    """
    out: dict[str, Any] = ledger.outcome(run_dir)
    f = Path(run_dir) / "scores.json"
    if f.is_file():
        scores = read_json(f)
        if isinstance(scores, dict):
            scores["complete"] = out["complete"]
            scores["calls"] = {k: v for k, v in out.items() if k not in ("complete", "cost")}
            scores["cost"] = out["cost"]
            write_json(f, scores)
    return out


def _config_diff(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    keys = (set(old) | set(new)) - _VOLATILE
    return sorted(k for k in keys if to_jsonable(old.get(k)) != to_jsonable(new.get(k)))


def _to_do(run: RunDir, kind: str, ids: list[str], retry_failed: bool,
           redo: Callable[[dict[str, Any]], bool] | None = None) -> set[str]:
    """The ids :func:`run_items` still has to run (unique ids checked; failed rows redone when asked)."""
    if len(set(ids)) != len(ids):
        dup = next(i for i in ids if ids.count(i) > 1)
        raise InputError(None, None, "id", f"duplicate item id {dup!r}: ids must be unique")
    from noveval.models.calls import refreshing

    done = run.done(kind)
    if refreshing():  # --refresh: every item is asked again, in place
        return set(ids)
    if retry_failed:
        failed = {i for i, row in done.items() if row.get("error") or row.get("unusable_answers")}
        if failed:
            logging.getLogger("noveval").info(f"{kind}: asking again for {len(failed)} item(s) recorded as failed "
                                              "or answered unusably")
        done = {i: row for i, row in done.items() if i not in failed}
    if redo is not None:  # rows made from an input that has changed since (a prediction asked again)
        done = {i: row for i, row in done.items() if not redo(row)}
    return set(ids) - set(done)


async def run_items(
    run: RunDir,
    kind: str,
    items: Sequence[T],
    worker: Callable[[T], Awaitable[dict[str, Any]]],
    *,
    id_of: Callable[[T], str],
    progress: str | None = None,
    client: ChatClientProtocol | None = None,
    concurrency: int | None = None,
    retry_failed: bool = True,
    redo: Callable[[dict[str, Any]], bool] | None = None,
) -> list[dict[str, Any]]:
    """The resumable loop: run ``worker`` on every item not yet in ``<kind>.jsonl``.

    Each finished row (which must carry ``"id": id_of(item)``) is appended at once; at the end
    the file is rewritten in input order. Model-call concurrency is bounded by the client;
    ``concurrency`` bounds how many items are open at once.

    Rows recorded as failed (``"error"``) or holding an answer no parser read
    (``"unusable_answers"``: its roles, set here from :func:`noveval.models.calls.note_answer`)
    are redone on a re-run when ``retry_failed`` is set: neither is final. Answered calls come
    from the cache and unusable answers are misses, so only those reach the model.
    ``--refresh`` redoes every item.

    When the budget stops the run (:class:`~noveval.models.costs.BudgetExceeded` from a
    worker), the items already in flight finish and are saved (no new request is
    admitted), then the error is raised: nothing that was paid for is lost.

    Args:
        run: The run directory (``transcripts.jsonl``: each item's chat requests, redone ones replaced).
        kind: ``predictions``, ``judgments`` or ``per_item``.
        items: Inputs, in order.
        worker: ``async worker(item) -> row``.
        id_of: The item's id.
        progress: Label for the progress display.
        client: A chat client whose cache hits the progress display shows.
        concurrency: Items in flight at once (default: the client's request concurrency,
            else 8). Near the request concurrency, items finish one after another, so an
            interrupted run has saved as much as possible.
        retry_failed: Redo rows whose ``error`` (or ``unusable_answers``) is set.
        redo: Redo the saved rows for which it is true (their input changed).

    Returns:
        All rows in input order (resumed ones included).
    """
    from noveval.models.calls import item_scope
    from noveval.models.costs import BudgetExceeded
    from noveval.progress import track
    ids = [str(id_of(it)) for it in items]
    left = _to_do(run, kind, ids, retry_failed, redo)  # once: it reads the rows saved so far
    todo = [(i, it) for i, it in zip(ids, items) if i in left]
    run.drop_transcripts(kind, left)
    sem = asyncio.Semaphore(concurrency or getattr(client, "concurrency", None) or 8)
    stopped: list[BudgetExceeded] = []
    with track(len(todo), progress or "", client=client) as tr:

        async def one(item_id: str, item: T) -> None:
            if stopped:
                return
            async with sem:
                if stopped:
                    return
                try:
                    with item_scope(run.path, kind, item_id) as unusable:
                        row = await worker(item)
                except BudgetExceeded as e:
                    stopped.append(e)
                    return
            row = {"id": item_id, **{k: v for k, v in row.items() if k not in ("id", "unusable_answers")}}
            if unusable:
                row["unusable_answers"] = sorted(set(unusable))
            run.append(kind, row)
            tr.advance()

        await asyncio.gather(*(one(i, it) for i, it in todo))
    rows = run.finalize(kind, ids)
    if stopped:
        raise stopped[0]
    return rows


@runtime_checkable
class RunGroup(Protocol):
    """Run folders one run made together and shows as one (``run rinobench --prompt-variants``).

    The runner marks each folder complete or incomplete like any run folder; the CLI then
    prints ``summary()`` (``--json``: ``to_dict()``) instead of one summary per folder.
    """

    @property
    def run_dirs(self) -> list[Path]:
        """The run folders."""
        ...

    def summary(self) -> str:
        """The terminal view of the whole group."""
        ...

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` view of the whole group."""
        ...


@dataclass(frozen=True)
class Run:
    """What :func:`noveval.run` returns: the run folder(s) and how the run ended.

    ``os.fspath(run)`` is its folder, so a :class:`Run` goes wherever a path does
    (``noveval.score(run)``, ``noveval.load_run(run)``, ``Path(run)``).

    Attributes:
        path: The run folder (for a group: the folder holding the group's folders).
        benchmark: The system that made it.
        complete: False when model calls failed for good or a budget stopped the run.
        folders: Every run folder written (one, or a group's several).
        stopped: Why the run stopped early (``"budget"``), else None.
        group: The group view when the run made several folders shown as one, else None.
    """

    path: Path
    benchmark: str
    complete: bool
    folders: tuple[Path, ...] = ()
    stopped: str | None = None
    group: RunGroup | None = None

    def __fspath__(self) -> str:
        return str(self.path)

    @property
    def scores(self) -> Scores:
        """The run's ``scores.json``, typed (raises :class:`InputError` when it has none)."""
        return read_scores(self.path)
