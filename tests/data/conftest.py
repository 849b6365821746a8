"""Fixtures of the data tests: the upstream fixture repositories, their mirror, the patched catalogue.

Every test here runs in a temporary working directory, so ``../shared/data`` is not visible,
with ``NOVEVAL_DATA_DIR`` unset and the user data dir pointed into the temporary folder.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from data_mirror import MirrorServer
from data_upstream import Upstream, build, patched
from noveval.data import catalog


@pytest.fixture(scope="session")
def upstream(tmp_path_factory: pytest.TempPathFactory) -> Upstream:
    """Every dataset's upstream files, committed with git and laid out as a mirror (built once)."""
    return build(tmp_path_factory.mktemp("upstream"), catalog.datasets())


@pytest.fixture(scope="session")
def mirror(upstream: Upstream) -> Iterator[MirrorServer]:
    """A real HTTP server on 127.0.0.1 serving the mirror folder."""
    with MirrorServer(upstream.mirror) as m:
        yield m


@pytest.fixture
def fixture_catalog(upstream: Upstream, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict:
    """The catalogue with the fixture files' checksums, an isolated working dir and user data dir."""
    real = catalog._collect()
    table = patched(real[0], upstream)
    monkeypatch.setattr(catalog, "_collect", lambda: (table, real[1]))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)  # no ../shared/data from here
    monkeypatch.delenv("NOVEVAL_DATA_DIR", raising=False)
    monkeypatch.delenv("NOVEVAL_DATA_MIRROR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("NOVEVAL_HF_DIR", str(upstream.hf))
    return table
