"""`noveval compare`: runs scored by the real RINoBench scorer (and hand-written folders), values by hand."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from noveval.benchmarks import rinobench
from noveval.cli.main import app
from noveval.compare import compare_runs, format_comparison
from noveval.errors import InputError
from noveval.metrics.paired import holm

GOLD6 = [1, 2, 3, 4, 5, 3]


def _gold(tmp: Path, scores: list[int], name: str = "gold.json") -> Path:
    """Gold items in the published test.json format with these scores (ids are positions)."""
    idea = {"objective": "Study a question.", "problem_statement": "It is open.", "solution_approach": "Apply a method."}
    items = [{"source": f"https://openreview.net/forum?id=t{i}", "venueid": "ICLR.cc/2023/Conference",
              "research_idea": idea, "novelty_score": s, "novelty_reasoning": "Known method, new problem.",
              "related_works": []} for i, s in enumerate(scores)]
    p = tmp / name
    p.write_text(json.dumps(items), encoding="utf-8")
    return p


def _scored(tmp: Path, name: str, gold: Path, preds: list[int | None]) -> Path:
    """A run folder written by the real scorer for these predicted scores."""
    p = tmp / f"{name}.json"
    p.write_text(json.dumps([{"reasoning": "r", "novelty_score": s} for s in preds]), encoding="utf-8")
    out = tmp / name
    rinobench.score_predictions(p, gold, out=out, n_resamples=50)
    return out


def _write(d: Path, scores: dict, rows: list[dict], config: dict | None = None) -> Path:
    d.mkdir(parents=True)
    (d / "config.json").write_text(json.dumps(config or {"benchmark": scores["benchmark"]}))
    (d / "scores.json").write_text(json.dumps(scores))
    (d / "per_item.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return d


def test_two_runs_by_hand(tmp_path: Path) -> None:
    gold = _gold(tmp_path, GOLD6)
    a = _scored(tmp_path, "a", gold, [1, 2, 3, 3, 3, 3])
    b = _scored(tmp_path, "b", gold, [1, 2, 3, 4, 5, 3])
    c = compare_runs([a, b], n_resamples=2000)
    assert len(c.common) == 6 and not any(c.only.values())
    m = {x.name: x for x in c.metrics}
    # A: class 3 has TP 2, FP 2 (items 4, 5 predicted 3) -> F1 2/3; classes 1, 2 -> 1; 4, 5 -> 0: macro 8/15
    assert m["f1_macro"].primary and c.metrics[0].name == "f1_macro"
    assert m["f1_macro"].result.a == pytest.approx(8 / 15) and m["f1_macro"].result.b == pytest.approx(1.0)
    assert m["f1_macro"].kind == "statistic"
    # MAE: A errs by 1 and 2 on two items -> 3/6; B by 0. Exact test: only the items with
    # differences -1, -2 matter; of their 4 sign patterns 2 reach |sum| >= 3 -> p = 0.5
    mae = m["mean_absolute_error"].result
    assert (mae.a, mae.b, mae.difference) == pytest.approx((0.5, 0.0, -0.5))
    assert mae.exact and mae.p_value == pytest.approx(0.5)
    assert m["mean_absolute_error"].lower_is_better
    assert mae.ci_low <= -0.5 + 1e-12 <= mae.ci_high <= 0.0
    text = format_comparison(c)
    assert "6 items matched by id" in text and "f1_macro *" in text and "+0.467" in text
    assert "unmatched" not in text


def test_unmatched_items_are_listed_and_left_out(tmp_path: Path) -> None:
    a = _scored(tmp_path, "a", _gold(tmp_path, GOLD6), [1, 2, 3, 3, 3, 3])
    b = _scored(tmp_path, "b", _gold(tmp_path, GOLD6[:4], "gold4.json"), [1, 2, 3, 4])
    c = compare_runs([a, b], n_resamples=500)
    assert c.common == ["0", "1", "2", "3"] and c.only == {"a": ["4", "5"], "b": []}
    mae = next(x for x in c.metrics if x.name == "mean_absolute_error").result
    assert (mae.n, mae.a, mae.b) == (4, pytest.approx(0.25), 0.0)  # on the 4 shared items only
    assert "unmatched: 2 item(s) only in a, left out: 4, 5" in format_comparison(c)


def test_cli_text_and_json(tmp_path: Path) -> None:
    gold = _gold(tmp_path, GOLD6)
    a = _scored(tmp_path, "a", gold, [1, 2, 3, 3, 3, 3])
    b = _scored(tmp_path, "b", gold, [1, 2, 3, 4, 5, None])
    res = CliRunner().invoke(app, ["compare", str(a), str(b), "--resamples", "500", "--json"])
    assert res.exit_code == 0, res.output
    d = json.loads(res.output)
    assert d["system"] == "rinobench" and d["matched"]["common"] == 6
    got = {m["name"]: m for m in d["metrics"]}
    assert got["unparseable_rate"]["difference"] == pytest.approx(1 / 6)
    # the worst-error MAE charges B's unparseable gold-3 answer max(3-1, 5-3) = 2: A 3/6, B 2/6
    w = got["mean_absolute_error_unparseable_worst"]
    assert (w["a"], w["b"]) == pytest.approx((0.5, 2 / 6))
    # the plain MAE leaves the unparseable item out in B: both runs' rows must have a value
    assert got["mean_absolute_error"]["n"] == 5
    res = CliRunner().invoke(app, ["compare", str(a), str(b), "--resamples", "500", "--metric", "f1_3"])
    assert res.exit_code == 0, res.output
    assert "f1_3" in res.output and "f1_4 " not in res.output and "f1_macro *" in res.output


def test_three_runs_leaderboard_with_holm(tmp_path: Path) -> None:
    n = 40
    g = [1 + (i % 5) for i in range(n)]
    gold = _gold(tmp_path, g)
    best = _scored(tmp_path, "best", gold, g)
    near = _scored(tmp_path, "near", gold, [s if i % 10 else 3 for i, s in enumerate(g)])
    far = _scored(tmp_path, "far", gold, [3] * n)
    c = compare_runs([far, best, near], n_resamples=1000, n_permutations=2000, metrics=["mean_absolute_error"])
    assert [lb.metric for lb in c.leaderboards] == ["f1_macro", "mean_absolute_error"]
    lb = c.leaderboards[0]
    assert [r.label for r in lb.rows] == ["best", "near", "far"] and lb.best == "best" and lb.n == n  # named by folder (no model recorded)
    raw = [r.p_value for r in lb.rows[1:]]
    assert [r.p_holm for r in lb.rows[1:]] == pytest.approx(holm(raw))
    assert all(r.significant == (r.p_holm < 0.05) for r in lb.rows[1:])
    assert lb.rows[2].significant  # always answering 3 is far below perfect on 40 items
    assert lb.rows[2].value == pytest.approx(0.2 * (2 * 8 / (40 + 8)))  # F1 of class 3 only: 2*8/(40+8), over 5 classes
    mae = c.leaderboards[1]
    assert mae.lower_is_better and mae.rows[0].label == "best" and mae.rows[0].value == 0.0
    text = format_comparison(c)
    assert "Holm" in text and "leaderboard: f1_macro" in text


def test_runs_can_be_labelled(tmp_path: Path) -> None:
    gold = _gold(tmp_path, GOLD6)
    a = _scored(tmp_path, "a", gold, [1, 2, 3, 3, 3, 3])
    b = _scored(tmp_path, "b", gold, [1, 2, 3, 4, 5, 3])
    c = compare_runs([a, b], n_resamples=200, labels=["shipped", "terse"])
    assert [r.label for r in c.runs] == ["shipped", "terse"]
    assert c.agreement is not None and c.agreement.flips[0] == ("3", {"shipped": 3, "terse": 4})
    text = format_comparison(c)
    assert "shipped = " in text and "difference = terse − shipped" in text
    assert text.index("f1_macro *") < text.index("runs:") < text.index("settings that differ")  # the table leads
    for bad in (["x"], ["x", "x"], ["x", ""]):
        with pytest.raises(InputError, match="one distinct, non-empty label per run"):
            compare_runs([a, b], labels=bad)


def test_different_systems_exit_2(tmp_path: Path) -> None:
    a = _scored(tmp_path, "a", _gold(tmp_path, GOLD6), GOLD6)
    f = _write(tmp_path / "focus", {"benchmark": "focus", "metrics": {"kl_mean": {"mean": 0.1, "n": 1}}}, [{"id": "0"}])
    res = CliRunner().invoke(app, ["compare", str(a), str(f)])
    assert res.exit_code == 2
    assert "different systems" in res.output and "a = rinobench" in res.output and "focus = focus" in res.output


def test_different_gold_exit_2_names_file_line_field(tmp_path: Path) -> None:
    a = _scored(tmp_path, "a", _gold(tmp_path, GOLD6), GOLD6)
    b = _scored(tmp_path, "b", _gold(tmp_path, [1, 2, 4, 4, 5, 3], "g2.json"), GOLD6)
    res = CliRunner().invoke(app, ["compare", str(a), str(b)])
    assert res.exit_code == 2
    assert "per_item.jsonl:3: gold_score" in res.output and "different gold" in res.output


@pytest.mark.parametrize("case", ["missing", "unscored", "dup", "same", "one"])
def test_input_errors_exit_2(tmp_path: Path, case: str) -> None:
    a = _scored(tmp_path, "a", _gold(tmp_path, GOLD6), GOLD6)
    other = {"missing": tmp_path / "nope", "same": a}.get(case)
    if case == "unscored":
        other = tmp_path / "u"
        other.mkdir()
        (other / "config.json").write_text(json.dumps({"benchmark": "rinobench"}))
    if case == "dup":
        other = _write(tmp_path / "d", {"benchmark": "rinobench", "metrics": {}}, [{"id": "0"}, {"id": "1"}, {"id": "0"}])
    args = ["compare", str(a)] + ([str(other)] if other is not None else [])
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 2, res.output
    want = {"missing": "no such run folder", "unscored": "per_item.jsonl: missing", "dup": "per_item.jsonl:3: id: duplicate id '0'",
            "same": "given twice", "one": "at least two"}[case]
    assert want in res.output


def test_repeats_over_seeds_are_pooled_per_item(tmp_path: Path) -> None:
    """CLAIMCHECK-style folders: one row per (item, seed); metrics pool an item's rows."""
    def run(name: str, failed: dict[str, list[float]], task: str = "wl") -> Path:
        rows = [{"id": i, "seed": s, "failed": v, "n_gold": 3} for i, vs in failed.items() for s, v in zip((0, 42, 2025), vs, strict=False)]
        vals = [r["failed"] for r in rows]
        scores = {"benchmark": "claimcheck", "task": task, "primary_metric": "alpha_agreement", "greater_is_better": True,
                  "metrics": {"alpha_agreement": {"mean": 0.1, "n": len(failed)},
                              "failed": {"mean": sum(vals) / len(vals), "n": len(failed)}}}
        return _write(tmp_path / name, scores, rows, {"benchmark": "claimcheck", "task": task})

    a = run("a", {"x": [1, 0, 1], "y": [0, 0, 0], "z": [1, 1, 1]})
    b = run("b", {"x": [0], "y": [0], "z": [1]})
    c = compare_runs([a, b], n_resamples=500)
    failed = c.metrics[0]
    assert failed.name == "failed" and failed.result.n == 3
    # A pools 5 failures over 9 rows; B 1 of 3. Swapping moves whole items: item x contributes
    # (2 of 3) vs (0 of 1), z (3 of 3) vs (1 of 1); y nothing. 8 assignments, computed by hand below.
    assert (failed.result.a, failed.result.b) == pytest.approx((5 / 9, 1 / 3))
    assert failed.result.exact
    # the 8 swaps: (A rows, B rows) sums over items x, y, z with each swapped or not
    contrib = {"x": ((2, 3), (0, 1)), "y": ((0, 3), (0, 1)), "z": ((3, 3), (1, 1))}
    hits = 0
    for code in range(8):
        sa, sb = [0, 0], [0, 0]
        for bit, (ca, cb) in enumerate(contrib.values()):
            if code >> bit & 1:
                ca, cb = cb, ca
            sa = [sa[0] + ca[0], sa[1] + ca[1]]
            sb = [sb[0] + cb[0], sb[1] + cb[1]]
        hits += abs(sb[0] / sb[1] - sa[0] / sa[1]) >= abs(1 / 3 - 5 / 9) - 1e-12
    assert failed.result.p_value == pytest.approx(hits / 8)
    assert "alpha_agreement" in c.skipped and "statistic of the whole set" in c.skipped["alpha_agreement"]
    assert any("3 rows (seeds) per item" in n for n in c.notes)
    # a different task of the same system is a different system for compare
    with pytest.raises(InputError, match="different systems"):
        compare_runs([a, run("c", {"x": [0]}, task="ca")])


