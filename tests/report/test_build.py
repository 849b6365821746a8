"""build.py and friends: table values equal scores.json, tolerant loading, drill-down joins."""

from __future__ import annotations

import json
from pathlib import Path

from noveval.report.build import build_report
from noveval.report.fmt import num
from noveval.report.items import item_table
from noveval.report.load import find_runs, load_run


def _scores(p: Path) -> dict:
    return json.loads((p / "scores.json").read_text())


def test_headline_values_equal_scores_json(hand_runs: list[Path]) -> None:
    rep = build_report(hand_runs)
    rino = next(b for b in rep.benchmarks if b.name == "rinobench")
    assert len(rino.runs) == 2 and len(rino.headline.header) == 2
    rows = dict(rino.headline.rows)
    assert rino.headline.rows[0][0].startswith("Macro-F1")  # primary metric first
    for j, run in enumerate(rino.runs):
        metrics = _scores(run.path)["metrics"]
        f1 = rows["Macro-F1 ★"][j]
        assert f1.value == metrics["f1_macro"]["mean"]
        assert f1.text == num(metrics["f1_macro"]["mean"])
        assert f1.ci == f"[{num(metrics['f1_macro']['ci_low'])}, {num(metrics['f1_macro']['ci_high'])}]"
        assert rows["MAE"][j].value == metrics["mean_absolute_error"]["mean"]
    # higher macro-F1 is best; the run with 0.61 wins
    assert [c.best for c in rows["Macro-F1 ★"]] == [False, True]


def test_paper_tables(hand_runs: list[Path]) -> None:
    rep = build_report(hand_runs)
    by = {b.name: b for b in rep.benchmarks}
    assert [b.name for b in rep.benchmarks] == ["rinobench", "focus", "axioms", "mystery"]
    t3 = by["rinobench"].tables[0]
    assert t3.title.startswith("Table 3")
    assert t3.rows[1][1][0].value == 0.61 and t3.header[:3] == ["Macro-F1", "MAE", "Alignment"]
    assert any("mean_novelty_aspects_recall" in g for g in by["rinobench"].gaps)
    ft = by["focus"].tables[0]
    kl = _scores(by["focus"].runs[0].path)["extra"]["kl"]
    assert ft.header[0] == "Protocol" and ft.rows[0][1][0].text == "noveval"  # a run from before protocols
    assert ft.rows[0][1][1].value == kl["mean"] and ft.rows[0][1][3].value == kl["weakness/target"]
    ax = by["axioms"].tables[0]
    rows = dict(ax.rows)
    assert rows["All · Yin"][0].value == 80.0 and rows["All · Yin"][2].text == "–"
    assert by["mystery"].tables == [] and by["mystery"].headline.rows[0][1][0].value == 0.7
    assert len(by["rinobench"].figures) == 3 and len(by["focus"].figures) == 1 and len(by["axioms"].figures) == 1
    assert all(f.src.startswith("data:image/png;base64,") for b in rep.benchmarks for f in b.figures)


def test_config_shows_models_prompts_versions(hand_runs: list[Path]) -> None:
    rino = build_report(hand_runs[:1]).benchmarks[0]
    pairs = dict(rino.configs[0][1])
    assert pairs["model"] == "local/tiny" and pairs["judge"] == "local/tiny"
    assert pairs["prompts.judge_novelty"] == "885090b7bdf4" and pairs["noveval_version"] == "0.1.0"
    assert pairs["predictions cached"] == "1 of 2"


def test_items_join_by_id(hand_runs: list[Path]) -> None:
    run = load_run(hand_runs[0])
    data = item_table(run, ("predicted_score", "novelty_score"))
    assert data["total"] == 2 and [r[0] for r in data["rows"]] == ["idea-1", "idea-2"]
    first = data["details"][0]
    kinds = {s["kind"]: s for s in first["sections"]}
    assert {"input", "output", "judge"} <= set(kinds)
    assert kinds["output"]["fields"][0][0] in ("reasoning", "raw", "novelty_score")
    assert any("ALIGNED" in v for _, v in kinds["judge"]["fields"])
    # the per-item fields are table columns (gold and answer first), not repeated in the details;
    # the page puts them back into the panel's Gold / Scores sections
    cols = {c["name"]: c for c in data["cols"]}
    assert [c["name"] for c in data["cols"]][:2] == ["gold_score", "predicted_score"]
    assert cols["gold_score"]["role"] == "gold" and cols["gold_score"]["sec"] == "gold"
    assert cols["predicted_score"]["role"] == "answer" and cols["correct"]["sec"] == "scores"
    assert data["rows"][1][1:3] == [2, 4] and "gold_score" not in json.dumps(data["details"])
    # focus: several judgment rows per paper_id all land on the paper
    focus = item_table(load_run(hand_runs[2]))
    assert focus["total"] == 1 and "[1] text" in json.dumps(focus["details"][0])


