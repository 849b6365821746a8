"""The CLI (``noveval validate run|score|ceiling``, ``noveval score validate``) and the report's Validity section."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from noveval.cli.main import app

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def test_report_has_the_validity_section(sample_run, tmp_path):
    from noveval.report.build import build_report
    from noveval.report.render import write_report

    view = build_report([sample_run])
    (bench,) = view.benchmarks
    assert bench.name == "validate" and bench.title == "Validity"
    main = bench.tables[0]
    assert [label for label, _ in main.rows][:2] == ["Yin", "RND"]
    assert main.header[0] == "Spearman ρ" and main.header[-1] == "human ceiling"
    scores = json.loads((sample_run / "scores.json").read_text())
    yin = next(r for r in scores["extra"]["table"] if r["predictor"] == "Yin")
    assert main.rows[0][1][0].value == pytest.approx(yin["rho"])
    assert main.rows[0][1][-1].text == f"{scores['extra']['ceiling']['rho']:.3f}"
    assert any("keyword group" in t.title for t in bench.tables)
    assert {f.title.split(" (")[0] for f in bench.figures} >= {"Human rating by predictor quintile", "Per-paper scatter"}
    html = write_report([sample_run], tmp_path / "report.html").read_text()
    assert 'id="validate"' in html and "human ceiling" in html


def test_score_command_reprints_the_table(sample_run):
    r = CliRunner().invoke(app, ["score", "validate", str(sample_run)])
    assert r.exit_code == 0, r.output
    assert "human ceiling" in r.output and "Yin" in r.output and "LLM rubric (1-5)" in r.output
    r = CliRunner().invoke(app, ["validate", "score", str(sample_run), "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["benchmark"] == "validate"


def test_run_command_quick_and_bad_options(sample_files, tmp_path):
    reviews, corpus = sample_files
    out = tmp_path / "quick"
    args = ["validate", "run", "-o", str(out), "--reviews", str(reviews), "--corpus", str(corpus), "-m", "none",
            "--metric", "Yin", "--pool", "field", "--pool-size", "30", "--resamples", "50", "--min-group", "4"]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    assert "Yin" in r.output and "SemNovel" not in r.output
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["pool"]["mode"] == "field" and cfg["model"] is None
    items = [json.loads(x) for x in (out / "per_item.jsonl").read_text().splitlines()]
    assert {it["pool_size"] for it in items} <= {30, 29}  # one paper loses its same-title listing
    bad = tmp_path / "bad"
    r = CliRunner().invoke(app, ["validate", "run", "-o", str(bad), "--reviews", str(reviews), "--corpus",
                                 str(corpus), "-m", "none", "--pool", "all"])
    assert r.exit_code == 2 and "--pool" in r.output and not bad.exists()


def test_ceiling_command(tmp_path, sample_files):
    tsv = tmp_path / "pr.tsv"
    tsv.write_text("id\tORIGINALITY\n" + "".join(f"{i}\t{s}\n" for i, ss in enumerate([[1, 2], [3, 4], [2, 2], [4, 3]])
                                                  for s in ss))
    r = CliRunner().invoke(app, ["validate", "ceiling", str(tsv), "--min-raters", "2", "--resamples", "50"])
    assert r.exit_code == 0, r.output
    assert "leave-one-reviewer-out Spearman" in r.output and "over 4 papers" in r.output
    r = CliRunner().invoke(app, ["validate", "ceiling", str(sample_files[0]), "--resamples", "50"])
    assert r.exit_code == 0 and "over 24 papers" in r.output
