"""Yardsticks (issue 29): hand-computed values, cross-checks with scikit-learn and the real metrics,
and the one place that writes them into scores.json."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import f1_score

from noveval.metrics import yardsticks as Y
from noveval.yardstick_text import published_summary, reference_text

TEST_COUNTS = {1: 15, 2: 60, 3: 87, 4: 81, 5: 34}  # RINoBench test set, Table 2


def _gold(counts: dict[int, int]) -> list[int]:
    return [c for c, k in counts.items() for _ in range(k)]


def test_best_constant_mae_on_the_rinobench_test_counts_is_0_8628() -> None:
    # always 3: |1-3|*15 + |2-3|*60 + 0*87 + |4-3|*81 + |5-3|*34 = 30 + 60 + 81 + 68 = 239
    answer, mae = Y.best_constant_mae(TEST_COUNTS, [1, 2, 3, 4, 5])
    assert answer == 3 and mae == pytest.approx(239 / 277) and round(mae, 4) == 0.8628
    ys = {y["name"]: y for y in Y.mae_yardsticks(_gold(TEST_COUNTS), [1, 2, 3, 4, 5])}
    assert ys["best constant answer (3)"]["value"] == pytest.approx(239 / 277)
    # uniform: each gold g costs mean |g - c| over c = 1..5: 2, 1.4, 1.2, 1.4, 2
    by_hand = (15 * 2 + 60 * 1.4 + 87 * 1.2 + 81 * 1.4 + 34 * 2) / 277
    assert ys["uniform random"]["value"] == pytest.approx(by_hand)


def test_uniform_expected_macro_f1_by_hand_on_two_items() -> None:
    # gold (1, 2); four equally likely answer pairs: (1,1) 1/3, (1,2) 1, (2,1) 0, (2,2) 1/3 -> 5/12
    assert Y.expected_macro_f1({1: 1, 2: 1}, {1: 0.5, 2: 0.5}, [1, 2]) == pytest.approx(5 / 12)


def test_expected_macro_f1_equals_enumeration_with_scikit_learn() -> None:
    gold = [1, 1, 2, 3]
    probs = {1: 0.5, 2: 0.3, 3: 0.2}
    total = 0.0
    for answers in itertools.product([1, 2, 3], repeat=len(gold)):
        p = np.prod([probs[a] for a in answers])
        total += p * f1_score(gold, answers, labels=[1, 2, 3], average="macro", zero_division=0)
    assert Y.expected_macro_f1({1: 2, 2: 1, 3: 1}, probs, [1, 2, 3]) == pytest.approx(total)


def test_simulations_agree_with_the_exact_expectation_and_the_rinobench_numbers() -> None:
    gold = _gold(TEST_COUNTS)
    ys = {y["name"]: y for y in Y.chance_f1_yardsticks(gold, [1, 2, 3, 4, 5])}
    uni, strat, major = ys["uniform random"], ys["class-frequency random"], ys["majority class (always 3)"]
    assert round(uni["value"], 3) == 0.185 and round(strat["value"], 3) == 0.199
    assert major["value"] == pytest.approx(2 * 87 / (87 + 277) / 5)
    draws = Y.simulate_macro_f1(gold, {c: k / 277 for c, k in TEST_COUNTS.items()}, [1, 2, 3, 4, 5], seed=3)
    assert abs(draws.mean() - strat["value"]) < 3 * draws.std() / np.sqrt(draws.size)
    assert 0.14 < strat["ci_low"] < 0.17 and 0.23 < strat["ci_high"] < 0.26
    assert "exact expectation" in strat["how"] and "10,000" in strat["how"]


def test_simulated_macro_f1_matches_scikit_learn_per_draw() -> None:
    gold = [1, 2, 2, 3, 3, 3]
    # a constant answer has one possible draw: the simulation must give scikit-learn's value
    for labels in ([1, 2, 3], None):
        draws = Y.simulate_macro_f1(gold, {3: 1.0}, labels, n_sims=5)
        want = f1_score(gold, [3] * 6, labels=labels, average="macro", zero_division=0)
        assert draws == pytest.approx([want] * 5)
    assert Y.constant_macro_f1({1: 1, 2: 2, 3: 3}, 3, [1, 2, 3]) == pytest.approx(f1_score(gold, [3] * 6, average="macro"))


def test_shuffled_pairing_on_three_items_by_hand() -> None:
    s = np.array([[9.0, 1, 2], [3, 9, 4], [5, 6, 9]])
    # the two derangements of three items: 0->1->2->0 (1+4+5)/3 and 0->2->1->0 (2+3+6)/3
    y = Y.shuffled_matrix_yardstick(s, seed=1)
    assert y is not None and y["kind"] == "shuffled"
    assert y["value"] == pytest.approx((10 / 3 + 11 / 3) / 2)
    assert 10 / 3 - 1e-9 <= y["ci_low"] <= y["ci_high"] <= 11 / 3 + 1e-9
    assert Y.shuffled_matrix_yardstick(np.ones((1, 1))) is None  # nobody to pair with


def test_shuffled_span_f1_equals_the_real_metric_on_both_derangements() -> None:
    from noveval.metrics.spans import f1_edit, span_counts

    gold = [["the model is not compared with BERT"], ["no ablation of the loss", "the data are small"], []]
    pred = [["no comparison with BERT"], ["the dataset is small"], ["the loss is not ablated"]]
    m = np.array([[span_counts(gold[j], pred[i]).matched for j in range(3)] for i in range(3)])
    y = Y.shuffled_micro_f1_yardstick(m, [len(p) for p in pred], [len(g) for g in gold], seed=0)
    cycles = [(1, 2, 0), (2, 0, 1)]
    by_metric = [f1_edit([gold[c[i]] for i in range(3)], pred) for c in cycles]
    assert y is not None and y["value"] == pytest.approx(np.mean(by_metric))
    assert y["ci_low"] == pytest.approx(min(by_metric)) and y["ci_high"] == pytest.approx(max(by_metric))


def test_pairings_respect_groups() -> None:
    groups = ["a", "a", "b", "b", "b"]
    perms = Y.within_group_derangements(groups, n_sims=200)
    assert perms is not None
    for p in perms:
        assert all(p[i] != i and groups[p[i]] == groups[i] for i in range(5))
    assert Y.within_group_derangements(["a", "b", "b"]) is None  # "a" has nobody else
    apart = ["a", "a", "b", "b", "c", "c"]  # never the own group (e.g. two annotators of one review)
    keys = np.array(apart, dtype=object)
    perms = Y.random_derangements(keys[:, None] == keys[None, :], n_sims=100)
    assert perms is not None and all(apart[p[i]] != apart[i] for p in perms for i in range(6))
    assert Y.random_derangements(np.ones((3, 3), dtype=bool), n_sims=10, max_batches=3) is None


def test_binomial_and_spearman_ranges() -> None:
    assert Y.binomial_rate_range(100) == (0.4, 0.6)
    lo, hi, draws = Y.spearman_null_range(50)
    assert abs(draws.mean()) < 0.01 and lo == pytest.approx(-hi, abs=0.02)
    assert hi == pytest.approx(1.96 / np.sqrt(49), abs=0.02)  # the normal approximation of the null


def test_random_metric_passes_half_of_two_variant_checks_and_a_sixth_of_ax3grad() -> None:
    from noveval.benchmarks.axioms.yardsticks import random_metric

    y = random_metric({"t1": {"Ax1": 40, "Ax3grad": 40}, "t2": {"Ax1": 40, "Ax3grad": 0}})
    assert y is not None and y["value"] == pytest.approx(((50 + 100 / 6) / 2 + 50) / 2)
    # the chain cov4 < cov2 < cov1 of three i.i.d. scores: 1 of the 3! orders
    rng = np.random.default_rng(0)
    x = rng.random((100_000, 3))
    assert ((x[:, 0] < x[:, 1]) & (x[:, 1] < x[:, 2])).mean() == pytest.approx(1 / 6, abs=0.005)


def test_reference_text_and_published_summary() -> None:
    y = Y.yardstick("class-frequency random", "chance", 0.19927, "x", ci_low=0.1536, ci_high=0.2484)
    assert reference_text(y) == "class-frequency random 0.199 [0.154, 0.248]"
    rows = [{"model": "GPT-5", "value": 0.172, "table": "Table 3"}, {"model": "o3", "value": 0.162, "table": "Table 3"}]
    assert published_summary(rows) == "paper (Table 3): GPT-5 0.172 · o3 0.162"
    with pytest.raises(ValueError, match="kind"):
        Y.yardstick("x", "lucky", 0.5, "x")


def test_with_references_places_the_keys_and_keeps_a_broken_hook_from_costing_the_run(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from dataclasses import replace

    from noveval.benchmarks import BENCHMARKS
    from noveval.benchmarks._yardsticks import KEYS, with_references

    scores = {"benchmark": "rinobench", "model": "m", "metrics": {"f1_macro": {"mean": 0.2}, "mean_absolute_error": {"mean": 1}},
              "primary_metric": "f1_macro", "greater_is_better": True, "extra": {"gold_score_distribution": {"2": 1, "3": 1}}}
    out = with_references(scores)
    assert list(out)[5:9] == list(KEYS) and list(out)[-1] == "extra"
    assert out["baselines"]["mean_absolute_error"][0]["value"] == pytest.approx(0.5)
    assert {r["model"] for r in out["published"]} >= {"GPT-5", "o3"} and out["published_note"] is None
    assert with_references(out) is out  # present: not computed again

    def boom(folder: Path | None, s: dict) -> dict:
        raise RuntimeError("no embedder")

    monkeypatch.setitem(BENCHMARKS._load(), "rinobench", replace(BENCHMARKS["rinobench"], yardsticks=boom))
    broken = with_references(scores)
    assert broken["baselines"] == {} and "RuntimeError: no embedder" in broken["baselines_note"]


def test_unsaved_scores_of_rinobench_get_references_on_the_command_line(tmp_path: Path) -> None:
    """The shipped sample's gold (scores 2, 3, 4, 5): the summary and --json carry the yardsticks."""
    from typer.testing import CliRunner

    from noveval.cli.main import app

    gold = Path(__file__).resolve().parents[2] / "src" / "noveval" / "samples" / "rinobench" / "test.json"
    preds = tmp_path / "p.json"
    preds.write_text(json.dumps([{"reasoning": "r", "novelty_score": 3}] * 4), encoding="utf-8")
    env = {"NOVEVAL_CACHE_DIR": str(tmp_path / "cache")}
    r = CliRunner(env=env).invoke(app, ["-q", "score", "rinobench", str(preds), "--gold", str(gold), "--json"])
    assert r.exit_code == 0, r.output
    s = json.loads(r.stdout[r.stdout.index("{"):])
    mae = {y["name"]: y["value"] for y in s["baselines"]["mean_absolute_error"]}
    # always 3 (ties with 4): |2-3| + 0 + |4-3| + |5-3| = 4 over 4 items
    assert mae["best constant answer (3)"] == pytest.approx(1.0) and mae["uniform random"] == pytest.approx(1.5)
    f1 = {y["name"]: y["value"] for y in s["baselines"]["f1_macro"]}
    assert f1["majority class (always 2)"] == pytest.approx(2 * 1 / (1 + 4) / 5)
    r = CliRunner(env=env).invoke(app, ["-q", "score", "rinobench", str(preds), "--gold", str(gold)])
    assert "vs uniform random" in r.stdout and "paper (Table 3): GPT-5 0.172" in r.stdout


