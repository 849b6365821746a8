"""Output paths, the shared terminal summary, ``noveval benchmarks``, years, heartbeats.

No traceback from any output path: one line, exit 2. Files are written with the user's
umask. Every benchmark prints the same summary (means, 95% CIs, n, failures, folder).
"""

from __future__ import annotations

import json
import logging
import os
import stat
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli_helpers import cli as _cli
from cli_helpers import one_line_exit_2 as _one_line_exit_2
from noveval.cli.main import app


@pytest.fixture
def prompts(tmp_path: Path) -> Path:
    p = tmp_path / "p.jsonl"
    p.write_text(json.dumps({"id": "a", "prompt": "q"}) + "\n")
    return p


# -- output paths -------------------------------------------------------------------------


def test_out_naming_an_existing_file(tmp_path: Path, prompts: Path) -> None:
    f = tmp_path / "taken"
    f.write_text("x")
    r = _cli("run", "chat", "-i", str(prompts), "-o", str(f))
    _one_line_exit_2(r, f"{f}: --out: is a file, expected a folder")
    assert f.read_text() == "x"


def test_out_under_a_path_that_cannot_be_created(tmp_path: Path, prompts: Path) -> None:
    f = tmp_path / "file"
    f.write_text("x")
    r = _cli("run", "chat", "-i", str(prompts), "-o", str(f / "sub" / "run"))
    _one_line_exit_2(r, f"--out: cannot create this folder: {f} is a file")


def test_report_out_naming_an_existing_folder(tmp_path: Path) -> None:
    run = _rinobench(tmp_path)
    (tmp_path / "folder").mkdir()
    r = _cli("report", str(run), "-o", str(tmp_path / "folder"))
    _one_line_exit_2(r, "--out: is a folder, expected an HTML file name")


def test_report_given_a_file_instead_of_a_run_folder(tmp_path: Path) -> None:
    run = _rinobench(tmp_path)
    r = _cli("report", str(run / "scores.json"), "-o", str(tmp_path / "r.html"))
    _one_line_exit_2(r, "scores.json: is a file; give run folders")
    assert not (tmp_path / "r.html").exists()


def test_score_claimcheck_of_a_missing_run_folder() -> None:
    r = _cli("score", "claimcheck", "nope")
    _one_line_exit_2(r, "nope: no such run folder")


def test_log_file_under_a_file(tmp_path: Path) -> None:
    f = tmp_path / "file"
    f.write_text("x")
    r = CliRunner().invoke(app, ["--log-file", str(f / "log.txt"), "benchmarks"])
    _one_line_exit_2(r, "--log-file")


def test_files_are_written_with_the_users_umask(tmp_path: Path) -> None:
    from noveval.io import write_json

    old = os.umask(0o022)
    try:
        run = _rinobench(tmp_path)
        r = _cli("report", str(run), "-o", str(tmp_path / "report.html"))
        assert r.exit_code == 0, r.output
        write_json(tmp_path / "a.json", {"x": 1})
        os.umask(0o027)
        write_json(tmp_path / "b.json", {"x": 1})
        (tmp_path / "keep.json").write_text("{}")
        os.chmod(tmp_path / "keep.json", 0o600)
        write_json(tmp_path / "keep.json", {"x": 2})  # an existing file keeps its mode
    finally:
        os.umask(old)
    mode = lambda p: stat.S_IMODE((tmp_path / p).stat().st_mode)  # noqa: E731
    assert mode("report.html") == 0o644 and mode("a.json") == 0o644
    assert mode("b.json") == 0o640 and mode("keep.json") == 0o600


# -- the shared summary -------------------------------------------------------------------


def _rinobench(tmp_path: Path) -> Path:
    import importlib.util

    spec = importlib.util.spec_from_file_location("report_conftest", Path(__file__).parents[1] / "report" / "conftest.py")
    mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod.rinobench_run(tmp_path / "runs")  # type: ignore[no-any-return]


def test_summary_table_has_means_cis_n_failures_and_folder(tmp_path: Path) -> None:
    from noveval.cli.summary import format_summary

    run = _rinobench(tmp_path)
    scores = json.loads((run / "scores.json").read_text())
    scores["calls"] = {"requests": 12, "cache_hits": 2, "failed": 3, "failed_earlier": 0,
                       "first_error": "openai-compatible/m@http://h/v1: HTTP 500 (gave up after 6 attempts)"}
    scores["complete"] = False
    text = format_summary(scores, run)
    lines = text.splitlines()
    assert lines[0] == "rinobench · model local/tiny · judge local/tiny"  # the judge comes from config.json
    assert lines[1].split() == ["metric", "mean", "95%", "CI", "n"]
    assert lines[2].split() == ["f1_macro", "*", "0.420", "[0.320,", "0.520]", "3"]
    assert "  * primary metric (higher is better)" in lines
    assert "items: 2 (0 answered unparseably, 0 failed)" in lines
    assert ("model calls: 3 of 12 failed, 2 from the cache (first: openai-compatible/m@http://h/v1: HTTP 500 "
            "(gave up after 6 attempts))") in lines
    assert any(x.startswith("INCOMPLETE:") for x in lines)
    assert lines[-1] == f"run folder: {run.resolve()}"


