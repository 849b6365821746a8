"""Pinned upstream files, read from package data (``paperlists_pins.json``)."""

from __future__ import annotations

import json
from importlib import resources

__all__ = ["paperlists_pins"]


def paperlists_pins() -> tuple[str, tuple[tuple[str, str, int | None, str | None], ...]]:
    """``(commit, files)`` of papercopilot/paperlists the corpus is built from.

    ``files``: one ``(path, git blob id, size in bytes or None, sha256 or None)`` per
    conference-year file at the pinned commit (docs/data.md).
    """
    data = json.loads(resources.files("noveval.data").joinpath("paperlists_pins.json").read_text(encoding="utf-8"))
    return str(data["commit"]), tuple((str(p), str(b), n, h) for p, b, n, h in data["files"])
