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


def test_dir_prints_the_folder_commands_read(fixture_catalog: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    r = _cli("data", "dir")
    assert r.exit_code == 0 and r.stdout.strip() == str(tmp_path / "xdg" / "noveval") and "no data folder yet" in r.stderr
    monkeypatch.setenv("NOVEVAL_DATA_DIR", str(tmp_path))
    assert _cli("data", "dir").stdout.strip() == str(tmp_path.resolve())


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
