"""``noveval eval`` is loud (issue 34): no system to run is an error naming the folders searched, a failed
eval leaves no folder, ``--only`` adds to the table, a half-done run shows as incomplete.

Models are real HTTP servers on 127.0.0.1 (tests/fake_openai.py) scripted from the samples' gold; a dead
endpoint is the same address after its server stopped.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_helpers import cli
from fake_openai import FakeOpenAIServer
from noveval.benchmarks import BENCHMARKS

from .scripted_models import responder

MODEL_SYSTEMS = [n for n, b in BENCHMARKS.items() if b.suite is not None]


def _rows(out: Path) -> dict[str, dict]:
    return {r["run"]: r for r in json.loads((out / "eval.json").read_text(encoding="utf-8"))["rows"]}


def test_no_data_anywhere_exits_2_naming_the_folders_searched_and_what_each_system_needs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty, work = tmp_path / "empty", tmp_path / "work"
    empty.mkdir()
    work.mkdir()
    monkeypatch.chdir(work)  # no ../shared/data
    monkeypatch.setenv("NOVEVAL_DATA_DIR", str(empty))  # a data folder that holds none of the data
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    spec = "openai-compatible/m@http://127.0.0.1:9/v1"  # never asked: nothing runs
    r = cli("eval", "-m", spec, "-o", str(tmp_path / "ev"))
    assert r.exit_code == 2, r.output
    err = r.stderr
    assert err.startswith("error: no system can run on the data found (searched: ")
    assert str(empty.resolve()) in err and f"{tmp_path / 'xdg' / 'noveval'} (no such folder)" in err
    assert f"{(work / '..' / 'shared' / 'data').resolve()} (no such folder)" in err
    for name in MODEL_SYSTEMS:  # each system's line: the file it needs, in the first folder searched
        assert f"\n  {name}: " in err, name
    assert f"{empty.resolve() / 'novbench' / 'coling2020.json'} not found" in err
    assert "noveval data get NAME" in err and "--sample runs the shipped samples" in err
    assert not (tmp_path / "ev").exists()
    r = cli("eval", "-m", spec, "--data-dir", str(empty), "--only", "novelty-pairs", "-o", str(tmp_path / "ev"))
    assert r.exit_code == 2 and f"(searched: {empty.resolve()})" in r.stderr and "\n  novelty-pairs: " in r.stderr
    assert "\n  focus: " not in r.stderr and not (tmp_path / "ev").exists()


def test_a_dead_endpoint_leaves_no_folder_and_an_earlier_eval_as_it_was(tmp_path: Path) -> None:
    out = tmp_path / "ev"
    with FakeOpenAIServer(responder=responder("oracle")) as server:
        spec, port = f"openai-compatible/m@{server.base_url}", server.port
        first = cli("eval", "-m", spec, "--sample", "--only", "novelty-pairs", "-o", str(out / "a"))
        assert first.exit_code == 0, first.output
    before = (out / "a" / "eval.json").read_bytes()
    dead = cli("eval", "-m", spec, "--sample", "--only", "novelty-pairs", "-o", str(out / "b"))  # server gone
    assert dead.exit_code == 2 and f"127.0.0.1:{port}" in dead.stderr, dead.output
    assert not (out / "b").exists()
    dead = cli("eval", "-m", spec, "--sample", "--only", "rinobench", "-o", str(out / "a"))
    assert dead.exit_code == 2, dead.output
    assert (out / "a" / "eval.json").read_bytes() == before and not (out / "a" / "rinobench").exists()


def test_only_adds_to_the_table_and_a_half_done_run_shows_as_incomplete(tmp_path: Path) -> None:
    from noveval.benchmarks._suite import read_eval
    from noveval.cli.eval import format_eval

    out = tmp_path / "ev"
    with FakeOpenAIServer(responder=responder("oracle")) as server:
        spec = f"openai-compatible/m@{server.base_url}"
        r = cli("eval", "-m", spec, "--sample", "--only", "novelty-pairs,axioms", "-o", str(out))
        assert r.exit_code == 0, r.output
        r = cli("eval", "-m", spec, "--sample", "--only", "rinobench", "-o", str(out))
        assert r.exit_code == 0, r.output
    rows = _rows(out)
    assert {k: (v["status"], v["mean"]) for k, v in rows.items()} == {"rinobench": ("complete", pytest.approx(0.8)),
                                                                      "novelty-pairs": ("complete", 1.0)}
    skipped = json.loads((out / "eval.json").read_text(encoding="utf-8"))["skipped"]
    assert [s["system"] for s in skipped] == ["axioms"] and "not a chat model" in skipped[0]["reason"]
    assert "novelty-pairs  accuracy ↑  1.000" in r.stdout and "not run: axioms: " in r.stdout
    # the pairs run is half-done: its scores.json says so (a run killed or re-run into the folder since)
    f = out / "novelty-pairs" / "scores.json"
    scores = json.loads(f.read_text(encoding="utf-8"))
    f.write_text(json.dumps({**scores, "complete": False}), encoding="utf-8")
    row = next(x for x in read_eval(out).rows if x.run == "novelty-pairs")
    assert row.status == "incomplete" and "half-done" in row.message and "complete: false" in row.message
    (out / "rinobench" / "scores.json").unlink()  # killed before it scored
    text = format_eval(read_eval(out))
    assert "  rinobench: incomplete: " in text and "no scores.json" in text
    assert [x.status for x in read_eval(out).rows] == ["incomplete", "incomplete"]


def test_a_half_done_run_is_incomplete_in_the_leaderboard_and_not_tested(tmp_path: Path) -> None:
    from noveval.compare.leaderboard import format_leaderboard, model_leaderboard

    folders = {}
    for name, kind in (("Qwen2.5-7B-Instruct", "oracle"), ("Llama-3.1-8B-Instruct", "constant")):
        with FakeOpenAIServer(responder=responder(kind)) as server:
            folders[name] = tmp_path / name
            r = cli("eval", "-m", f"openai-compatible/{name}@{server.base_url}", "--sample", "--only",
                    "novelty-pairs", "-o", str(folders[name]))
            assert r.exit_code == 0, r.output
    board = model_leaderboard(list(folders.values()), n_resamples=200, n_permutations=200)
    cell = board.cell("Llama-3.1-8B-Instruct", "novelty-pairs")
    assert cell is not None and cell.test is not None  # complete: tested
    (folders["Llama-3.1-8B-Instruct"] / "novelty-pairs" / "scores.json").unlink()  # killed midway
    board = model_leaderboard(list(folders.values()), n_resamples=200, n_permutations=200)
    cell = board.cell("Llama-3.1-8B-Instruct", "novelty-pairs")
    assert cell is not None and cell.status == "incomplete" and cell.test is None and "half-done" in (cell.note or "")
    text = format_leaderboard(board)
    assert "– (incomplete)" in text and "not a result" in text
