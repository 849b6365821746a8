"""`noveval compare` on the set statistics of focus, CLAIMCHECK and validate (issue 37 item 6).

Each run folder is written by the system's real scorer from hand-written model output (no
model call); the paired result's point estimate must be the difference of the two runs'
reported metric, and the exact permutation p must equal an enumeration of all swaps that
recomputes the statistic with the system's own scoring function.
"""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import stats

from noveval.compare import compare_runs

# ------------------------------------------------------------------ focus: kl_mean


def _pt(pid: str, pol: str, target: str | None, aspect: str | None) -> dict[str, Any]:
    return {"paper_id": pid, "polarity": pol, "target": target, "aspect": aspect, "text": "t",
            "error": None if target and aspect else "unparsed"}


HUMAN = [_pt("a", "weakness", "Method", "Validity"), _pt("a", "strength", "Paper", "Novelty"),
         _pt("b", "weakness", "Experiment", "Validity"), _pt("b", "weakness", "Theory", "Clarity"),
         _pt("c", "strength", "Method", "Impact"), _pt("c", "weakness", "Method", "Validity")]
MODEL_A = [_pt("a", "weakness", "Method", "Validity"), _pt("b", "weakness", "Method", "Clarity"),
           _pt("c", "weakness", "Method", "Novelty"), _pt("c", "weakness", None, None)]  # no strength
MODEL_B = [_pt("a", "weakness", "Experiment", "Validity"), _pt("a", "strength", "Paper", "Novelty"),
           _pt("b", "weakness", "Theory", "Clarity"), _pt("c", "weakness", "Method", "Validity"),
           _pt("c", "strength", "Method", "Impact")]


def _focus_run(path: Path, model: list[dict[str, Any]], name: str, protocol: str = "noveval") -> Path:
    from noveval.benchmarks.focus.options import FocusScoreOptions
    from noveval.benchmarks.focus.pipeline import score_run
    from noveval.runs import RunDir

    run = RunDir.create(path, {"benchmark": "focus", "model": name, "annotator": name, "epsilon": 1e-3,
                               "protocol": protocol})
    run.write("predictions", [{"id": p, "review_text": "x"} for p in ("a", "b", "c")])
    run.write("judgments", [{"source": "human", **r} for r in HUMAN] + [{"source": name, **r} for r in model])
    score_run(run.path, FocusScoreOptions(text_metrics=False, plot=False))
    return run.path


@pytest.mark.parametrize("protocol", ["noveval", "paper"])
def test_focus_kl_mean_is_compared_and_its_swaps_match_kl_table(tmp_path: Path, protocol: str) -> None:
    from noveval.benchmarks.focus.protocol import get_protocol
    from noveval.benchmarks.focus.scoring import kl_table

    a = _focus_run(tmp_path / "a", MODEL_A, "ma", protocol)
    b = _focus_run(tmp_path / "b", MODEL_B, "mb", protocol)
    sa, sb = (json.loads((p / "scores.json").read_text())["metrics"]["kl_mean"]["mean"] for p in (a, b))
    c = compare_runs([a, b], n_resamples=400)
    kl = next(m for m in c.metrics if m.name == "kl_mean")
    assert kl.primary and kl.kind == "statistic" and kl.lower_is_better and "kl_mean" not in c.skipped
    r = kl.result
    assert (r.a, r.b) == pytest.approx((sa, sb), abs=1e-12)
    assert r.difference == pytest.approx(sb - sa, abs=1e-12) and r.n == 3
    # every one of the 2^3 swaps recomputed with kl_table on the swapped papers' judgments
    present = get_protocol(protocol).kl_present_only
    t_obs = sb - sa
    hits = 0
    for flips in itertools.product([False, True], repeat=3):
        swap = {p for p, f in zip("abc", flips, strict=True) if f}
        a2 = [x for x in MODEL_A if x["paper_id"] not in swap] + [x for x in MODEL_B if x["paper_id"] in swap]
        b2 = [x for x in MODEL_B if x["paper_id"] not in swap] + [x for x in MODEL_A if x["paper_id"] in swap]
        kb = kl_table(HUMAN, b2, epsilon=1e-3, present_only=present)["mean"]
        ka = kl_table(HUMAN, a2, epsilon=1e-3, present_only=present)["mean"]
        assert ka is not None and kb is not None
        hits += abs(kb - ka) >= abs(t_obs) - 1e-12
    assert r.exact and r.p_value == pytest.approx(hits / 8)
    assert r.ci_low <= t_obs <= r.ci_high


def test_focus_run_without_counts_says_why(tmp_path: Path) -> None:
    a = _focus_run(tmp_path / "a", MODEL_A, "ma")
    b = _focus_run(tmp_path / "b", MODEL_B, "mb")
    rows = [json.loads(x) for x in (a / "per_item.jsonl").read_text().splitlines()]
    (a / "per_item.jsonl").write_text("".join(json.dumps({k: v for k, v in r.items() if k != "focus_counts"}) + "\n"
                                              for r in rows))
    c = compare_runs([a, b], n_resamples=100)
    assert "kl_mean" not in {m.name for m in c.metrics} and "no item has a value" in c.skipped["kl_mean"]


