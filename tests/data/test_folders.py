"""Where datasets are looked for: --data-dir, $NOVEVAL_DATA_DIR, the user data dir, ../shared/data."""

from __future__ import annotations

from pathlib import Path

import pytest

from noveval import settings


@pytest.fixture
def folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    work = tmp_path / "work"
    made = {"explicit": tmp_path / "explicit", "env": tmp_path / "env", "user": tmp_path / "xdg" / "noveval",
            "shared": tmp_path / "shared" / "data"}
    for p in [work, *made.values()]:
        p.mkdir(parents=True)
    monkeypatch.chdir(work)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("NOVEVAL_DATA_DIR", str(made["env"]))
    return made


def test_search_order_and_the_first_holding_a_file(folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    f = folders
    assert settings.data_dirs(f["explicit"]) == [f["explicit"], f["env"], f["user"], f["shared"].resolve()]
    assert settings.data_dir() == f["env"] and settings.data_home() == f["env"]
    (f["shared"] / "corpus").mkdir()
    (f["shared"] / "corpus" / "papers.jsonl.gz").write_bytes(b"")
    assert settings.find_data_file("corpus/papers.jsonl.gz") == f["shared"].resolve() / "corpus/papers.jsonl.gz"
    monkeypatch.delenv("NOVEVAL_DATA_DIR")
    assert settings.data_home() == f["user"] and settings.data_dir() == f["user"]
    f["user"].rmdir()
    assert settings.data_dir() == f["shared"].resolve() and settings.data_dirs(f["env"])[0] == f["env"]
    f["shared"].joinpath("corpus/papers.jsonl.gz").unlink()
    f["shared"].joinpath("corpus").rmdir()
    f["shared"].rmdir()
    assert settings.data_dir() is None and settings.find_data_file("corpus/papers.jsonl.gz") is None


def test_axioms_reads_the_folder_data_get_fills(folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    from noveval.benchmarks.axioms.contract import input_paths
    from noveval.benchmarks.axioms.options import AxiomsOptions

    monkeypatch.delenv("NOVEVAL_DATA_DIR")
    for d in (folders["user"], folders["shared"]):
        (d / "corpus").mkdir()
        (d / "corpus" / "papers.jsonl.gz").write_bytes(b"")
    assert input_paths(AxiomsOptions())[0] == folders["user"] / "corpus" / "papers.jsonl.gz"
    (folders["user"] / "corpus" / "papers.jsonl.gz").unlink()
    (folders["user"] / "corpus").rmdir()
    folders["user"].rmdir()
    assert input_paths(AxiomsOptions())[0] == Path("../shared/data/corpus/papers.jsonl.gz")  # as given
