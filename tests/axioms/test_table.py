"""``noveval axioms table``: Table 2 over several run folders of one benchmark, hand-computed."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from noveval.benchmarks.axioms.axioms import AXIOMS
from noveval.benchmarks.axioms.contract import combined_table
from noveval.cli.main import app
from noveval.errors import InputError

CONFIG = {"n_focal": 100, "seed": 0, "embedder": "local", "paraphrase_model": "local", "rnd_p": 100, "rnd_q": 50,
          "semnovel_mode": "exact", "semnovel_metric": "cosine", "semnovel_seeds": 2, "n_jobs": 1}


def _checks(**given: bool | None) -> dict:
    return {a: given.get(a.replace("<", "_lt_")) for a in AXIOMS}


def _row(rid: str, task: str, field: str, yin: dict, sem: dict[str, dict]) -> dict:
    return {"id": rid, "task": task, "field": field, "scores": {}, "checks": {"Yin": yin, "SemNovel": sem["0"]},
            "by_seed": {"SemNovel": {s: {"scores": {}, "checks": c} for s, c in sem.items()}}}


def _run(folder: Path, rows: list[dict], tasks: list[str], **conf) -> Path:
    folder.mkdir()
    cfg = {**CONFIG, "tasks": [{"name": t} for t in tasks], "metrics": ["Yin", "SemNovel"], **conf}
    (folder / "config.json").write_text(json.dumps({"benchmark": "axioms", "config": cfg}))
    (folder / "per_item.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return folder


def _two_runs(tmp_path: Path, **b_conf) -> tuple[Path, Path]:
    a = _run(tmp_path / "a", [
        _row("t1::p1", "t1", "ML", _checks(Ax1=True, Ax2=True), {"0": _checks(Ax1=True), "1": _checks(Ax1=False)}),
        _row("t1::p2", "t1", "ML", _checks(Ax1=True, Ax2=False), {"0": _checks(Ax1=True), "1": _checks(Ax1=True)}),
    ], ["t1"])
    b = _run(tmp_path / "b", [
        _row("t2::p3", "t2", "CV", _checks(Ax1=False), {"0": _checks(Ax1=False), "1": _checks(Ax1=True)}),
    ], ["t2"], n_jobs=2, **b_conf)
    return a, b


def test_table_over_two_runs_is_the_hand_computed_one(tmp_path: Path) -> None:
    a, b = _two_runs(tmp_path)
    res = combined_table([a, b])
    assert res["metrics"] == ["Yin", "SemNovel"] and res["items"] == 3
    assert [r["tasks"] for r in res["runs"]] == [["t1"], ["t2"]]
    tab = res["table"]
    # Yin: t1 Ax1 2/2, Ax2 1/2; t2 Ax1 0/1, Ax2 not applicable. Overall = mean over tasks.
    assert tab["by_task"]["t1"]["Yin"]["rates"]["Ax1"] == 100 and tab["by_task"]["t1"]["Yin"]["rates"]["Ax2"] == 50
    assert tab["by_field"]["ML"]["Yin"]["Avg"] == 75 and tab["by_field"]["CV"]["Yin"]["Avg"] == 0
    assert tab["overall"]["Yin"]["Ax1"] == 50 and tab["overall"]["Yin"]["Ax2"] == 50 and tab["overall"]["Yin"]["Avg"] == 50
    # SemNovel Ax1 per seed: seed 0 -> t1 100, t2 0 -> 50; seed 1 -> t1 50, t2 100 -> 75.
    assert tab["per_seed"]["SemNovel"]["0"]["Ax1"] == 50 and tab["per_seed"]["SemNovel"]["1"]["Ax1"] == 75
    assert tab["overall"]["SemNovel"]["Ax1"] == 62.5
    assert math.isclose(tab["sd"]["overall"]["SemNovel"]["Ax1"], 25 / math.sqrt(2))


def test_runs_must_be_one_benchmark(tmp_path: Path) -> None:
    a, b = _two_runs(tmp_path, semnovel_seeds=3)
    with pytest.raises(InputError, match=r"b/config.json: config.semnovel_seeds: 3 here but 2 in"):
        combined_table([a, b])
    assert combined_table([a, b], metrics=["yin"])["metrics"] == ["Yin"]  # a SemNovel setting does not change Yin


def test_a_focal_paper_in_two_runs_names_file_and_line(tmp_path: Path) -> None:
    a, _ = _two_runs(tmp_path)
    c = _run(tmp_path / "c", [_row("t3::p9", "t3", "CV", _checks(), {"0": _checks(), "1": _checks()}),
                              _row("t1::p2", "t1", "ML", _checks(), {"0": _checks(), "1": _checks()})], ["t3"])
    with pytest.raises(InputError, match=r"c/per_item.jsonl:2: id: focal paper 't1::p2' is also in .*a/per_item.jsonl:2"):
        combined_table([a, c])
    with pytest.raises(InputError, match="given twice"):
        combined_table([a, tmp_path / "a"])


def test_cli_prints_the_table_and_exits_2_on_a_metric_not_scored(tmp_path: Path) -> None:
    a, b = _two_runs(tmp_path)
    r = CliRunner().invoke(app, ["axioms", "table", str(a), str(b), "--json", str(tmp_path / "t.json")])
    assert r.exit_code == 0, r.output
    assert "| All | SemNovel | 62 ± 18 |" in r.output and "2 focal papers (t1)" in r.output
    assert json.loads((tmp_path / "t.json").read_text())["table"]["overall"]["Yin"]["Avg"] == 50
    r = CliRunner().invoke(app, ["axioms", "table", str(a), "--metric", "RND"])
    assert r.exit_code == 2 and "RND was not scored in this run" in r.output


RESOLVED = {"id": "local/all-MiniLM-L6-v2+bf16", "model": "local/all-MiniLM-L6-v2", "precision": "bf16", "max_tokens": 256}


def test_table_refuses_runs_with_different_resolved_embedders(tmp_path: Path) -> None:
    """Issue 35: the same spec can resolve differently across versions; the resolved id decides, exit 2 naming both."""
    a = _run(tmp_path / "a", [_row("t1::p1", "t1", "ML", _checks(Ax1=True), {"0": _checks(), "1": _checks()})], ["t1"],
             embedder_resolved=RESOLVED)
    b = _run(tmp_path / "b", [_row("t2::p2", "t2", "CV", _checks(Ax1=True), {"0": _checks(), "1": _checks()})], ["t2"],
             embedder_resolved={**RESOLVED, "id": "local/all-MiniLM-L6-v2+bf16@128", "max_tokens": 128})
    old = _run(tmp_path / "old", [_row("t3::p3", "t3", "CV", _checks(), {"0": _checks(), "1": _checks()})], ["t3"])
    for other, named in ((b, "local/all-MiniLM-L6-v2+bf16@128"), (old, "unresolved spec 'local'")):
        r = CliRunner().invoke(app, ["-q", "axioms", "table", str(a), str(other)])
        assert r.exit_code == 2, r.output
        assert "embedded differently" in r.output and "local/all-MiniLM-L6-v2+bf16;" in r.output and named in r.output
    c = _run(tmp_path / "c", [_row("t4::p4", "t4", "CV", _checks(Ax1=False), {"0": _checks(), "1": _checks()})], ["t4"],
             embedder_resolved=RESOLVED, embedder="local:bf16@256")
    with pytest.raises(InputError, match=r"config.embedder: 'local:bf16@256' here but 'local'"):
        combined_table([a, c])  # same resolved embedder: on to the other settings (the spec is one of them)
