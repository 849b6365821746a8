"""Where datasets are looked for (--data-dir, $NOVEVAL_DATA_DIR, the user data dir, ../shared/data), and which\nfolder a system reads: the first that holds its files (noveval.data.folders.data_folder)."""

from __future__ import annotations

import shutil
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


def _put(folder: Path, *files: str) -> None:
    for rel in files:
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(b"")


def test_search_order_and_the_first_holding_a_file(folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    from noveval.data.folders import data_folder, searched, searched_text

    f = folders
    assert settings.data_dirs(f["explicit"]) == [f["explicit"], f["env"], f["user"], f["shared"].resolve()]
    assert searched() == [f["env"], f["user"], Path.cwd() / ".." / "shared" / "data"] and settings.data_home() == f["env"]
    assert searched(f["explicit"]) == [f["explicit"]]  # --data-dir: that folder alone
    # every folder exists, none holds the file: none is the data folder (not the first that exists)
    assert data_folder(["corpus/papers.jsonl.gz"]) is None
    _put(f["shared"], "corpus/papers.jsonl.gz")
    assert data_folder(["corpus/papers.jsonl.gz"]) == f["shared"].resolve()  # past the empty env and user folders
    _put(f["user"], "reviews/neurips-2025.jsonl.gz", "corpus/papers.jsonl.gz")
    assert data_folder(["corpus/papers.jsonl.gz"]) == f["user"]
    assert data_folder(["reviews/neurips-2025.jsonl.gz", "novbench/coling2020.json"]) is None  # every file, one folder
    assert data_folder([]) == f["env"]  # nothing needed: the first that exists
    assert data_folder(lambda d: d.name == "data") == f["shared"].resolve()
    assert data_folder(["corpus/papers.jsonl.gz"], f["explicit"]) is None  # the given folder lacks it: no fallback
    _put(f["explicit"], "corpus/papers.jsonl.gz")
    assert data_folder(["corpus/papers.jsonl.gz"], f["explicit"]) == f["explicit"]
    monkeypatch.delenv("NOVEVAL_DATA_DIR")
    assert settings.data_home() == f["user"] and searched()[0] == f["user"]
    text = searched_text(f["env"] / "gone")
    assert text == f"searched: {(f['env'] / 'gone').resolve()} (no such folder)"


def test_validate_reads_the_folder_that_holds_its_files(folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty data folder first in the order (a failed data get's) is passed over: validate's quick command works."""
    from noveval.benchmarks.validate.contract import inputs
    from noveval.benchmarks.validate.options import ValidateOptions
    from noveval.errors import InputError

    with pytest.raises(InputError) as e:
        inputs(ValidateOptions())
    msg = str(e.value)
    assert "no data folder holds reviews/neurips-2025.jsonl.gz and corpus/papers.jsonl.gz" in msg
    assert str(folders["env"]) in msg and str(folders["user"]) in msg and "noveval data get neurips-reviews corpus" in msg
    _put(folders["shared"], "reviews/neurips-2025.jsonl.gz", "corpus/papers.jsonl.gz")
    _put(folders["env"], "corpus/papers.jsonl.gz")  # the env folder holds only one of the two
    shared = folders["shared"].resolve()
    assert inputs(ValidateOptions()) == (shared / "reviews/neurips-2025.jsonl.gz", shared / "corpus/papers.jsonl.gz")
    own = folders["explicit"] / "mine.jsonl"
    assert inputs(ValidateOptions(reviews=own))[1] == folders["env"] / "corpus/papers.jsonl.gz"  # needs the corpus only


def test_axioms_reads_the_folder_data_get_fills(folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    from noveval.benchmarks.axioms.contract import input_paths
    from noveval.benchmarks.axioms.options import AxiomsOptions

    monkeypatch.delenv("NOVEVAL_DATA_DIR")
    for d in (folders["user"], folders["shared"]):
        _put(d, "corpus/papers.jsonl.gz", "fulltext/neurips-2025-fulltext.jsonl.gz")
    assert input_paths(AxiomsOptions())[0] == folders["user"] / "corpus" / "papers.jsonl.gz"
    (folders["user"] / "fulltext" / "neurips-2025-fulltext.jsonl.gz").unlink()  # the user folder lacks the full texts
    assert input_paths(AxiomsOptions())[0] == folders["shared"].resolve() / "corpus" / "papers.jsonl.gz"
    assert input_paths(AxiomsOptions(fulltext=Path("ft.jsonl")))[0] == folders["user"] / "corpus" / "papers.jsonl.gz"
    for d in (folders["user"], folders["shared"]):
        shutil.rmtree(d)
    from noveval.errors import InputError

    with pytest.raises(InputError, match="corpus not found"):  # no folder holds it: the message names the default
        input_paths(AxiomsOptions())
