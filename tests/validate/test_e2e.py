"""End to end on the shipped sample: bundled MiniLM and SmolLM2 for real, resume, per-metric recompute."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest
import scipy.stats as ss

from noveval.benchmarks.validate import score
from noveval.metrics.correlation import loro_ceiling
from noveval.runs import RunDir

from .conftest import SAMPLE_OPTS, validate

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def _rows(path, kind):
    return RunDir.open(path).rows(kind)


def test_run_folder_contract(sample_run):
    for name in ("config.json", "predictions.jsonl", "judgments.jsonl", "per_item.jsonl", "scores.json"):
        assert (sample_run / name).exists(), name
    cfg = RunDir.open(sample_run).config
    assert cfg["benchmark"] == "validate" and cfg["embedder"].startswith("local/all-MiniLM-L6-v2")
    assert cfg["embedder_resolved"]["max_tokens"] == 256 and "embedder_note" not in cfg  # issue 35: the paper setting
    assert RunDir.open(sample_run).scores["extra"]["embedder_resolved"] == cfg["embedder_resolved"]
    assert set(cfg["predictors"]) == {"Yin", "RND", "SemNovel", "FastTextLOF", "llm_rubric", "llm_direct"}
    assert "bucket=20000" in cfg["predictors"]["FastTextLOF"]  # the metric's full parameters are recorded
    preds = _rows(sample_run, "predictions")
    assert len(preds) == 4 * 24 and not any(r["error"] for r in preds)


def test_prior_only_pools_and_never_self(sample_run, sample_files):
    items = _rows(sample_run, "per_item")
    assert len(items) == 24
    reviews = {json.loads(x)["id"]: json.loads(x) for x in sample_files[0].read_text().splitlines()}
    for it in items:
        assert it["nn_year"] < 2025  # the 2025 records of the rated papers are never prior work
        assert it["nn_title"] != it["title"]  # N00's 2023 listing under the same title is excluded
        assert it["pool_size"] == 20
        scores = [r["scores"]["originality"] for r in reviews[it["id"]]["reviews"] if r["scores"].get("originality")]
        assert it["human_scores"] == scores and it["human_mean"] == pytest.approx(np.mean(scores))
        # with the neighbourhood pool, Yin (q = 0) is the distance to the nearest prior paper
        assert it["predictors"]["Yin"] == pytest.approx(it["predictors"]["nn_distance"], abs=1e-6)
    sc = RunDir.open(sample_run).scores
    assert sc["extra"]["pool"]["self_title_matches"] == 1


def test_scores_match_references(sample_run):
    items = _rows(sample_run, "per_item")
    sc = RunDir.open(sample_run).scores
    assert sc["complete"] is True and sc["failures"]["total"] == 0
    ceil = sc["metrics"]["human_ceiling_loro"]
    assert ceil["mean"] == pytest.approx(loro_ceiling([it["human_scores"] for it in items]))
    assert ceil["ci_low"] < ceil["mean"] < ceil["ci_high"]
    y = [it["human_mean"] for it in items]
    for name in ("Yin", "RND", "SemNovel", "FastTextLOF", "topk_distance"):
        x = [it["predictors"][name] for it in items]
        row = next(r for r in sc["extra"]["table"] if r["predictor"] == name)
        assert row["rho"] == pytest.approx(ss.spearmanr(x, y).statistic)
        assert row["tau"] == pytest.approx(ss.kendalltau(x, y).statistic)
        assert row["n"] == 24
    # the sample is built so that restatements of prior papers were rated low: distance to prior work tracks it
    yin = next(r for r in sc["extra"]["table"] if r["predictor"] == "Yin")
    assert yin["rho"] > 0.3 and yin["auc"] > 0.8
    judges = [r for r in sc["extra"]["table"] if r["predictor"].startswith("llm_")]
    assert [r["predictor"] for r in judges] == ["llm_rubric", "llm_direct"]
    assert [it["id"] for it in items if it["judged"]] and sum(it["judged"] for it in items) == 2
    assert {g["group"] for g in sc["extra"]["groups"]} >= {"graph learning", "benchmark", "new application"}


def test_judgments_are_recorded_with_raw_answers(sample_run):
    rows = _rows(sample_run, "judgments")
    assert len(rows) == 4 and {r["judge"] for r in rows} == {"rubric", "direct"}
    for r in rows:
        assert r["error"] is None and r["raw"] and r["parse_status"]
        assert r["score"] is None or (1 <= r["score"] <= (5 if r["judge"] == "rubric" else 4))


def test_resume_asks_only_the_unusable_and_changes_nothing_else(sample_run, sample_files):
    """A resumed run asks again only for the judge answers no parser read (never final, issue 34); every other
    row stays as it was (the metric predictions byte for byte)."""
    from noveval.models.client import get_client

    preds = (sample_run / "predictions.jsonl").read_bytes()
    before = _rows(sample_run, "judgments")
    redo = {r["id"] for r in before if r.get("unusable_answers")}
    client = get_client("local")
    validate(*sample_files, sample_run, client, **SAMPLE_OPTS)
    assert client.stats["requests"] == client.stats["cache_misses"] == len(redo)
    assert (sample_run / "predictions.jsonl").read_bytes() == preds
    after = {r["id"]: r for r in _rows(sample_run, "judgments")}
    assert [r for r in before if r["id"] not in redo] == [after[r["id"]] for r in before if r["id"] not in redo]


def test_changed_metric_default_recomputes_only_that_metric(sample_run, sample_files, monkeypatch, tmp_path):
    import shutil

    import noveval.novelty as nov
    from noveval.novelty.rnd import RND

    folder = tmp_path / "copy"
    shutil.copytree(sample_run, folder)
    old = {r["id"]: r for r in _rows(folder, "predictions")}

    @dataclasses.dataclass(frozen=True)
    class RNDChanged(RND):
        p: int = 10

    monkeypatch.setitem(nov.METRICS, "RND", RNDChanged)
    validate(*sample_files, folder, "none", **SAMPLE_OPTS)
    new = {r["id"]: r for r in _rows(folder, "predictions")}
    assert "p=10" in RunDir.open(folder).config["predictors"]["RND"]
    kept = {i for i in old if i in new}
    assert kept == {i for i, r in old.items() if r["predictor"] != "RND"}
    assert all(new[i] == old[i] for i in kept)  # untouched rows, byte for byte
    fresh = [r for r in new.values() if r["predictor"] == "RND"]
    assert len(fresh) == 24 and not any(r["cached"] for r in fresh)
    # another folder with the same settings reads every value from the fit cache
    other = tmp_path / "other"
    validate(*sample_files, other, "none", **SAMPLE_OPTS)
    assert all(r["cached"] for r in _rows(other, "predictions"))


def test_score_alone_reproduces_scores(sample_run, tmp_path):
    import shutil

    folder = tmp_path / "rescore"
    shutil.copytree(sample_run, folder)
    first = json.loads((folder / "scores.json").read_text())
    (folder / "scores.json").unlink()
    score(folder)
    again = json.loads((folder / "scores.json").read_text())
    assert again["metrics"] == first["metrics"]
    assert again["extra"]["table"] == first["extra"]["table"]
    assert not math.isnan(again["metrics"]["rho_Yin"]["mean"])


def test_bad_inputs_write_nothing(tmp_path, sample_files):
    from noveval.errors import InputError

    out = tmp_path / "never"
    with pytest.raises(InputError, match="corpus"):
        validate(sample_files[0], tmp_path / "missing.jsonl", out, "none")
    with pytest.raises(InputError, match="options.pool"):
        validate(*sample_files, out, "none", pool="everything")
    with pytest.raises(InputError, match="options.metric"):
        validate(*sample_files, out, "none", metric=["Nope"])
    assert not out.exists()


def test_metric_limits_are_nested_samples_and_tables_compare_the_same_papers(sample_run, sample_files, tmp_path):
    import shutil

    folder = tmp_path / "limited"
    shutil.copytree(sample_run, folder)
    opts = dict(SAMPLE_OPTS, metric_limit={"SemNovel": 6, "FastTextLOF": 10})
    validate(*sample_files, folder, "local", **opts)
    items = _rows(folder, "per_item")
    has = {m: {it["id"] for it in items if it["predictors"].get(m) is not None} for m in ("SemNovel", "FastTextLOF",
                                                                                          "Yin", "llm_direct")}
    assert len(has["SemNovel"]) == 6 and len(has["FastTextLOF"]) == 10 and len(has["Yin"]) == 24
    judged = {it["id"] for it in items if it["judged"]}
    assert judged <= has["SemNovel"] <= has["FastTextLOF"]  # one seeded order: the samples are nested
    cfg = RunDir.open(folder).config
    assert cfg["metric_limits"] == {"SemNovel": 6, "FastTextLOF": 10}
    preds = _rows(folder, "predictions")
    assert sum(r["predictor"] == "SemNovel" for r in preds) == 6  # rows outside the sample were dropped
    sc = RunDir.open(folder).scores
    table = {r["predictor"]: r for r in sc["extra"]["table"]}
    assert table["SemNovel"]["n"] == 6 and table["Yin"]["n"] == 24
    # with the judges on 2 papers the common subset is below the 20-paper minimum: no same-papers table
    assert sc["extra"]["common"] is None
    with pytest.raises(Exception, match="options.metric_limit"):
        validate(*sample_files, folder, "none", **dict(SAMPLE_OPTS, metric_limit={"Nope": 3}))


def test_a_failed_metric_fit_leaves_the_run_incomplete_until_a_later_run_computes_it(sample_files, monkeypatch,
                                                                                    tmp_path):
    import noveval.novelty as nov
    from noveval.benchmarks._runner import IncompleteRun
    from noveval.novelty.yin import Yin

    @dataclasses.dataclass(frozen=True)
    class YinFails(Yin):  # a fault a real metric cannot be made to raise on demand
        def score(self, focal, pool):
            raise ValueError("fit exploded")

    out = tmp_path / "fails"
    opts = dict(SAMPLE_OPTS, metric=["Yin"])
    monkeypatch.setitem(nov.METRICS, "Yin", YinFails)
    with pytest.raises(IncompleteRun):
        validate(*sample_files, out, "none", **opts)
    sc = RunDir.open(out).scores
    assert sc["complete"] is False and sc["failures"] == {"metrics": 24, "judge_calls": 0, "total": 24}
    assert sc["calls"]["failed"] == 24 and "fit exploded" in sc["calls"]["first_error"]
    monkeypatch.setitem(nov.METRICS, "Yin", Yin)  # fixed: the next run computes it and the run is complete
    validate(*sample_files, out, "none", **opts)
    sc = RunDir.open(out).scores
    assert sc["complete"] is True and sc["failures"]["total"] == 0 and sc["calls"]["failed_earlier"] == 0