@pytest.fixture(scope="module")
def two_scored_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two RINoBench runs scored from predictions against the shipped sample's gold (no model)."""
    from typer.testing import CliRunner

    from noveval.cli.main import app

    tmp = tmp_path_factory.mktemp("refs")
    sample = Path(__file__).resolve().parents[2] / "src" / "noveval" / "samples" / "rinobench" / "test.json"
    gold = tmp / "data" / "rinobench" / "test.json"  # where the real test set lies: its published rows are comparable
    gold.parent.mkdir(parents=True)
    gold.write_bytes(sample.read_bytes())
    out = []
    for name, answers in (("a", [3, 3, 4, 4]), ("b", [2, 3, 4, 4])):
        preds = tmp / f"{name}.json"
        preds.write_text(json.dumps([{"reasoning": "r", "novelty_score": s} for s in answers]), encoding="utf-8")
        r = CliRunner(env={"NOVEVAL_CACHE_DIR": str(tmp / "cache")}).invoke(
            app, ["-q", "score", "rinobench", str(preds), "--gold", str(gold), "-o", str(tmp / name)])
        assert r.exit_code == 0, r.output
        out.append(tmp / name)
    return out[0], out[1]


def test_report_tables_show_reference_rows_that_are_never_bold(two_scored_runs: tuple[Path, Path]) -> None:
    from noveval.report.load import load_run
    from noveval.report.tables import by_run, headline_table

    runs = [load_run(p) for p in two_scored_runs]
    for i, r in enumerate(runs):
        r.label = "AB"[i]
    t = by_run(runs, [("f1_macro", "Macro-F1"), ("mean_absolute_error", "MAE")], "Table 3", "")
    labels = [label for label, _ in t.rows]
    assert labels[:2] == ["A", "B"]
    refs = {label: cells for label, cells in t.rows[2:]}
    assert "yardstick · best constant answer (3) (trivial)" in refs
    assert refs["yardstick · best constant answer (3) (trivial)"][1].value == pytest.approx(1.0)
    assert any(label.startswith("paper · GPT-5 (Table 3") for label in refs)
    assert not any(c.best for cells in refs.values() for c in cells), "reference rows never compete for bold"
    assert any(c.best for _, cells in t.rows[:2] for c in cells) and "yardstick ·" in t.caption
    # the same runs on the shipped sample gold (invented items): no published row is comparable (issue 37)
    from dataclasses import replace

    sample = str(Path(__file__).resolve().parents[2] / "src" / "noveval" / "samples" / "rinobench" / "test.json")
    on_sample = [replace(r, config={k: sample if isinstance(v, str) and v.endswith("rinobench/test.json") else v
                                    for k, v in r.config.items()}) for r in runs]
    refs = [label for label, _ in by_run(on_sample, [("f1_macro", "Macro-F1")], "Table 3", "").rows[2:]]
    assert refs and not any(label.startswith("paper ·") for label in refs)
    assert "RINoBench test set (Table 3" in headline_table(on_sample).caption
    h = headline_table(runs)
    assert h.header[-1].startswith("Yardsticks")
    f1 = next(cells for label, cells in h.rows if label.startswith("Macro-F1"))
    assert "class-frequency random" in f1[-1].text and "GPT-5 0.172" in f1[-1].text and not f1[-1].best


