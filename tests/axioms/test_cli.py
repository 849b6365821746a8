"""CLI: axioms run/score/combine on the sample and novelty score (fast test embedder)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from noveval.benchmarks.axioms import cli
from noveval.cli.novelty import app as novelty_app


@pytest.fixture(autouse=True)
def _fast_embedder(monkeypatch, embedder):
    import noveval.models.embed as emb

    monkeypatch.setattr(emb, "get_embedder", lambda spec="local", **kw: embedder)


def test_axioms_run_combine_score(tmp_path):
    r = CliRunner().invoke(cli.app, ["run", "--out", str(tmp_path / "r"), "--sample", "--focal", "4",
                                     "--model", "none", "--metric", "Yin", "--metric", "RND", "--task", "graph learning",
                                     "--task", "motion planning"])
    assert r.exit_code == 0, r.output
    assert "| All | Yin |" in r.output
    r = CliRunner().invoke(cli.app, ["combine", str(tmp_path / "r"), "--step", "0.25"])
    assert r.exit_code == 0, r.output
    res = json.loads((tmp_path / "r" / "combine.json").read_text())
    assert {f["held_out"] for f in res["global"]["folds"]} == {"ML", "Robotics"}
    r = CliRunner().invoke(cli.app, ["score", str(tmp_path / "r")])
    assert r.exit_code == 0 and "RND" in r.output


def test_bad_metric_is_input_error(tmp_path):
    r = CliRunner().invoke(cli.app, ["run", "--out", str(tmp_path / "r"), "--sample", "-m", "nope"])
    assert r.exit_code == 2
    assert "nope" in r.output


def test_novelty_score(tmp_path):
    pool = tmp_path / "pool.jsonl"
    pool.write_text("\n".join(json.dumps({"id": f"p{i}", "title": f"Graph learning method {i}",
                                          "abstract": f"We study graphs number {i} with nodes."}) for i in range(30)))
    papers = tmp_path / "papers.jsonl"
    papers.write_text(json.dumps({"id": "dup", "title": "Graph learning method 3",
                                  "abstract": "We study graphs number 3 with nodes."}) + "\n"
                      + json.dumps({"id": "far", "title": "Quantum lattice chromodynamics",
                                    "abstract": "Hadron spectroscopy on the lattice."}) + "\n")
    out = tmp_path / "out.jsonl"
    r = CliRunner().invoke(novelty_app, ["score", "--papers", str(papers), "--pool", str(pool),
                                             "-o", str(out), "-k", "2"])
    assert r.exit_code == 0, r.output
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert rows[0]["neighbours"][0]["id"] == "p3"
    assert rows[0]["scores"]["Yin"] < rows[1]["scores"]["Yin"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"abstract": "x"}\n')
    r = CliRunner().invoke(novelty_app, ["score", "--papers", str(bad), "--pool", str(pool)])
    assert r.exit_code == 2 and "title" in r.output


def test_compare_runs_counts_changed_decisions(tmp_path):
    r = CliRunner().invoke(cli.app, ["run", "--out", str(tmp_path / "a"), "--sample", "--focal", "4",
                                     "--model", "none", "--metric", "Yin", "--task", "graph learning"])
    assert r.exit_code == 0, r.output
    rows = [json.loads(x) for x in (tmp_path / "a" / "per_item.jsonl").read_text().splitlines()]
    n = sum(v is not None for row in rows for v in row["checks"]["Yin"].values())
    rows[0]["checks"]["Yin"]["Ax1"] = not rows[0]["checks"]["Yin"]["Ax1"]  # one decision flipped
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "per_item.jsonl").write_text("\n".join(json.dumps(x) for x in rows) + "\n")
    r = CliRunner().invoke(cli.app, ["compare", str(tmp_path / "a"), str(tmp_path / "b")])
    assert r.exit_code == 0, r.output
    assert f"Yin: {100 * (n - 1) / n:.1f}% of {n} checks agree" in r.output
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "per_item.jsonl").write_text(json.dumps({"id": "other", "checks": {}}) + "\n")
    r = CliRunner().invoke(cli.app, ["compare", str(tmp_path / "a"), str(tmp_path / "c")])
    assert r.exit_code == 2 and "in common" in r.output
