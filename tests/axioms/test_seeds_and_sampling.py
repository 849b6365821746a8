"""Issue 14, items 9 and 11: per-seed tables (mean ± SD), focal sampling across years, Ax5/6 rule."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from noveval.benchmarks.axioms.axioms import AXIOMS, seed_agreement
from noveval.benchmarks.axioms.pools import (
    AX56_RULES,
    SAMPLE_TASKS,
    FocalItem,
    PoolRules,
    build_task,
    cited_split,
    fulltext_quota,
    select_focals,
)
from noveval.benchmarks.axioms.runner import format_table, table


def _row(task, field, checks, by_seed=None):
    full = {m: {a: c.get(a) for a in AXIOMS} for m, c in checks.items()}
    r = {"id": f"{task}::{len(checks)}", "task": task, "field": field, "checks": full, "scores": {}}
    if by_seed:
        r["by_seed"] = {m: {s: {"checks": {a: c.get(a) for a in AXIOMS}, "scores": {}} for s, c in seeds.items()}
                        for m, seeds in by_seed.items()}
    return r


def test_table_reports_mean_and_sd_over_seeds():
    # one field, two tasks of two papers; SemNovel Ax1 per seed:
    #   seed 0: t1 1/2, t2 2/2 -> overall 75;  seed 1: t1 2/2, t2 2/2 -> 100;  seed 2: t1 0/2, t2 1/2 -> 25
    # mean 66.67, SD (ddof 1) of (75, 100, 25) = 38.19
    s = {"t1": [(True, True, False), (False, True, False)], "t2": [(True, True, True), (True, True, False)]}
    rows = []
    for t, papers in s.items():
        for k, (a0, a1, a2) in enumerate(papers):
            r = _row(t, "ML", {"Yin": {"Ax1": k == 0}, "SemNovel": {"Ax1": a0}},
                     by_seed={"SemNovel": {"0": {"Ax1": a0}, "1": {"Ax1": a1}, "2": {"Ax1": a2}}})
            r["id"] = f"{t}::{k}"
            rows.append(r)
    tab = table(rows, ["Yin", "SemNovel"])
    assert tab["overall"]["SemNovel"]["Ax1"] == pytest.approx(200 / 3)
    assert tab["sd"]["overall"]["SemNovel"]["Ax1"] == pytest.approx(np.std([75, 100, 25], ddof=1))
    assert tab["per_seed"]["SemNovel"] == {"0": pytest.approx({**dict.fromkeys(AXIOMS), "Ax1": 75.0, "Avg": 75.0}),
                                           "1": pytest.approx({**dict.fromkeys(AXIOMS), "Ax1": 100.0, "Avg": 100.0}),
                                           "2": pytest.approx({**dict.fromkeys(AXIOMS), "Ax1": 25.0, "Avg": 25.0})}
    assert tab["by_task"]["t1"]["SemNovel"]["rates"]["Ax1"] == pytest.approx(50.0)  # (50 + 100 + 0) / 3
    assert tab["by_task"]["t1"]["SemNovel"]["sd"]["Ax1"] == pytest.approx(50.0)
    assert tab["seeds"] == {"SemNovel": ["0", "1", "2"]}
    assert "Yin" not in tab["sd"]["overall"] and tab["overall"]["Yin"]["Ax1"] == 50.0
    md = format_table(tab, ["Yin", "SemNovel"])
    assert "| All | SemNovel | 67 ± 38 |" in md and "| All | Yin | 50 |" in md
    assert "mean ± SD over seeds 0, 1, 2" in md
    # Ax1 seeds per paper: (T,T,F) (F,T,F) (T,T,T) (T,T,F): only t2::0 is unanimous -> 1 of 4
    assert tab["seed_agreement"]["SemNovel"]["Ax1"] == (0.25, 4)
    assert tab["seed_agreement"]["SemNovel"]["all"] == (0.25, 4) and tab["seed_agreement"]["SemNovel"]["Ax2"] == (None, 0)
    assert "every seed decides alike on 25.0% of 4 checks (Ax1 25%)" in md


def test_seed_agreement_counts_checks_every_seed_decided():
    rows = [
        {"0": {"Ax1": True, "Ax4": False}, "1": {"Ax1": True, "Ax4": True}, "2": {"Ax1": True, "Ax4": None}},
        {"0": {"Ax1": False, "Ax4": True}, "1": {"Ax1": True, "Ax4": True}, "2": {"Ax1": False, "Ax4": True}},
        {"0": {"Ax7": True}},  # one seed: a decided check agrees with itself
    ]
    got = seed_agreement(rows)
    # Ax1: rows 1 (alike) and 2 (split) -> 1/2; Ax4: row 1 has a None seed (left out), row 2 alike -> 1/1
    assert got["Ax1"] == (0.5, 2) and got["Ax4"] == (1.0, 1) and got["Ax7"] == (1.0, 1)
    assert got["all"] == (0.75, 4) and got["Ax2"] == (None, 0)
    assert seed_agreement([]) == {a: (None, 0) for a in (*AXIOMS, "all")}


def test_fulltext_quota():
    assert [fulltext_quota(n) for n in (0, 1, 3, 5, 10, 20, 100, 500)] == [0, 1, 1, 1, 2, 4, 20, 20]
    assert fulltext_quota(10, share=0.5, cap=3) == 3


def test_small_focal_samples_are_not_all_full_text_papers(sample):
    corpus, refs = sample
    by = {t.name: t for t in SAMPLE_TASKS}
    task = build_task(corpus, by["graph learning"], by["motion planning"], refs)
    items = select_focals(corpus, task, refs, n=10, seed=0, min_base=20)
    with_ft = [it for it in items if int(task.rows[it.local]) in refs]
    # ceil(0.2 * 10) = 2 drawn from the full-text papers; the other 8 uniformly from all the
    # rest (which may hold more full-text papers); before, all 10 were full-text papers
    assert len(items) == 10 and 2 <= len(with_ft) < 10
    assert len({it.year for it in items}) > 1
    five = select_focals(corpus, task, refs, n=5, seed=0, min_base=20)
    assert sum(int(task.rows[it.local]) in refs for it in five) < 5
    # at n = 100 the rule is the old one: up to 20 full-text papers, the rest uniform
    big = select_focals(corpus, task, refs, n=100, seed=0, min_base=20)
    n_ft = sum(int(task.rows[it.local]) in refs for it in big)
    avail = sum(int(task.rows[loc]) in refs for loc in task.members)
    assert n_ft >= min(20, avail) or len(big) < 100


def test_ax56_rule_switch():
    item = FocalItem(task="t", field="ML", local=0, paper_id="p", year=2025, refs=np.array([3, 7, 9, 200]),
                     base=np.arange(100), n_refs=25)
    assert cited_split(item, PoolRules(min_cited=AX56_RULES["ours"])) is None  # 3 found < 5
    minus, cited = cited_split(item, PoolRules(min_cited=AX56_RULES["paper"]))
    assert cited.tolist() == [3, 7, 9] and len(minus) == 97 and not set(minus) & {3, 7, 9}
    few = FocalItem(task="t", field="ML", local=0, paper_id="p", year=2025, refs=np.array([3]),
                    base=np.arange(100), n_refs=19)
    assert cited_split(few, PoolRules(min_cited=AX56_RULES["paper"])) is None  # < 20 references


@pytest.fixture
def _fast_embedder(monkeypatch, embedder):
    import noveval.models.embed as emb

    monkeypatch.setattr(emb, "get_embedder", lambda spec="local", **kw: embedder)


@pytest.mark.usefixtures("_fast_embedder")
def test_cli_options_reach_the_config(tmp_path):
    from noveval.benchmarks.axioms import cli

    r = CliRunner().invoke(cli.app, ["run", "--out", str(tmp_path / "r"), "--sample", "--focal", "3", "--model", "none",
                                     "--metric", "Yin", "--metric", "RND", "--task", "graph learning", "--rnd-p", "7", "--rnd-q", "3",
                                     "--ax56-rule", "paper", "--seeds", "2", "--semnovel-metric", "euclidean",
                                     "--fasttext-variant", "normalized"])
    assert r.exit_code == 0, r.output
    cfg = json.loads((tmp_path / "r" / "config.json").read_text())["config"]
    assert (cfg["rnd_p"], cfg["rnd_q"], cfg["rules"]["min_cited"]) == (7, 3, 1)
    assert (cfg["semnovel_seeds"], cfg["semnovel_metric"], cfg["fasttext_variant"]) == (2, "euclidean", "normalized")
    for opt, val in (("--ax56-rule", "some"), ("--semnovel-metric", "l1"), ("--fasttext-variant", "x")):
        r = CliRunner().invoke(cli.app, ["run", "--out", str(tmp_path / "bad"), "--sample", opt, val])
        assert r.exit_code == 2 and opt in r.output
