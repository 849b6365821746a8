"""``noveval data list | dir | get`` on the command line: what is shown, offline instructions, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_helpers import cli as _cli
from cli_helpers import one_line_exit_2 as _one_line_exit_2
from data_mirror import MirrorServer
from data_upstream import Upstream, checkout, rinobench_items
from noveval.data import catalog


def test_list_shows_every_dataset_with_its_facts_and_where_it_is(fixture_catalog: dict, mirror: MirrorServer,
                                                                 tmp_path: Path) -> None:
    data = tmp_path / "data"
    assert _cli("data", "get", "mred", "--to", str(data), "--mirror", mirror.url).exit_code == 0
    r = _cli("data", "list", "--json", "--data-dir", str(data))
    assert r.exit_code == 0, r.output
    rows = {row["name"]: row for row in json.loads(r.stdout)}
    assert set(rows) == set(catalog.datasets())
    assert rows["mred"]["present"] == str(data.resolve()) and rows["disapere"]["present"] is None
    assert rows["disapere"]["licence"] == "CC BY-NC 4.0" and rows["mred"]["homepage"] == "https://github.com/Shen-Chenhui/MReD"
    assert rows["neurips-reviews"]["used_by"] == ["focus", "validate", "novelty-pairs"]
    assert rows["corpus"]["used_by"] == ["novbench", "axioms", "claimcheck", "validate"]
    assert rows["rinobench"]["used_by"] == ["rinobench", "novelty-pairs"]
    for row in rows.values():  # each system's datasets module says who reads what
        assert row["size"] and row["licence"] and row["sources"] and row["title"]
    text = _cli("data", "list", "--data-dir", str(data)).stdout
    assert "missing (noveval data get disapere)" in text and f"present:   {data.resolve()}" in text


def test_dir_prints_the_folder_that_holds_the_data_and_says_which_holds_what(
        fixture_catalog: dict, mirror: MirrorServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "xdg" / "noveval"
    r = _cli("data", "dir")
    assert r.exit_code == 0 and r.stdout.strip() == str(home) and "no data folder holds any dataset" in r.stderr
    a, b = tmp_path / "a", tmp_path / "b"
    for folder, names in ((a, ["mred"]), (b, ["mred", "disapere"])):
        for name in names:
            assert _cli("data", "get", name, "--to", str(folder), "--mirror", mirror.url).exit_code == 0
    home.mkdir(parents=True)  # an empty folder first in the order (a failed data get's) is passed over
    monkeypatch.setenv("NOVEVAL_DATA_DIR", str(a))
    r = _cli("data", "dir")
    assert r.exit_code == 0 and r.stdout.strip() == str(a.resolve())  # only holder so far
    monkeypatch.setenv("NOVEVAL_DATA_DIR", str(home))  # searched: home (empty), then ../shared/data
    (tmp_path / "shared").mkdir()
    b.rename(tmp_path / "shared" / "data")
    monkeypatch.chdir(a)
    r = _cli("data", "dir")
    shared = (tmp_path / "shared" / "data").resolve()
    assert r.exit_code == 0 and r.stdout.strip() == str(shared), r.output  # the folder holding the data, not home
    assert f"{home}: no dataset" in r.stderr and f"{shared}: disapere, mred" in r.stderr
    assert "in no data folder: " in r.stderr and "corpus" in r.stderr
    assert _cli("data", "dir", "disapere").stdout.strip() == str(shared)
    r = _cli("data", "dir", "corpus")
    assert r.stdout.strip() == str(home) and "no data folder holds corpus" in r.stderr
    assert _cli("data", "dir", "--data-dir", str(a)).stdout.strip() == str(a.resolve())


def test_offline_prints_what_to_download_and_writes_nothing(fixture_catalog: dict, tmp_path: Path) -> None:
    r = _cli("data", "get", "novbench", "rinobench", "neurips-fulltext", "--offline", "--to", str(tmp_path / "d"))
    assert r.exit_code == 0, r.output
    for s in (catalog.find("novbench").sources + catalog.find("rinobench").sources):
        assert s.url in r.stdout
    assert "git clone https://github.com/djroytburg/10718peerread" in r.stdout
    assert "noveval data get novbench --from FOLDER" in r.stdout
    assert "It also needs neurips-reviews" in r.stdout
    assert not [p for p in (tmp_path / "d").rglob("*") if p.is_file()]


def test_no_network_prints_the_instructions_and_fails_in_one_line(fixture_catalog: dict, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from noveval.data import fetch

    monkeypatch.setattr(fetch, "RETRIES", 1)
    r = _cli("data", "get", "mred", "--to", str(tmp_path / "d"), "--mirror", "http://127.0.0.1:9")
    _one_line_exit_2(r, "mred: no network", "the files to download are listed above")
    assert "classification/data/val.txt" in r.stdout
    assert not (tmp_path / "d" / "labels").exists()


def test_get_all_without_network_goes_through_every_dataset_and_leaves_no_folder(
        fixture_catalog: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No network (the upstream hosts at a closed port): every dataset's instructions once, one error, no folder."""
    from noveval.data import fetch

    monkeypatch.setattr(fetch, "RETRIES", 1)
    monkeypatch.delenv("NOVEVAL_HF_DIR")  # RINoBench's splits from the hub would need the network too
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    home = tmp_path / "xdg" / "noveval"
    r = _cli("data", "get", "all", "--mirror", "http://127.0.0.1:9")
    names = list(catalog.datasets())
    _one_line_exit_2(r, "no network", "the files to download are listed above", f"these {len(names)} datasets")
    for name in names:
        assert r.stdout.count(f"noveval data get {name} --from FOLDER --to {home}\n") == 1, name
        assert name in r.stderr
    for ds in catalog.datasets().values():  # the same text as --offline: every upstream file
        for s in ds.sources[:3]:
            assert s.url in r.stdout, s.url
    assert r.stdout.index("noveval data get neurips-reviews --from") < r.stdout.index("noveval data get corpus --from")
    assert not home.exists()  # no empty data folder left first in the search order
    r = _cli("data", "get", "all", "--offline")
    assert r.exit_code == 0 and not home.exists()
    for name in names:
        assert f"noveval data get {name} --from FOLDER --to {home}" in r.stdout