def test_a_metric_not_reproduced_from_rows_is_not_compared(tmp_path: Path) -> None:
    rows = [{"id": "1", "correct": 1.0}, {"id": "2", "correct": 0.0}]
    s = {"benchmark": "novbench", "primary_metric": "correct", "metrics": {"correct": {"mean": 0.9, "n": 2}}}
    a = _write(tmp_path / "a", s, rows)
    b = _write(tmp_path / "b", {**s, "metrics": {"correct": {"mean": 0.5, "n": 2}}}, rows)
    c = compare_runs([a, b], n_resamples=200)
    assert c.metrics == [] and "scores.json says 0.9" in c.skipped["correct"]
    assert "no metric can be compared" in format_comparison(c)


def test_report_shows_the_comparison(tmp_path: Path) -> None:
    from noveval.report.build import build_report

    gold = _gold(tmp_path, GOLD6)
    a = _scored(tmp_path, "a", gold, [1, 2, 3, 3, 3, 3])
    b = _scored(tmp_path, "b", gold, [1, 2, 3, 4, 5, 3])
    view = build_report([a, b])
    bench = next(x for x in view.benchmarks if x.name == "rinobench")
    assert [t.title.split(":")[0].split(" (")[0] for t in bench.comparisons] == ["Comparison", "Agreement of the runs' answers"]
    t = bench.comparisons[0]
    assert "Comparison" in t.title and "6 items matched by id" in t.caption
    first = t.rows[0]
    assert first[0] == "f1_macro *" and first[1][2].text == "+0.467"


