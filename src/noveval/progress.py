"""Progress display for long loops: done/total, rate, ETA and cache hits.

Uses ``rich`` on a terminal (stderr) and plain periodic log lines elsewhere, so CI
logs and ``--log-file`` show progress too. ``set_quiet(True)`` (the CLI's
``--quiet``) silences it.

:func:`heartbeat` guarantees a line at least every 10 s while a command works, even
when no item finishes for minutes (one long generation, a model loading, a t-SNE fit):
it repeats the innermost running tracker's status, or says what is still running.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol

log = logging.getLogger("noveval")

_QUIET = False
HEARTBEAT_S = 10.0
"""Longest silence while work runs: :func:`heartbeat` logs a line when nothing else did."""

_last_line = [0.0]  # monotonic time of the last progress line written
_active: list[Tracker] = []  # running trackers, innermost last
_bars = [0]  # rich bars on screen (they show elapsed time themselves)


def _note_line() -> None:
    _last_line[0] = time.monotonic()


def set_quiet(quiet: bool) -> None:
    """Silence (or restore) progress output for this process."""
    global _QUIET
    _QUIET = quiet


@contextmanager
def quiet() -> Iterator[None]:
    """Silence progress output inside the block (a batch's collect passes), then restore it."""
    before = _QUIET
    set_quiet(True)
    try:
        yield
    finally:
        set_quiet(before)


class _HasStats(Protocol):
    @property
    def stats(self) -> dict[str, Any]: ...


class Tracker:
    """Counts finished items; created by :func:`track`."""

    def __init__(self, total: int, label: str, client: _HasStats | None, bar: Any | None, task: Any | None) -> None:
        self.total = total
        self.label = label
        self.done = 0
        self._client = client
        self._bar = bar
        self._task = task
        self._t0 = time.monotonic()
        self._last_log = 0.0
        self._hits0 = self._hits()

    def _hits(self) -> int:
        return int(self._client.stats.get("cache_hits", 0)) if self._client is not None else 0

    def summary(self) -> str:
        """``label: done/total, rate/s, ETA, cache hits`` as one line."""
        elapsed = max(time.monotonic() - self._t0, 1e-9)
        rate = self.done / elapsed
        eta = f"{(self.total - self.done) / rate:.0f}s" if rate > 0 else "?"
        s = f"{self.label}: {self.done}/{self.total} ({rate:.2f}/s, ETA {eta}"
        if self._client is not None:
            s += f", cache hits {self._hits() - self._hits0}"
        return s + ")"

    def advance(self, n: int = 1) -> None:
        """Mark ``n`` more items as done."""
        self.done += n
        if self._bar is not None:
            elapsed = max(time.monotonic() - self._t0, 1e-9)
            desc = f"{self.label} [dim]{self.done / elapsed:.2f}/s[/dim]"
            if self._client is not None:
                desc += f" [dim](cache hits {self._hits() - self._hits0})[/dim]"
            self._bar.update(self._task, advance=n, description=desc)
        elif not _QUIET and self.label:
            now = time.monotonic()
            if now - self._last_log >= 10 or self.done == self.total:
                self._last_log = now
                log.info(self.summary())
                _note_line()


@contextmanager
def track(total: int, label: str, client: _HasStats | None = None) -> Iterator[Tracker]:
    """Show progress over ``total`` items while the block runs.

    Args:
        total: Number of items.
        label: What is being done ("novbench: generate").
        client: A chat client whose cache hits are shown alongside.
    """
    if _QUIET or total <= 0 or not label:
        yield Tracker(total, label, client, None, None)
        return
    if not sys.stderr.isatty():
        # No "starting" line: the first finished item logs "1/N", and the heartbeat reports
        # "0/N" when it takes longer than 10 s. So a run stopped by its endpoint check before
        # any item shows one line: the error.
        t = Tracker(total, label, client, None, None)
        _active.append(t)
        try:
            yield t
        finally:
            _active.remove(t)
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TaskProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TaskProgressColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        transient=False,
    ) as bar:
        task = bar.add_task(label, total=total)
        _bars[0] += 1
        try:
            yield Tracker(total, label, client, bar, task)
        finally:
            _bars[0] -= 1


@contextmanager
def heartbeat(label: str, *, every_s: float | None = None, status: Callable[[], str] | None = None) -> Iterator[None]:
    """Log a line whenever ``every_s`` seconds (default :data:`HEARTBEAT_S`) pass without one.

    The line repeats the innermost running tracker's status (done/total, rate, ETA) with
    the time it has been waiting, or says that ``label`` is still working. Silent under
    ``--quiet`` and while a terminal progress bar is on screen (it shows elapsed time).

    Args:
        label: What the block does ("demo novbench").
        every_s: Longest silence in seconds.
        status: Called for a short status appended to the line (e.g. model calls so far).
    """
    if _QUIET:
        yield
        return
    every = HEARTBEAT_S if every_s is None else every_s
    stop = threading.Event()
    t0 = time.monotonic()
    _note_line()

    def beat() -> None:
        while not stop.wait(min(1.0, every / 4)):
            now = time.monotonic()
            if now - _last_line[0] < every or _bars[0]:
                continue
            extra = ""
            if status is not None:
                try:
                    extra = f"; {status()}"
                except Exception:  # noqa: BLE001 - a status line must never break the work it reports on
                    extra = ""
            if _active:
                inner = _active[-1]
                log.info(f"{inner.summary()}; still working ({now - inner._t0:.0f}s in this step{extra})")
            else:
                log.info(f"{label}: still working ({now - t0:.0f}s{extra})")
            _note_line()

    th = threading.Thread(target=beat, name="noveval-heartbeat", daemon=True)
    th.start()
    try:
        yield
    finally:
        stop.set()
        th.join(timeout=2)
