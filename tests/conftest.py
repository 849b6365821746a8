"""Shared fixtures: an isolated cache dir for the session and the real-data folder."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _data_dir() -> Path | None:
    env = os.environ.get("NOVEVAL_DATA_DIR")
    cand = Path(env) if env else REPO.parent / "shared" / "data"
    return cand if cand.is_dir() else None


@pytest.fixture(scope="session", autouse=True)
def _session_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every test session gets its own cache dir unless NOVEVAL_CACHE_DIR is set (CI may set it)."""
    if os.environ.get("NOVEVAL_CACHE_DIR"):
        return Path(os.environ["NOVEVAL_CACHE_DIR"])
    d = tmp_path_factory.mktemp("noveval-cache")
    os.environ["NOVEVAL_CACHE_DIR"] = str(d)
    return d


@pytest.fixture(autouse=True)
def _progress_not_quiet() -> Iterator[None]:
    """A CLI test that passes ``--quiet`` sets the progress module's quiet flag for the whole
    process (the CLI callback calls ``set_quiet``); restore it so later tests still see
    their progress lines (e.g. CLAIMCHECK's per-chunk progress after a ``-q`` CLI test)."""
    from noveval.progress import set_quiet

    set_quiet(False)
    yield
    set_quiet(False)


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The real datasets folder (``../shared/data`` or $NOVEVAL_DATA_DIR); skips when absent."""
    d = _data_dir()
    if d is None:
        pytest.skip("real data folder ../shared/data not found (set NOVEVAL_DATA_DIR to run real-data tests)")
    return d