def test_export_writes_a_references_table(tmp_path: Path, two_scored_runs: tuple[Path, Path]) -> None:
    import pandas as pd

    from noveval.export import export_runs

    _, scores_file, _, n_scores, refs_file, n_refs = export_runs(list(two_scored_runs), tmp_path / "out.csv")
    scores = pd.read_csv(scores_file)
    refs = pd.read_csv(refs_file)
    assert refs_file.name == "out.references.csv" and len(refs) == n_refs
    raw = json.loads((two_scored_runs[0] / "scores.json").read_text())
    mine = refs[refs.run == str(two_scored_runs[0])]
    assert len(mine[mine.row == "yardstick"]) == sum(len(v) for v in raw["baselines"].values())
    assert len(mine[mine.row == "published"]) == len(raw["published"])
    gpt5 = mine[(mine.row == "published") & (mine.name == "GPT-5") & (mine.metric == "f1_macro")]
    assert gpt5["value"].tolist() == [0.172] and gpt5["table"].tolist() == ["Table 3"]
    f1 = scores[(scores.run == str(two_scored_runs[0])) & (scores.metric == "f1_macro")]
    assert f1["yardsticks"].iloc[0].startswith("uniform random ")


def test_compare_prints_the_yardsticks_of_the_compared_metric(two_scored_runs: tuple[Path, Path]) -> None:
    from typer.testing import CliRunner

    from noveval.cli.main import app

    r = CliRunner().invoke(app, ["-q", "compare", *map(str, two_scored_runs)])
    assert r.exit_code == 0, r.output
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("yardsticks of f1_macro"))
    assert "uniform random" in line and "paper (Table 3): GPT-5 0.172" in line