def test_tolerant_loading(tmp_path: Path, make_rinobench_run) -> None:
    d = make_rinobench_run(tmp_path)
    with (d / "predictions.jsonl").open("a") as fh:
        fh.write("{torn line\n")
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "config.json").write_text("{}")
    assert find_runs([tmp_path]) == [tmp_path / "empty", d]
    rep = build_report([tmp_path])
    assert rep.run_count == 2
    cfg = dict(next(b for b in rep.benchmarks if b.name == "rinobench").configs[0][1])
    assert "malformed" in json.dumps(cfg)
    empty = next(b for b in rep.benchmarks if b.name == "empty")
    assert "no metrics in scores.json" in empty.gaps


def test_cli_report(hand_runs: list[Path], tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from noveval.cli.main import app

    out = tmp_path / "r.html"
    res = CliRunner().invoke(app, ["report", *map(str, hand_runs[:2]), "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert out.exists() and str(out.resolve()) in res.output
    html = out.read_text()
    assert "<script>alert(1)</script>" not in html  # item texts are JSON-escaped
    assert "http://" not in html.replace("http://www.w3.org", "") and "https://" not in html
    res = CliRunner().invoke(app, ["report", str(tmp_path / "nope"), "-o", str(out)])
    assert res.exit_code == 2


def test_every_item_is_in_the_page_and_its_size_is_bounded(tmp_path: Path) -> None:
    """No cap on the item count: 4,000 items of 25,000-character outputs are all in the table,
    each with its details, fields cut to the smallest cap (said in the field)."""
    from noveval.report import write_report
    from noveval.report.items import CAPS

    d = tmp_path / "big"
    d.mkdir()
    (d / "scores.json").write_text(json.dumps({"benchmark": "big", "metrics": {"acc": {"mean": 0.5}}}))
    rows = [{"id": f"i{i}", "output": "word " * 5000, "acc": float(i % 2)} for i in range(4000)]
    (d / "per_item.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    data = item_table(load_run(d))
    assert data["total"] == len(data["rows"]) == len(data["details"]) == 4000
    assert data["rows"][3999] == ["i3999", 1.0] and data["cap"] == CAPS[-1]
    text = data["details"][3999]["sections"][0]["fields"][0][1]
    assert text.startswith("word word") and f"[{25_000 - CAPS[-1]:,} more characters not included" in text
    html = write_report([d], tmp_path / "r.html")
    assert html.stat().st_size < 2_500_000


def test_report_reads_typed_scores(tmp_path: Path, make_rinobench_run) -> None:
    """The report reads scores through :class:`noveval.scores.Scores`: an old file's bare-number
    metric becomes a value, a malformed metric entry is a listed problem, not a crash."""
    d = make_rinobench_run(tmp_path / "a")
    scores = json.loads((d / "scores.json").read_text())
    scores["metrics"]["f1_macro"] = 0.375  # bare number, as very old run folders wrote it
    (d / "scores.json").write_text(json.dumps(scores))
    run = load_run(d)
    assert run.metrics["f1_macro"].mean == 0.375 and run.typed.primary_metric == "f1_macro"
    rep = build_report([d])
    head = next(b for b in rep.benchmarks if b.name == "rinobench").headline
    assert head is not None
    f1_row = next(cells for label, cells in head.rows if label.startswith("F1") or "macro" in label.lower())
    assert f1_row[0].value == 0.375
    bad = make_rinobench_run(tmp_path / "b")
    scores["metrics"]["f1_macro"] = {"mean": "high"}
    (bad / "scores.json").write_text(json.dumps(scores))
    run = load_run(bad)
    assert any("scores.json" in p and "f1_macro" in p for p in run.problems), run.problems
    assert run.metrics == {}
    build_report([bad])  # still renders


def test_a_prompt_variants_folder_lists_its_baseline_first(tmp_path: Path) -> None:
    """Runs of a --prompt-variants folder take variants.json's order (baseline first); nothing else moves."""
    def run(path: Path) -> Path:
        path.mkdir(parents=True)
        (path / "config.json").write_text('{"benchmark": "rinobench"}')
        return path

    root = tmp_path / "runs"
    before = run(root / "aaa")  # a run beside the variants folder keeps its place
    out = root / "variants"
    a, b, shipped = run(out / "a"), run(out / "b"), run(out / "shipped")
    stray = run(out / "0-not-a-variant")  # a run variants.json does not list: after the listed ones
    plain = root / "zzz"
    p_a, p_shipped = run(plain / "a"), run(plain / "shipped")  # no variants.json: alphabetical as before
    assert find_runs([root]) == [before, stray, a, b, shipped, p_a, p_shipped]
    (out / "variants.json").write_text(json.dumps({"kind": "prompt_variants", "baseline": "shipped",
                                                   "variants": {"shipped": {}, "a": {}, "b": {}}}))
    assert find_runs([root]) == [before, shipped, a, b, stray, p_a, p_shipped]
    assert find_runs([out]) == [shipped, a, b, stray]
    assert find_runs([b, a]) == [b, a]  # folders named one by one: the order given
    (out / "variants.json").write_text("{torn")
    assert find_runs([out]) == [stray, a, b, shipped]
