"""SQLite files shared safely by threads and processes: the base of every cache.

:func:`open_db` opens (creating folders and the schema) a SQLite file in WAL mode;
:class:`SqliteStore` holds one such connection with the lock that guards it. The response
cache (:mod:`noveval.models.cache`), the vector cache (:mod:`noveval.models.embed`), the fit
cache (:mod:`noveval.novelty.fitcache`) and ``noveval check``'s metric cache build on them.

Pure: the standard library only.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

__all__ = ["SqliteStore", "open_db"]


def open_db(path: str | Path, schema: str) -> sqlite3.Connection:
    """Open (creating folders and ``schema``) a SQLite file shared safely by threads and processes.

    WAL journal, NORMAL sync, 60 s busy timeout, autocommit; guard the connection with
    a lock when several threads use it. Used by the response, vector and fit caches.
    """
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(Path(path), timeout=60, check_same_thread=False, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA busy_timeout=60000")
    conn.executescript(schema)
    return conn


class SqliteStore:
    """A SQLite file opened by :func:`open_db`, with the lock that guards its connection.

    The base of the response, vector and fit caches: a subclass sets ``SCHEMA`` and runs
    its queries on ``self._conn`` while holding ``self._lock``.

    Args:
        path: Database file; parent folders are created.
    """

    SCHEMA = ""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._conn = open_db(self.path, self.SCHEMA)

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._conn.close()
