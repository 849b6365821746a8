"""Where noveval keeps its caches and looks for data. No other global state.

Environment variables (all optional):

- ``NOVEVAL_CACHE_DIR``: root of the response cache, vector cache and expanded
  models (default: the platform's user cache dir, e.g. ``~/.cache/noveval``).
- ``NOVEVAL_DATA_DIR``: the real-datasets folder. ``noveval data get`` writes there, and
  every command reads from there first (default: the folder noveval manages, the
  platform's user data dir, e.g. ``~/.local/share/noveval``).

Datasets are looked for in ``--data-dir``, then ``$NOVEVAL_DATA_DIR``, then the user data
dir, then ``../shared/data`` relative to the working directory (the project's machines):
:func:`data_candidates` lists them, :func:`data_dirs` the ones that exist. Which one a system
reads (the first that holds its files) is :func:`noveval.data.folders.data_folder`.
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


def user_data_dir() -> Path:
    """The folder noveval manages for datasets: the platform's user data dir (not created here)."""
    from platformdirs import user_data_dir as _user_data_dir

    return Path(_user_data_dir("noveval"))


def data_home() -> Path:
    """Where ``noveval data get`` writes by default: ``$NOVEVAL_DATA_DIR``, else :func:`user_data_dir`."""
    env = os.environ.get("NOVEVAL_DATA_DIR")
    return Path(env) if env else user_data_dir()


def data_candidates(explicit: str | Path | None = None) -> list[Path]:
    """The data folders looked in, in order, existing or not: ``explicit`` (``--data-dir``),
    ``$NOVEVAL_DATA_DIR``, the user data dir, ``../shared/data`` (from the working directory)."""
    raw = [explicit, os.environ.get("NOVEVAL_DATA_DIR"), user_data_dir(), Path.cwd() / ".." / "shared" / "data"]
    return [Path(c) for c in raw if c]


def data_dirs(explicit: str | Path | None = None) -> list[Path]:
    """Every data folder that exists, in the order they are searched (no duplicates).

    Order: ``explicit`` (``--data-dir``), ``$NOVEVAL_DATA_DIR``, the user data dir,
    ``../shared/data``.
    """
    out: list[Path] = []
    for c in data_candidates(explicit):
        if c.is_dir() and c.resolve() not in out:
            out.append(c.resolve())
    return out