@pytest.mark.integration
def test_bundled_model_two_seeds_compare(tmp_path: Path) -> None:
    """Two real runs of the bundled model (paper protocol, temperature 1, seeds 0 and 1) compared."""
    sample = Path(rinobench.__file__).resolve().parents[2] / "samples" / "rinobench" / "test.json"
    outs = []
    for seed in (0, 1):
        out = tmp_path / f"s{seed}"
        res = CliRunner().invoke(app, ["run", "rinobench", "--items", str(sample), "-n", "2", "--protocol", "paper",
                                       "--seed", str(seed), "--max-tokens", "64", "--out", str(out), "--allow-failures",
                                       "--allow-unparseable"])  # the 135M model's answers parse on some CPUs only
        assert res.exit_code == 0, res.output
        outs.append(out)
    res = CliRunner().invoke(app, ["compare", *map(str, outs), "--json", "--resamples", "200"])
    assert res.exit_code == 0, res.output
    d = json.loads(res.output)
    assert d["matched"]["common"] == 2
    assert d["differs"]["params.seed"] == {"SmolLM2-135M-Instruct-Q4_1 (s0)": 0, "SmolLM2-135M-Instruct-Q4_1 (s1)": 1}
    for m in d["metrics"]:
        assert m["n"] <= 2 and (m["p_value"] is None or 0 < m["p_value"] <= 1)


