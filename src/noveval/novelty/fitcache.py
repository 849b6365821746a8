"""Persistent store of exact metric fits keyed by input content (SQLite, WAL).

An exact SemNovel score needs one t-SNE fit per (pool, focal) set, about a second
each; the same set recurs across runs (another ``--out``, another metric subset, a
resumed or interrupted run). Keys are content hashes of the fitted matrix plus the
metric settings (:func:`noveval.novelty.semnovel.content_key`), so a hit returns the
number the fit would give, bit for bit. Several processes may share one file.
"""

from __future__ import annotations

from noveval.settings import cache_dir
from noveval.store import SqliteStore


class FitCache(SqliteStore):
    """Map ``key -> float`` in a SQLite file (``FitCache(path)``; ``in``, ``[]``, ``[]=``, ``len``)."""

    SCHEMA = "CREATE TABLE IF NOT EXISTS fits (key TEXT PRIMARY KEY, value REAL NOT NULL);"

    def get(self, key: str) -> float | None:
        """The stored value, or None."""
        with self._lock:
            row = self._conn.execute("SELECT value FROM fits WHERE key=?", (key,)).fetchone()
        return None if row is None else float(row[0])

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    def __getitem__(self, key: str) -> float:
        v = self.get(key)
        if v is None:
            raise KeyError(key)
        return v

    def __setitem__(self, key: str, value: float) -> None:
        with self._lock:
            self._conn.execute("INSERT OR REPLACE INTO fits (key, value) VALUES (?, ?)", (key, float(value)))

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM fits").fetchone()[0])


def default_fit_cache() -> FitCache:
    """The fit cache under the noveval cache root (``$NOVEVAL_CACHE_DIR/novelty_fits.sqlite``)."""
    return FitCache(cache_dir() / "novelty_fits.sqlite")
