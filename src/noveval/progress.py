"""Progress display for long loops: done/total, rate, ETA and cache hits.

Uses ``rich`` on a terminal (stderr) and plain periodic log lines elsewhere, so CI
logs and ``--log-file`` show progress too. ``set_quiet(True)`` (the CLI's
``--quiet``) silences it.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol

log = logging.getLogger("noveval")

_QUIET = False


def set_quiet(quiet: bool) -> None:
    """Silence (or restore) progress output for this process."""
    global _QUIET
    _QUIET = quiet


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
        eta = (self.total - self.done) / rate if rate > 0 else float("nan")
        s = f"{self.label}: {self.done}/{self.total} ({rate:.2f}/s, ETA {eta:.0f}s"
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
        t = Tracker(total, label, client, None, None)
        log.info(f"{label}: starting {total} items")
        yield t
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
        yield Tracker(total, label, client, bar, task)