# ------------------------------------------------------------------ CLAIMCHECK: f1_edit


def _claimcheck_items() -> list[Any]:
    from noveval.benchmarks.claimcheck.data import load_annotations, load_papers_file, sample_dir
    from noveval.benchmarks.claimcheck.items import weakness_items

    papers = load_papers_file(sample_dir() / "papers.json")
    return weakness_items(load_annotations(sample_dir() / "annotations.jsonl", papers=papers))


def _guess(item: Any, k: int) -> list[str]:
    """A model's target claims for an item: the gold, cut short, dropped or joined by a wrong one."""
    gold = list(item.gold_targets)
    return [gold, [g[: len(g) // 2] for g in gold], [], [*gold, "A claim that is not there."]][k % 4]


def _ca_run(path: Path, preds: dict[Any, list[list[str]]], name: str) -> Path:
    from noveval.benchmarks.claimcheck.data import sample_dir
    from noveval.benchmarks.claimcheck.options import ClaimcheckScoreOptions
    from noveval.benchmarks.claimcheck.scoring import score_run

    seeds = list(preds)
    sample = sample_dir()
    path.mkdir(parents=True)
    cfg = {"benchmark": "claimcheck", "task": "ca", "model": name, "seeds": seeds,
           "inputs": {"papers_file": str(sample / "papers.json"), "annotations": str(sample / "annotations.jsonl")}}
    (path / "config.json").write_text(json.dumps(cfg))
    rows = [{"id": it.id, "target_texts": t, **({"seed": sd} if len(seeds) > 1 else {})}
            for sd, per in preds.items() for it, t in zip(_claimcheck_items(), per, strict=True)]
    (path / "predictions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    score_run(path, ClaimcheckScoreOptions(bertscore=False))
    return path


def test_claimcheck_f1_edit_is_compared_and_its_swaps_match_f1_edit(tmp_path: Path) -> None:
    from noveval.metrics.spans import f1_edit

    items = _claimcheck_items()
    gold = [it.gold_targets for it in items]
    pa = [_guess(it, i) for i, it in enumerate(items)]
    pb = [_guess(it, i + 1) for i, it in enumerate(items)]
    a, b = _ca_run(tmp_path / "a", {0: pa}, "ma"), _ca_run(tmp_path / "b", {0: pb}, "mb")
    sa, sb = (json.loads((p / "scores.json").read_text())["metrics"]["f1_edit"]["mean"] for p in (a, b))
    assert sa != pytest.approx(sb)
    c = compare_runs([a, b], n_resamples=400, n_permutations=1024)
    m = {x.name: x for x in c.metrics}
    assert m["f1_edit"].primary and m["f1_edit"].kind == "statistic" and "f1_exact" in m
    r = m["f1_edit"].result
    assert (r.a, r.b, r.difference) == pytest.approx((sa, sb, sb - sa), abs=1e-12)
    # all 2^9 swaps, each scored by the real f1_edit on the swapped items' target claims
    hits = 0
    for flips in itertools.product([False, True], repeat=len(items)):
        a2 = [y if f else x for x, y, f in zip(pa, pb, flips, strict=True)]
        b2 = [x if f else y for x, y, f in zip(pa, pb, flips, strict=True)]
        hits += abs(f1_edit(gold, b2) - f1_edit(gold, a2)) >= abs(sb - sa) - 1e-12
    assert r.exact and r.n_permutations == 512 and r.p_value == pytest.approx(hits / 512)


def test_claimcheck_seed_mean_f1_is_compared(tmp_path: Path) -> None:
    items = _claimcheck_items()
    a = _ca_run(tmp_path / "a", {0: [_guess(it, i) for i, it in enumerate(items)],
                                 42: [_guess(it, i + 2) for i, it in enumerate(items)]}, "ma")
    b = _ca_run(tmp_path / "b", {0: [_guess(it, 0) for it in items],
                                 42: [_guess(it, i + 1) for i, it in enumerate(items)]}, "mb")
    sa, sb = (json.loads((p / "scores.json").read_text())["metrics"]["f1_edit"] for p in (a, b))
    assert set(sa["per_seed"]) == {"0", "42"}
    c = compare_runs([a, b], n_resamples=300)
    r = next(x for x in c.metrics if x.name == "f1_edit").result
    # the metric is the mean over seeds of each seed's micro F1, as scores.json reports it
    assert (r.a, r.b, r.difference) == pytest.approx((sa["mean"], sb["mean"], sb["mean"] - sa["mean"]), abs=1e-12)
    assert r.n == len(items)


# ------------------------------------------------------------------ validate: rho


def _validate_run(path: Path, preds: list[float | None], name: str) -> Path:
    from noveval.benchmarks.validate.analysis import score_rows

    ratings = [[1, 2], [3, 3], [2, 4], [4, 4], [1, 1], [5, 4], [2, 2], [3, 5]]
    rows = [{"id": f"p{i}", "human_scores": rs, "human_mean": float(np.mean(rs)), "abstract_words": 100 + i,
             "nn_year": 2020 if i != 6 else None, "keywords": [], "predictors": {"llm_rubric": v}}
            for i, (rs, v) in enumerate(zip(ratings, preds, strict=True))]
    got = score_rows(rows, predictors=["llm_rubric"], n_resamples=50, min_group=100)
    path.mkdir(parents=True)
    scores = {"benchmark": "validate", "primary_metric": "rho_llm_rubric", "greater_is_better": True,
              "model": name, **got}
    (path / "config.json").write_text(json.dumps({"benchmark": "validate", "model": name}))
    (path / "scores.json").write_text(json.dumps(scores))
    (path / "per_item.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_validate_rho_is_compared_and_matches_spearmanr(tmp_path: Path) -> None:
    pa: list[float | None] = [2, 3, 3, 4, 1, 3, 5, None]  # p6 has no nn_year and p7 no value: 6 papers
    pb: list[float | None] = [1, 3, 4, 5, 1, 5, 2, 4]
    a, b = _validate_run(tmp_path / "a", pa, "ma"), _validate_run(tmp_path / "b", pb, "mb")
    sa, sb = (json.loads((p / "scores.json").read_text())["metrics"]["rho_llm_rubric"] for p in (a, b))
    assert (sa["n"], sb["n"]) == (6, 7)
    c = compare_runs([a, b], n_resamples=500)
    r = next(x for x in c.metrics if x.name == "rho_llm_rubric")
    assert r.primary and r.kind == "statistic"
    # on the 6 papers both runs have, each run's rho is scipy's Spearman
    keep = [0, 1, 2, 3, 4, 5]
    target = [float(np.mean(x)) for x in ([1, 2], [3, 3], [2, 4], [4, 4], [1, 1], [5, 4])]
    ra = stats.spearmanr([pa[i] for i in keep], target).statistic
    rb = stats.spearmanr([pb[i] for i in keep], target).statistic
    assert (r.result.a, r.result.b, r.result.n) == (pytest.approx(ra, abs=1e-12), pytest.approx(rb, abs=1e-12), 6)
    assert r.result.a == pytest.approx(sa["mean"], abs=1e-12)  # A's items are all matched
    assert "rho_llm_rubric" not in c.skipped


def test_validate_rho_point_estimate_is_the_reported_difference(tmp_path: Path) -> None:
    pa: list[float | None] = [2, 3, 3, 4, 1, 3, 5, 2]
    pb: list[float | None] = [1, 3, 4, 5, 1, 5, 2, 4]
    a, b = _validate_run(tmp_path / "a", pa, "ma"), _validate_run(tmp_path / "b", pb, "mb")
    sa, sb = (json.loads((p / "scores.json").read_text())["metrics"]["rho_llm_rubric"]["mean"] for p in (a, b))
    r = next(x for x in compare_runs([a, b], n_resamples=300).metrics if x.name == "rho_llm_rubric").result
    assert r.difference == pytest.approx(sb - sa, abs=1e-12) and r.n == 7 and not math.isnan(r.p_value)
    assert r.exact and r.n_permutations == 128


# ------------------------------------------------------------------ the leaderboard's paired tests


def test_leaderboard_tests_the_three_set_statistics(tmp_path: Path) -> None:
    """Two eval folders (written around the scorers' run folders): every set-statistic cell is tested."""
    from noveval.compare.leaderboard import model_leaderboard

    items = _claimcheck_items()
    spec = {"ma": (MODEL_A, 0, [2, 3, 3, 4, 1, 3, 5, 2]), "mb": (MODEL_B, 1, [1, 3, 4, 5, 1, 5, 2, 4])}
    folders = {}
    for name, (focus_model, shift, rho_preds) in spec.items():
        root = tmp_path / name
        _focus_run(root / "focus", focus_model, name)
        _ca_run(root / "claimcheck", {0: [_guess(it, i + shift) for i, it in enumerate(items)]}, name)
        _validate_run(root / "validate", list(rho_preds), name)
        rows = [{"system": s, "title": s, "run": s, "status": "complete", "metric": m}
                for s, m in (("focus", "kl_mean"), ("claimcheck", "f1_edit"), ("validate", "rho_llm_rubric"))]
        (root / "eval.json").write_text(json.dumps({"settings": {"model": name, "protocol": "noveval", "data": "sample"},
                                                    "rows": rows}))
        folders[name] = root
    board = model_leaderboard([folders["ma"], folders["mb"]], n_resamples=300)
    assert board.settings["comparisons"] == 3
    for run, metric in (("focus", "kl_mean"), ("claimcheck", "f1_edit"), ("validate", "rho_llm_rubric")):
        cell = board.cell("mb", run)
        assert cell is not None and cell.test is not None, (run, cell)
        want = [json.loads((folders[m] / run / "scores.json").read_text())["metrics"][metric]["mean"] for m in ("ma", "mb")]
        assert cell.test.difference == pytest.approx(want[1] - want[0], abs=1e-12)
        assert cell.p_holm is not None and cell.test.ci_low <= cell.test.difference <= cell.test.ci_high