def test_answer_agreement_by_hand(tmp_path: Path) -> None:
    gold = _gold(tmp_path, [1, 2, 3, 5])
    a = _scored(tmp_path, "a", gold, [1, 2, 3, None])
    b = _scored(tmp_path, "b", gold, [1, 2, 4, None])
    c = _scored(tmp_path, "c", gold, [1, 3, 4, 5])
    comp = compare_runs([a, b, c], n_resamples=500)
    g = comp.agreement
    assert g is not None and g.answer == "predicted_score" and g.n == 4
    # item 0 (1,1,1) agrees; items 1 (2,2,3), 2 (3,4,4), 3 (unparseable, unparseable, 5) flip
    assert g.flip_rate == pytest.approx(3 / 4) and g.n_flips == 3
    assert [f[0] for f in g.flips] == ["1", "2", "3"] and g.flips[2][1] == {"a": None, "b": None, "c": 5}
    # pairs: A-B 3/4 (unparseable = unparseable), A-C 1/4, B-C 2/4
    assert g.pairwise == pytest.approx(0.5)
    # most common answer's share: 1, 2/3, 2/3, 2/3
    assert g.modal_share == pytest.approx(0.75)
    krippendorff = pytest.importorskip("krippendorff")
    ref = krippendorff.alpha(reliability_data=np.array([[1, 2, 3, np.nan], [1, 2, 4, np.nan], [1, 3, 4, 5]]),
                             level_of_measurement="ordinal")
    assert g.alpha == pytest.approx(ref)
    lo, hi = g.flip_ci
    assert 0.0 <= lo <= 0.75 <= hi <= 1.0
    # spread of macro-F1 across the three runs, each value recomputed by hand
    # A: classes 1, 2, 3 right, 5 missed -> F1 1, 1, 1, 0, 0 -> 3/5
    # B: 1, 2 right; 3 -> 4 wrong (F1_3 = 0, F1_4 = 0) -> 2/5
    # C: 1, 5 right; 2 -> 3, 3 -> 4 -> 2/5
    sp = comp.spread["f1_macro"]
    assert sp["values"] == pytest.approx({"a": 0.6, "b": 0.4, "c": 0.4})
    assert (sp["min"], sp["max"], sp["range"]) == pytest.approx((0.4, 0.6, 0.2))
    assert sp["sd"] == pytest.approx(statistics.stdev([0.6, 0.4, 0.4]))
    text = format_comparison(comp)
    assert "flip rate 0.750" in text and "item 3: a unparseable | b unparseable | c 5" in text
    d = comp.to_dict()
    assert d["agreement"]["n_flips"] == 3 and d["spread"]["f1_macro"]["range"] == pytest.approx(0.2)