def test_axioms_table_gets_the_papers_all_row_and_the_random_metric() -> None:
    from noveval.benchmarks.axioms.views import axioms_tables
    from noveval.benchmarks.axioms.yardsticks import baselines
    from noveval.report.model import RunData

    cols = ["Ax1", "Ax3grad", "Avg"]
    table = {"columns": cols, "by_field": {"ML": {"RND": {"Ax1": 90.0, "Ax3grad": 10.0, "Avg": 50.0}}},
             "overall": {"RND": {"Ax1": 90.0, "Ax3grad": 10.0, "Avg": 50.0}},
             "by_task": {"t": {"RND": {"n": {"Ax1": 100, "Ax3grad": 100}}}}}
    scores = {"metrics": {"RND": {"mean": 50.0}}, "extra": {"table": table}}
    scores["baselines"] = baselines(None, scores)
    run = RunData(path=Path("x"), benchmark="axioms", config={}, scores=scores, predictions=[], judgments=[],
                  per_item=[], label="r")
    (t,), _ = axioms_tables([run])
    rows = {name: cells for name, cells in t.rows}
    assert [c.text for c in rows["paper · All · RND (Table 2)"]] == ["99.0", "6.0", "71.5"]
    rnd = rows["yardstick · random metric (chance)"]
    assert [c.text for c in rnd] == ["50.0", "16.7", f"{(50 + 100 / 6) / 2:.1f}"] and not any(c.best for c in rnd)


