"""CLI: axioms run/score/combine on the sample and novelty score (fast test embedder); run options and --batch."""

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


def test_run_axioms_and_axioms_run_and_the_python_api_make_one_config(tmp_path):
    """`noveval run axioms`, `noveval axioms run` and noveval.run take the same options to the same config."""
    import noveval
    from noveval.cli.main import app

    flags = ["--sample", "--focal", "2", "--model", "none", "--metric", "yin", "-n", "1", "--rnd-p", "7"]
    for i, cmd in enumerate((["run", "axioms"], ["axioms", "run"])):
        r = CliRunner().invoke(app, ["-q", *cmd, "-o", str(tmp_path / str(i)), *flags])
        assert r.exit_code == 0, r.output
        assert "| All | Yin |" in r.output  # the summary shows Table 2
    py = noveval.run("axioms", "none", tmp_path / "py",
                     options={"sample": True, "focal": 2, "metric": ["yin"], "limit": 1, "rnd_p": 7}).path
    confs = [json.loads((d / "config.json").read_text())["config"] for d in (tmp_path / "0", tmp_path / "1", py)]
    assert confs[0] == confs[1] == confs[2]
    # -n 1: only the sample's first task; --metric is case-insensitive; --rnd-p reaches the config
    assert [t["name"] for t in confs[0]["tasks"]] == ["graph learning"]
    assert (confs[0]["metrics"], confs[0]["rnd_p"], confs[0]["rnd_q"], confs[0]["n_focal"]) == (["Yin"], 7, 5, 2)
    rows = [json.loads(x) for x in (py / "per_item.jsonl").read_text().splitlines()]
    assert {r["task"] for r in rows} == {"graph learning"} and len(rows) == 2


def test_batch_sends_the_paraphrases_through_the_batch_api(tmp_path):
    """--batch: the Ax2 paraphrase requests go to the provider's batch API, none live; the run then finishes."""
    from fake_batches import FakeBatchServer
    from noveval.cli.main import app

    def respond(prompt: str) -> str:  # a usable paraphrase: as long as the prompt, words reversed
        return "Title: A rewritten title\nAbstract: " + " ".join(reversed(prompt.split()))

    out = tmp_path / "out"
    env = {"NOVEVAL_CACHE_DIR": str(tmp_path / "cache"), "NOVEVAL_BATCH_POLL_S": "0.02"}
    with FakeBatchServer(responder=respond) as server:
        spec = f"openai-compatible/para@{server.base_url}"
        r = CliRunner(env=env).invoke(app, ["-q", "run", "axioms", "--sample", "--focal", "2", "--ax2-limit", "1",
                                            "--metric", "Yin", "--task", "graph learning", "--task", "motion planning",
                                            "-m", spec, "-o", str(out), "--batch"])
        assert r.exit_code == 0, r.output
        assert server.live_chat_calls == 0 and server.batch_creates == 1
    assert [b["requests"] for b in json.loads((out / "batches.json").read_text())["batches"]] == [2]  # 1 per task
    scores = json.loads((out / "scores.json").read_text())
    assert scores["complete"] is True
    assert {t: s["paraphrases"] for t, s in scores["extra"]["task_stats"].items()} == {
        "graph learning": {"asked": 1, "usable": 1}, "motion planning": {"asked": 1, "usable": 1}}
    rows = [json.loads(x) for x in (out / "per_item.jsonl").read_text().splitlines()]
    assert sum(r["checks"]["Yin"]["Ax2"] is not None for r in rows) == 2  # Ax2 decided for the paraphrased papers