def test_no_agreement_for_systems_without_an_answer_field(tmp_path: Path) -> None:
    rows = [{"id": "1", "correct": 1.0}, {"id": "2", "correct": 0.0}]
    s = {"benchmark": "novbench", "primary_metric": "correct", "metrics": {"correct": {"mean": 0.5, "n": 2}}}
    c = compare_runs([_write(tmp_path / "a", s, rows), _write(tmp_path / "b", s, rows)], n_resamples=200)
    assert c.agreement is None and "agreement of the runs" not in format_comparison(c)


def test_cli_ci_method_is_validated_by_the_options_model(tmp_path: Path) -> None:
    """--ci takes the declared methods only (a Literal field): one line naming the flag, exit 2."""
    import typing

    from cli_helpers import one_line_exit_2
    from noveval.cli.compare import CiMethod
    from noveval.metrics.paired import CI_METHODS

    assert typing.get_args(CiMethod) == CI_METHODS  # the field's values are the methods compare_runs takes
    gold = _gold(tmp_path, GOLD6)
    a = _scored(tmp_path, "a", gold, [1, 2, 3, 3, 3, 3])
    b = _scored(tmp_path, "b", gold, [1, 2, 3, 4, 5, None])
    one_line_exit_2(CliRunner().invoke(app, ["compare", str(a), str(b), "--ci", "wald"]), "--ci", "bca")
    res = CliRunner().invoke(app, ["compare", str(a), str(b), "--resamples", "500", "--ci", "bca", "--json"])
    assert res.exit_code == 0, res.output