def test_score_json_prints_scores_json(tmp_path: Path) -> None:
    """``--json`` prints exactly what scores.json holds (completeness included)."""
    gold = Path(__file__).parents[2] / "src" / "noveval" / "samples" / "rinobench" / "test.json"
    n = len(json.loads(gold.read_text()))
    preds = tmp_path / "p.json"
    preds.write_text(json.dumps([{"reasoning": "r", "novelty_score": 3}] * n))
    r = _cli("score", "rinobench", "-p", str(preds), "-g", str(gold), "-o", str(tmp_path / "s"), "--json")
    assert r.exit_code == 0, r.output
    printed = json.loads(r.stdout)
    assert printed == json.loads((tmp_path / "s" / "scores.json").read_text())
    assert printed["complete"] is True and printed["calls"]["requests"] == 0
    r = _cli("score", "rinobench", "-p", str(preds), "-g", str(gold))
    assert r.exit_code == 0 and "f1_macro *" in r.stdout and "run folder: none (pass --out to save)" in r.stdout


def test_bad_prediction_value_exits_2_with_file_line_field(tmp_path: Path) -> None:
    gold = Path(__file__).parents[2] / "src" / "noveval" / "samples" / "rinobench" / "test.json"
    preds = tmp_path / "p.jsonl"
    preds.write_text('{"reasoning": "r", "novelty_score": 3}\n{"reasoning": "r", "novelty_score": "three"}\n')
    r = _cli("score", "rinobench", "-p", str(preds), "-g", str(gold), "-o", str(tmp_path / "s"))
    _one_line_exit_2(r, f"{preds}:2: [1].novelty_score: \"three\" is not a score")
    assert not (tmp_path / "s").exists()


# -- noveval benchmarks -------------------------------------------------------------------


def test_benchmarks_lists_every_registered_system_with_working_commands() -> None:
    from noveval.benchmarks import BENCHMARKS

    r = _cli("benchmarks", "--json")
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)
    assert [x["name"] for x in rows] == list(BENCHMARKS)
    for row in rows:
        assert row["paper"] and row["needs"] and row["data"] and row["commands"], row["name"]
        for cmd in row["commands"]:  # every listed command exists
            h = CliRunner().invoke(app, [*cmd.split()[1:], "--help"])
            assert h.exit_code == 0, (cmd, h.output)
    rino = next(x for x in rows if x["name"] == "rinobench")
    assert any("TimSchopf/RINoBench" in d and "--gold" in d for d in rino["data"])
    assert any("novelty_predictions-o3-2025-04-16.json" in e for e in rino["examples"])
    text = _cli("benchmarks", "rinobench").stdout
    assert text.startswith("rinobench — RINoBench") and "huggingface.co/datasets/TimSchopf/RINoBench" in text
    assert _cli("benchmarks", "nope").exit_code == 2


# -- bad values in corpora ----------------------------------------------------------------


@pytest.mark.parametrize("bad", ["n.d.", "twenty", 21, 20210, True, 1999.5, [2020]])
def test_a_corpus_year_that_is_not_a_year_is_an_input_error(tmp_path: Path, bad: object) -> None:
    from noveval.corpus import load_corpus
    from noveval.errors import InputError

    c = tmp_path / "corpus.jsonl"
    rows = [{"id": "a", "title": "A", "abstract": "x", "year": 2020}, {"id": "b", "title": "B", "abstract": "y", "year": bad}]
    c.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(InputError) as e:
        load_corpus(c)
    assert str(e.value).startswith(f"{c}:2: year: {json.dumps(bad)} is not a year")


def test_years_that_are_years() -> None:
    from noveval.corpus import parse_year

    assert [parse_year(v) for v in (2021, "2021", 2021.0, " 2021-05-03 ", "2021/5", "2021-05-03T10:00:00Z", None, "")] == [
        2021, 2021, 2021, 2021, 2021, 2021, None, None]


# -- heartbeat ----------------------------------------------------------------------------


def test_heartbeat_logs_during_a_silent_stretch(caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    import noveval.progress as pr

    monkeypatch.setattr(pr, "_QUIET", False)
    monkeypatch.setattr(pr.sys.stderr, "isatty", lambda: False, raising=False)
    caplog.set_level(logging.INFO, logger="noveval")
    with pr.heartbeat("demo x", every_s=0.2):
        time.sleep(0.55)
        with pr.track(3, "x: step") as t:
            t.advance()
            time.sleep(0.55)
    lines = [r.getMessage() for r in caplog.records]
    assert sum("demo x: still working" in m for m in lines) >= 2
    assert any(m.startswith("x: step: 1/3") and "working" in m for m in lines)  # repeats the tracker's status
