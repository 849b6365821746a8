"""Where noveval keeps its caches and looks for data. No other global state.

Environment variables (all optional):

- ``NOVEVAL_CACHE_DIR``: root of the response cache, vector cache and expanded
  models (default: the platform's user cache dir, e.g. ``~/.cache/noveval``).
- ``NOVEVAL_DATA_DIR``: the real datasets folder (default: ``../shared/data``
  relative to the working directory, when it exists).
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """Return the cache root, creating it if needed."""
    env = os.environ.get("NOVEVAL_CACHE_DIR")
    if env:
        root = Path(env)
    else:
        from platformdirs import user_cache_dir

        root = Path(user_cache_dir("noveval"))
    root.mkdir(parents=True, exist_ok=True)
    return root


def data_dir(explicit: str | Path | None = None) -> Path | None:
    """Return the real-data folder if it exists (explicit > env > ``../shared/data``)."""
    candidates = [explicit, os.environ.get("NOVEVAL_DATA_DIR"), Path.cwd() / ".." / "shared" / "data"]
    for c in candidates:
        if c and Path(c).is_dir():
            return Path(c).resolve()
    return None