def test_a_published_row_is_comparable_only_on_its_data_file_and_protocol() -> None:
    from noveval.benchmarks._yardsticks import OWN_ITEMS, comparable, other_data_text, run_data

    row = {"model": "GPT-4o", "table": "Table 4", "dataset": "NovBench COLING 2020",
           "data_file": "novbench/coling2020.json", "protocol": "paper"}
    real = {"records": "/d/novbench/coling2020.json", "model": "openai-compatible/m@http://h:1/v1"}
    assert comparable(row, run_data(real, protocol="paper"))
    assert comparable(row, run_data(real, protocol=None))  # a run outside an eval: its file decides
    assert not comparable(row, run_data(real, protocol="noveval"))
    assert not comparable(row, run_data({"records": "/d/xnovbench/coling2020.json"}, protocol="paper"))
    assert not comparable(row, run_data(real, protocol="paper", sample=True))
    sample = str(Path(__file__).resolve().parents[2] / "src" / "noveval" / "samples" / "novbench" / "records.json")
    assert run_data({"records": sample}, protocol="paper").sample
    assert not comparable({k: v for k, v in row.items() if k != "data_file"}, run_data(real, protocol="paper"))
    assert comparable({"name": "coin flip", "dataset": OWN_ITEMS}, run_data({"records": sample}, protocol=None))
    assert other_data_text([row, row, {**row, "table": "Table 2", "dataset": "X"}]) == (
        "2 rows of NovBench COLING 2020 (Table 4, protocol paper); 1 row of X (Table 2, protocol paper)")
