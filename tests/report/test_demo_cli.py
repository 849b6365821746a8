"""``noveval demo`` with stand-in benchmarks: report path printed, failed demos listed, logs."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from typer.testing import CliRunner


@pytest.fixture
def fake_benchmarks(monkeypatch: pytest.MonkeyPatch, make_rinobench_run):
    def good(out_dir: Path, **_: object) -> list[Path]:
        return [make_rinobench_run(Path(out_dir))]

    def bad(out_dir: Path, **_: object) -> list[Path]:
        raise RuntimeError("sample data missing")

    from dataclasses import replace

    from noveval.benchmarks import BENCHMARKS

    rino = BENCHMARKS["rinobench"]
    mods = {"rinobench": replace(rino, demo=good), "broken": replace(rino, name="broken", demo=bad),
            "chat": replace(BENCHMARKS["chat"], demo=None)}
    monkeypatch.setattr(BENCHMARKS, "_entries", mods)
    yield mods
    logging.getLogger().handlers.clear()


def test_demo_writes_report_and_lists_failures(fake_benchmarks, tmp_path: Path) -> None:
    from noveval.cli.main import app

    log = tmp_path / "logs" / "demo.log"
    res = CliRunner().invoke(app, ["--quiet", "--log-file", str(log), "demo", "-o", str(tmp_path / "d")])
    html = tmp_path / "d" / "report.html"
    assert res.exit_code == 1  # a failed demo is not hidden ...
    assert f"report: {html.resolve()}" in res.stdout  # ... but the others still give a report
    page = html.read_text()
    assert 'data-benchmark="broken"' in page and "sample data missing" in page
    assert 'data-benchmark="rinobench"' in page
    text = log.read_text()
    assert "== demo 1/2: rinobench" in text and "FAILED" in text and "sample data missing" in text


def test_demo_only_unknown_is_an_input_error(fake_benchmarks, tmp_path: Path) -> None:
    from noveval.cli.main import app

    res = CliRunner().invoke(app, ["demo", "-o", str(tmp_path / "d"), "--only", "nope"])
    assert res.exit_code == 2
    assert not (tmp_path / "d" / "report.html").exists()


def test_demo_only_selects(fake_benchmarks, tmp_path: Path) -> None:
    from noveval.cli.main import app

    res = CliRunner().invoke(app, ["demo", "-o", str(tmp_path / "d"), "--only", "rinobench"])
    assert res.exit_code == 0, res.output
    assert "broken" not in (tmp_path / "d" / "report.html").read_text()


def test_demo_only_a_benchmark_without_a_demo_says_so(fake_benchmarks, tmp_path: Path) -> None:
    """Not "no benchmark demos are installed yet" (issue 38): the named one declares no demo hook."""
    from noveval.cli.main import app

    res = CliRunner().invoke(app, ["demo", "-o", str(tmp_path / "d"), "--only", "chat"])
    assert res.exit_code == 2 and "chat: no demo" in res.output and "rinobench" in res.output, res.output
    assert "installed yet" not in res.output and not (tmp_path / "d").exists()


def test_demo_takes_the_run_folders_a_hook_made_but_did_not_return(fake_benchmarks, monkeypatch: pytest.MonkeyPatch,
                                                                   make_rinobench_run, tmp_path: Path) -> None:
    from dataclasses import replace

    from noveval.cli.main import app
    from noveval.models.calls import active_ledger

    def silent(out_dir: Path, **_: object) -> list[Path]:
        ledger = active_ledger()
        assert ledger is not None
        ledger.enter_run(make_rinobench_run(Path(out_dir)))  # what RunDir.create does
        return []

    monkeypatch.setitem(fake_benchmarks, "rinobench", replace(fake_benchmarks["rinobench"], demo=silent))
    res = CliRunner().invoke(app, ["demo", "-o", str(tmp_path / "d"), "--only", "rinobench"])
    assert res.exit_code == 0, res.output
    assert "installed yet" not in res.output and "rinobench-tiny" in res.stdout
    assert 'data-benchmark="rinobench"' in (tmp_path / "d" / "report.html").read_text()
