"""Persistent response cache in SQLite.

The key is a SHA-256 over the canonical JSON of (model id, base URL, messages,
generation parameters incl. seed) — never the API key or any header. Only
successful responses are stored. The database runs in WAL mode with a busy
timeout, so several processes (and the concurrent requests of one process, which
all touch it from the event-loop thread) can share one file safely.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

from noveval.io import SqliteStore, open_db  # noqa: F401  (open_db re-exported: the SQLite opener moved below the models)
from noveval.models.chat import ChatRequest, ChatResponse

SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
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

    def get(self, key: str) -> ChatResponse | None:
        """Return the stored response for ``key`` (marked ``cached=True``), or None."""
        with self._lock:
            row = self._conn.execute("SELECT response FROM responses WHERE key=?", (key,)).fetchone()
        if row is None:
            return None
        resp = ChatResponse.model_validate_json(row[0])
        return resp.model_copy(update={"cached": True, "attempts": 0})

    def put(self, key: str, model_id: str, response: ChatResponse) -> None:
        """Store a successful response (failures are never cached)."""
        if not response.ok:
            return
        blob = response.model_copy(update={"cached": False}).model_dump_json()
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO responses(key, model, created, response) VALUES (?,?,?,?)",
                (key, model_id, time.time(), blob),
            )

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
            else:
                cur = self._conn.execute("DELETE FROM responses WHERE model=?", (model_id,))
            self._conn.execute("VACUUM")
        return cur.rowcount


def default_cache_path() -> Path:
    """``<cache dir>/responses.sqlite`` (see :mod:`noveval.settings`)."""
    from noveval.settings import cache_dir

    return cache_dir() / "responses.sqlite"
