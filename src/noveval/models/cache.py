"""Persistent response cache in SQLite.

The key is a SHA-256 over the canonical JSON of (model id, base URL, messages,
generation parameters incl. seed) — never the API key or any header. Only
successful responses are stored. The database runs in WAL mode with a busy
timeout, so several processes (and the concurrent requests of one process, which
all touch it from the event-loop thread) can share one file safely.

**Unusable answers are never served.** A reply that is empty, or that its system's parser
rejected (:func:`noveval.models.calls.note_answer` calls :meth:`ResponseCache.mark_unusable`),
stays in the file for the record — in ``responses`` with ``unusable = 1`` and, once a later
answer replaces it, in ``rejected`` — but :meth:`ResponseCache.get` treats it as a miss, so
every later run, in any folder, asks the model again.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

from noveval.models.chat import ChatRequest, ChatResponse
from noveval.store import SqliteStore

SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    created REAL NOT NULL,
    response TEXT NOT NULL,
    unusable INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS rejected (
    key TEXT NOT NULL,
    model TEXT NOT NULL,
    created REAL NOT NULL,
    response TEXT NOT NULL
);
"""


def cache_key(model_id: str, base_url: str | None, request: ChatRequest) -> str:
    """Return the cache key of a request (hex SHA-256). ``request.tag`` is not part of it.

    ``params.extra_body`` (``--extra-body``) is part of it when set; unset, it is left out,
    so requests without one keep the keys they had before the field existed.
    """
    params = request.params.model_dump(mode="json")
    if params.get("extra_body") is None:
        params.pop("extra_body", None)
    payload: dict[str, Any] = {
        "model": model_id,
        "base_url": base_url,
        "messages": request.messages,
        "params": params,
    }
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ResponseCache(SqliteStore):
    """A SQLite-backed map from cache key to :class:`ChatResponse` (``ResponseCache(path)``)."""

    SCHEMA = SCHEMA

    def __init__(self, path: str | Path) -> None:
        super().__init__(path)
        with self._lock:  # a cache file written before unusable answers were marked
            cols = {r[1] for r in self._conn.execute("PRAGMA table_info(responses)").fetchall()}
            if "unusable" not in cols:
                self._conn.execute("ALTER TABLE responses ADD COLUMN unusable INTEGER NOT NULL DEFAULT 0")
                self._conn.execute("UPDATE responses SET unusable=1 "
                                   "WHERE trim(coalesce(json_extract(response, '$.text'), ''))=''")

    def get(self, key: str, *, unusable: bool = False) -> ChatResponse | None:
        """Return the stored response for ``key`` (marked ``cached=True``), or None.

        An entry marked unusable (:meth:`mark_unusable`, or an empty reply) is a miss, unless
        ``unusable`` (the command that marked it reads it again: it is asked at the next run).
        """
        sql = "SELECT response FROM responses WHERE key=?" + ("" if unusable else " AND unusable=0")
        with self._lock:
            row = self._conn.execute(sql, (key,)).fetchone()
        if row is None:
            return None
        resp = ChatResponse.model_validate_json(row[0])
        return resp.model_copy(update={"cached": True, "attempts": 0})

    def put(self, key: str, model_id: str, response: ChatResponse) -> None:
        """Store a successful response (failures are never cached; an empty reply is stored unusable).

        An unusable entry it replaces moves to the ``rejected`` table (kept for the record).
        """
        if not response.ok:
            return
        blob = response.model_copy(update={"cached": False}).model_dump_json()
        empty = int(not (response.text or "").strip())
        with self._lock:
            self._conn.execute(
                "INSERT INTO rejected(key, model, created, response) "
                "SELECT key, model, created, response FROM responses WHERE key=? AND unusable=1", (key,))
            self._conn.execute(
                "INSERT OR REPLACE INTO responses(key, model, created, response, unusable) VALUES (?,?,?,?,?)",
                (key, model_id, time.time(), blob, empty),
            )

    def mark_unusable(self, keys: list[str]) -> None:
        """Mark the entries of ``keys`` unusable: kept, but :meth:`get` no longer serves them."""
        if keys:
            with self._lock:
                self._conn.executemany("UPDATE responses SET unusable=1 WHERE key=?", [(k,) for k in keys])

    def unusable_count(self) -> int:
        """Entries marked unusable, plus the rejected answers kept for the record."""
        with self._lock:
            a = self._conn.execute("SELECT COUNT(*) FROM responses WHERE unusable=1").fetchone()[0]
            b = self._conn.execute("SELECT COUNT(*) FROM rejected").fetchone()[0]
        return int(a) + int(b)

    def stats(self) -> dict[str, Any]:
        """Entries per model and the file size in bytes."""
        with self._lock:
            rows = self._conn.execute("SELECT model, COUNT(*) FROM responses GROUP BY model").fetchall()
        size = self.path.stat().st_size if self.path.exists() else 0
        return {"path": str(self.path), "entries": sum(n for _, n in rows), "by_model": dict(rows), "bytes": size}

    def clear(self, model_id: str | None = None) -> int:
        """Delete every entry (or those of one model); return how many were removed."""
        with self._lock:
            if model_id is None:
                cur = self._conn.execute("DELETE FROM responses")
                self._conn.execute("DELETE FROM rejected")
            else:
                cur = self._conn.execute("DELETE FROM responses WHERE model=?", (model_id,))
                self._conn.execute("DELETE FROM rejected WHERE model=?", (model_id,))
            self._conn.execute("VACUUM")
        return cur.rowcount


def default_cache_path() -> Path:
    """``<cache dir>/responses.sqlite`` (see :mod:`noveval.settings`)."""
    from noveval.settings import cache_dir

    return cache_dir() / "responses.sqlite"
