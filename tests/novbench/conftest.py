"""Fixtures for NovBench tests: where the shared NovBench files are."""

import os
from pathlib import Path

import pytest


def _fallback_data_dir() -> Path | None:
    env = os.environ.get("NOVEVAL_DATA_DIR")
    cands = [Path(env)] if env else []
    cands.append(Path(__file__).resolve().parents[2] / ".." / "shared" / "data")
    for c in cands:
        if c.is_dir():
            return c.resolve()
    return None


@pytest.fixture(scope="session")
def novbench_dir(request) -> Path:
    """``<data>/novbench``; skips (with the reason) when the shared data is absent."""
    try:
        root = Path(request.getfixturevalue("data_dir"))
    except pytest.FixtureLookupError:
        root = _fallback_data_dir()
    if root is None or not (root / "novbench").is_dir():
        pytest.skip("shared NovBench data (../shared/data/novbench) not found; set NOVEVAL_DATA_DIR")
    return root / "novbench"