def test_from_a_changed_copy_is_refused_unless_no_verify(fixture_catalog: dict, upstream: Upstream, tmp_path: Path) -> None:
    copy = checkout(upstream, "Shen-Chenhui/MReD", tmp_path)
    f = copy / "classification/data/test.txt"
    f.write_text(f.read_text() + "2019-8\tAn added line.\tweakness\n")
    r = _cli("data", "get", "mred", "--from", str(copy), "--to", str(tmp_path / "d"))
    _one_line_exit_2(r, "test.txt", "not the published file", "--no-verify")
    assert not (tmp_path / "d" / "labels").exists()
    r = _cli("data", "get", "mred", "--from", str(copy), "--to", str(tmp_path / "d"), "--no-verify")
    assert r.exit_code == 0, r.output
    import gzip

    rows = [json.loads(x) for x in gzip.open(tmp_path / "d/labels/mred-meta-review-sentences.jsonl.gz", "rt")]
    assert rows[-1]["sentence"] == "An added line." and len(rows) == 5


def test_from_loose_files_found_by_name_and_a_missing_one_named(fixture_catalog: dict, upstream: Upstream,
                                                                tmp_path: Path) -> None:
    loose = tmp_path / "downloads"
    loose.mkdir()
    for p in (upstream.repo("Shen-Chenhui/MReD") / "classification/data").iterdir():
        (loose / p.name).write_bytes(p.read_bytes())
    assert _cli("data", "get", "mred", "--from", str(loose), "--to", str(tmp_path / "d")).exit_code == 0
    (loose / "val.txt").unlink()
    r = _cli("data", "get", "mred", "--from", str(loose), "--to", str(tmp_path / "e"))
    _one_line_exit_2(r, "mred: no val.txt here", "classification/data/val.txt")


def test_rinobench_gold_from_the_hub_else_from_the_repository(fixture_catalog: dict, upstream: Upstream,
                                                             mirror: MirrorServer, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch, caplog) -> None:
    import datasets

    _, test = rinobench_items()
    hub = tmp_path / "hub" / "TimSchopf" / "RINoBench"  # a hub copy whose rows are not RINoBench items
    bad = [{**t, "novelty_score": 9} for t in test]
    datasets.DatasetDict({"train": datasets.Dataset.from_list(bad[:1]),
                          "test": datasets.Dataset.from_list(bad)}).save_to_disk(str(hub))
    monkeypatch.setenv("NOVEVAL_HF_DIR", str(tmp_path / "hub"))
    fetched = len(mirror.requests("final_benchmark_dataset/test.json"))
    r = _cli("data", "get", "rinobench", "--to", str(tmp_path / "d"), "--mirror", mirror.url)
    assert r.exit_code == 0, r.output
    assert json.loads((tmp_path / "d/rinobench/test.json").read_text()) == test  # the repository's file
    assert len(mirror.requests("final_benchmark_dataset/test.json")) == fetched + 1
    monkeypatch.setenv("NOVEVAL_HF_DIR", str(upstream.hf))
    before = len(mirror.requests("final_benchmark_dataset/test.json"))
    assert _cli("data", "get", "rinobench", "--to", str(tmp_path / "e"), "--mirror", mirror.url).exit_code == 0
    assert json.loads((tmp_path / "e/rinobench/test.json").read_text()) == test
    assert len(mirror.requests("final_benchmark_dataset/test.json")) == before  # the hub's splits were used


def test_a_dataset_already_in_another_data_folder_is_copied(fixture_catalog: dict, mirror: MirrorServer,
                                                            tmp_path: Path) -> None:
    other = tmp_path / "work" / ".." / "shared" / "data"  # ../shared/data seen from the working dir
    assert _cli("data", "get", "disapere", "--to", str(other), "--mirror", mirror.url).exit_code == 0
    r = _cli("data", "get", "disapere", "--to", str(tmp_path / "mine"), "--mirror", "http://127.0.0.1:9")
    assert r.exit_code == 0 and "copied into" in r.stdout
    assert (tmp_path / "mine/labels/disapere.jsonl.gz").read_bytes() == (other / "labels/disapere.jsonl.gz").read_bytes()
    manifest = json.loads((tmp_path / "mine/.noveval-data.json").read_text())
    assert manifest["disapere"]["copied_from"] == str(other.resolve())


def test_unknown_name_and_missing_from(fixture_catalog: dict, tmp_path: Path) -> None:
    _one_line_exit_2(_cli("data", "get", "nope", "--to", str(tmp_path)), "unknown dataset 'nope'", "mred")
    _one_line_exit_2(_cli("data", "get", "mred", "--from", str(tmp_path / "absent")), "--from: no such file")


def test_from_needs_the_required_datasets_first(fixture_catalog: dict, upstream: Upstream, tmp_path: Path) -> None:
    copy = checkout(upstream, "papercopilot/paperlists", tmp_path)
    r = _cli("data", "get", "corpus", "--from", str(copy), "--to", str(tmp_path / "d"))
    _one_line_exit_2(r, "corpus needs neurips-reviews first: noveval data get neurips-reviews")
