"""``noveval demo`` with stand-in benchmarks: report path printed, failed demos listed, logs.

A demo hook says what to run (:class:`~noveval.benchmarks.DemoRun`); the demo runs it through
the runner. The stand-in system's ``run`` writes a finished RINoBench run folder (no model call).
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from typer.testing import CliRunner


@pytest.fixture
def fake_benchmarks(monkeypatch: pytest.MonkeyPatch, rinobench_stand_in):
    def bad(**_: object) -> list[object]:
        raise RuntimeError("sample data missing")

    from dataclasses import replace

    from noveval.benchmarks import BENCHMARKS

    rino = rinobench_stand_in
    mods = {"rinobench": rino, "broken": replace(rino, name="broken", demo=bad),
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


def test_a_demo_run_goes_through_the_runner_and_its_after_step(fake_benchmarks, monkeypatch: pytest.MonkeyPatch,
                                                               tmp_path: Path) -> None:
    """The runner marks the folder (``complete``, ``calls``), then the hook's ``after`` step runs on it (issue 38)."""
    import json
    from dataclasses import replace

    from noveval.benchmarks import DemoRun
    from noveval.cli.main import app

    seen: list[Path] = []

    def demo(**_: object) -> list[DemoRun]:
        return [DemoRun("rinobench-tiny", {"limit": 1}, after=seen.append)]

    monkeypatch.setitem(fake_benchmarks, "rinobench", replace(fake_benchmarks["rinobench"], demo=demo))
    res = CliRunner().invoke(app, ["demo", "-o", str(tmp_path / "d"), "--only", "rinobench"])
    assert res.exit_code == 0, res.output
    folder = tmp_path / "d" / "rinobench" / "rinobench-tiny"
    assert seen == [folder]
    scores = json.loads((folder / "scores.json").read_text())
    assert scores["complete"] is True and scores["calls"]["requests"] == 0 and scores["demo"]["benchmark"] == "rinobench"


def test_a_demo_run_whose_endpoint_fails_its_check_stops_the_demo(fake_benchmarks, monkeypatch: pytest.MonkeyPatch,
                                                                  tmp_path: Path) -> None:
    """The runner's endpoint check holds for a demo run too: a refused endpoint is exit 2 before any work."""
    from dataclasses import replace

    from cli_helpers import closed_port
    from noveval.benchmarks import DemoRun
    from noveval.cli.main import app

    spec = f"openai-compatible/m@http://127.0.0.1:{closed_port()}/v1"

    def demo(**_: object) -> list[DemoRun]:
        return [DemoRun("rinobench-tiny", {"limit": 1}, model=spec)]

    monkeypatch.setitem(fake_benchmarks, "rinobench", replace(fake_benchmarks["rinobench"], demo=demo))
    res = CliRunner().invoke(app, ["demo", "-o", str(tmp_path / "d"), "--only", "rinobench"])
    assert res.exit_code == 2, res.output
    assert "127.0.0.1" in res.output and not (tmp_path / "d" / "rinobench" / "rinobench-tiny").exists()
