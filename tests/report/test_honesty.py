"""The report says what a demo is, and marks runs whose model calls failed."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from typer.testing import CliRunner


def _patch(run: Path, **extra: object) -> Path:
    f = run / "scores.json"
    scores = json.loads(f.read_text())
    scores.update(extra)
    f.write_text(json.dumps(scores))
    return run


def test_demo_runs_open_the_page_with_a_banner(make_rinobench_run, tmp_path: Path) -> None:
    from noveval.report import write_report

    marker = {"benchmark": "rinobench", "data": "invented sample items shipped with noveval",
              "model": "the bundled SmolLM2-135M-Instruct", "embedder": "the bundled all-MiniLM-L6-v2",
              "notes": ["2 of 4 invented ideas", "approximate SemNovel: openTSNE transform"], "seconds": 12.0}
    run = _patch(make_rinobench_run(tmp_path), demo=marker)
    html = write_report([run], tmp_path / "r.html").read_text()
    banner = html[html.index('id="demo-banner"'):]
    assert html.index('id="demo-banner"') < html.index('data-benchmark="rinobench"')  # before any number
    assert "This page is a demo, not an evaluation" in banner
    assert "invented sample items shipped with noveval" in banner and "SmolLM2-135M-Instruct" in banner
    assert "<b>rinobench</b>: approximate SemNovel: openTSNE transform" in banner
    assert "How to read it" in banner


def test_a_real_run_has_no_banner(make_rinobench_run, tmp_path: Path) -> None:
    from noveval.report import write_report

    html = write_report([make_rinobench_run(tmp_path)], tmp_path / "r.html").read_text()
    assert 'id="demo-banner"' not in html


def test_an_incomplete_run_is_marked_next_to_its_numbers(make_rinobench_run, tmp_path: Path) -> None:
    from noveval.report import write_report

    calls = {"requests": 20, "cache_hits": 0, "failed": 3, "failed_earlier": 0,
             "first_error": "openai-compatible/m@http://h/v1: connection refused (gave up after 6 attempts)"}
    run = _patch(make_rinobench_run(tmp_path), complete=False, calls=calls)
    html = write_report([run], tmp_path / "r.html").read_text()
    sec = html[html.index('data-benchmark="rinobench"'):]
    box = sec[sec.index("Incomplete run"):][:600]
    assert "3 of 20 model calls failed" in box and "connection refused" in box and "not a result" in box
    assert "tiny (incomplete)" in sec  # the run's column label


@pytest.fixture
def demo_benchmarks(monkeypatch: pytest.MonkeyPatch, rinobench_stand_in):
    from noveval.benchmarks import BENCHMARKS

    mods = {"rinobench": rinobench_stand_in}
    monkeypatch.setattr(BENCHMARKS, "_entries", mods)
    yield mods
    logging.getLogger().handlers.clear()


def test_demo_marks_its_runs_and_ends_with_a_summary_and_the_report(demo_benchmarks, tmp_path: Path) -> None:
    from noveval.cli.main import app

    res = CliRunner().invoke(app, ["--quiet", "demo", "-o", str(tmp_path / "d")])
    assert res.exit_code == 0, res.output
    lines = res.stdout.strip().splitlines()
    assert lines[0].startswith("demo summary (invented items and a tiny model")
    assert lines[1].split()[:4] == ["rinobench", "rinobench-tiny", "f1_macro", "0.420"] and lines[1].endswith("complete")
    assert lines[2].startswith("time: ")
    html = tmp_path / "d" / "report.html"
    assert lines[-1] == f"report: {html.resolve()}"
    scores = json.loads((tmp_path / "d" / "rinobench" / "rinobench-tiny" / "scores.json").read_text())
    assert scores["demo"]["data"] == "invented sample items shipped with noveval"
    from noveval.benchmarks import BENCHMARKS

    assert scores["demo"]["notes"] == list(BENCHMARKS["rinobench"].about.demo)  # the demo's caps, named
    assert scores["demo"]["notes"][0] == "1 of 4 invented ideas, 256 answer tokens; the same bundled model is the judge"
    assert scores["complete"] is True and scores["calls"]["requests"] == 0
    assert 'id="demo-banner"' in html.read_text()
