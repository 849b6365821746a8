"""Axioms' Python entry points (issues 15, 26): options, the config built from them, score from rows alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import noveval
from noveval.benchmarks.axioms import contract
from noveval.benchmarks.axioms.options import AxiomsOptions
from noveval.errors import InputError


@pytest.fixture(autouse=True)
def _fast_embedder(monkeypatch, embedder):
    import noveval.models.embed as emb

    monkeypatch.setattr(emb, "get_embedder", lambda spec="local", **kw: embedder)


def test_bad_option_names_the_field(tmp_path: Path) -> None:
    with pytest.raises(InputError) as e:
        noveval.run("axioms", "none", tmp_path / "r", options={"semnovel": "fast", "sample": True})
    assert "options.semnovel" in str(e.value)
    with pytest.raises(InputError) as e:  # the fields are the flags (--focal); the old Python name is gone
        noveval.run("axioms", "none", tmp_path / "r", options={"n_focal": 3, "sample": True})
    assert "options.n_focal" in str(e.value)
    with pytest.raises(InputError, match=r"options\.metric: .*unknown metric 'Yinn'"):
        noveval.run("axioms", "none", tmp_path / "r", options={"metric": ["Yinn"], "sample": True})
    with pytest.raises(InputError, match=r"options\.task: unknown task\(s\): nope"):
        noveval.run("axioms", "none", tmp_path / "r", options={"task": ["nope"], "sample": True})
    with pytest.raises(InputError, match=r"options\.corpus: corpus not found"):
        noveval.run("axioms", "none", tmp_path / "r", options={"data_dir": tmp_path / "no-data"})
    assert not (tmp_path / "r").exists()


def test_sample_config_is_the_scaled_down_one() -> None:
    from noveval.benchmarks.axioms.pools import SAMPLE_TASKS, sample_paths

    c, f = sample_paths()
    cfg = contract.build_config(AxiomsOptions(metric=["yin", "FASTTEXTLOF"], sample=True), paraphrase_model=None)
    assert cfg.metrics == ["Yin", "FastTextLOF"]  # case-insensitive, canonical names
    assert [t.name for t in cfg.tasks] == [t.name for t in SAMPLE_TASKS]
    assert (cfg.min_base, cfg.rnd_p, cfg.rnd_q, cfg.rules.slice_size) == (20, 20, 5, 20)
    real = contract.build_config(AxiomsOptions(ax56_rule="paper", corpus=c, fulltext=f), paraphrase_model="local")
    assert (real.min_base, real.rnd_p, real.rnd_q, real.rules.min_cited, real.semnovel_seeds) == (100, 100, 50, 1, 3)



def test_ax2_max_tokens_caps_the_paraphrase_requests_and_is_recorded_only_when_set() -> None:
    from noveval.models.chat import ChatResponse

    class Recorder:  # a chat client that keeps the requests and answers nothing usable
        model_id = "recorder"

        def __init__(self) -> None:
            self.params: list = []

        def complete_many(self, reqs, progress=None):
            self.params += [r.params for r in reqs]
            return [ChatResponse(text="") for _ in reqs]

    rec = Recorder()
    capped = AxiomsOptions(sample=True, ax2_max_tokens=160)
    assert contract.paraphraser_of(rec, capped)([("A title", "An abstract."), ("B", "Another.")]) == [None, None]
    assert [p.max_tokens for p in rec.params] == [160, 160]
    assert contract.build_config(capped, paraphrase_model="local").to_json()["ax2_max_tokens"] == 160
    default = contract.build_config(AxiomsOptions(sample=True), paraphrase_model="local")
    assert default.ax2_max_tokens == 400 and "ax2_max_tokens" not in default.to_json()  # earlier runs resume


def test_score_rebuilds_the_run_scores_from_rows_and_skips_a_torn_line(tmp_path: Path) -> None:
    out = noveval.run("axioms", "none", tmp_path / "r", options={"metric": ["Yin", "RND"], "focal": 4, "sample": True}).path
    written = json.loads((out / "scores.json").read_text())
    (out / "scores.json").unlink()
    rescored = contract.score(out)
    assert rescored["metrics"] == written["metrics"] and rescored["extra"]["table"] == written["extra"]["table"]
    assert json.loads((out / "scores.json").read_text())["metrics"] == written["metrics"]
    marked = {**rescored, "complete": False, "calls": {"requests": 3, "failed": 1}}  # as the CLI records failures
    (out / "scores.json").write_text(json.dumps(marked))
    again = contract.score(out)
    assert again["complete"] is False and again["calls"] == {"requests": 3, "failed": 1}  # re-scoring keeps it
    rows = (out / "per_item.jsonl").read_text().splitlines()
    first_task = json.loads(rows[0])["task"]
    kept = [r for r in rows if json.loads(r)["task"] == first_task]
    (out / "per_item.jsonl").write_text("\n".join(kept) + "\n" + rows[-1][:40])  # killed mid-write
    partial = contract.score(out)
    assert all(m["n"] == len(kept) for m in partial["metrics"].values())
    assert list(partial["extra"]["table"]["tasks"]) == [first_task]
    # by hand: the pass rate of Ax1 for Yin is the share of True among the applicable decisions
    ax1 = [json.loads(r)["checks"]["Yin"].get("Ax1") for r in kept]
    applicable = [x for x in ax1 if x is not None]
    expect = 100.0 * sum(applicable) / len(applicable) if applicable else None
    assert partial["extra"]["table"]["by_task"][first_task]["Yin"]["rates"]["Ax1"] == expect


def test_score_refuses_a_folder_that_is_not_an_axioms_run(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="config.json"):
        contract.score(tmp_path)
    (tmp_path / "config.json").write_text(json.dumps({"benchmark": "rinobench", "config": {}}))
    with pytest.raises(InputError, match="not an axioms run"):
        contract.score(tmp_path)
