"""Only comparable rows side by side (issue 37): published rows on the run's data and protocol only.

Two evals of one scripted model (a real HTTP server on 127.0.0.1, tests/fake_openai.py) on the
shipped samples, NovBench and RINoBench; a copy of the same eval folder made "real-data-like"
by hand: its settings and run configs name the real data files (``novbench/coling2020.json``,
``rinobench/test.json``) and the paper protocol, as an eval on ``--data-dir`` records them.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fake_openai import FakeOpenAIServer
from noveval.benchmarks._yardsticks import INVENTED
from noveval.cli.main import app

from .scripted_models import responder

REAL = {"novbench": ("records", "novbench/coling2020.json"), "rinobench": ("items", "rinobench/test.json")}
"""Run -> (its config key naming the data file, the real file under a data folder)."""


def _real_like(sample: Path, out: Path) -> Path:
    """A copy of the sample eval ``sample`` whose settings and run configs name the real data files."""
    shutil.copytree(sample, out)
    ev = json.loads((out / "eval.json").read_text(encoding="utf-8"))
    ev["settings"].update(data="/data", protocol="paper")
    (out / "eval.json").write_text(json.dumps(ev), encoding="utf-8")
    for run, (key, file) in REAL.items():
        cfg = json.loads((out / run / "config.json").read_text(encoding="utf-8"))
        cfg[key] = f"/data/{file}"
        (out / run / "config.json").write_text(json.dumps(cfg), encoding="utf-8")
    return out


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("rows")
    with FakeOpenAIServer(responder=responder("oracle")) as server:
        res = CliRunner().invoke(app, ["-q", "eval", "-m", f"openai-compatible/Qwen2.5-7B-Instruct@{server.base_url}",
                                       "--sample", "--only", "novbench,rinobench", "-o", str(root / "sample")])
    assert res.exit_code == 0, res.output
    return {"sample": root / "sample", "real": _real_like(root / "sample", root / "real")}


def _published_models(folder: Path) -> set[str]:
    """The model names of every published row the runs' scores.json carry (what must not be shown on samples)."""
    return {str(p["model"]) for run in REAL for p in json.loads((folder / run / "scores.json").read_text())["published"]}


def _yardstick_names(folder: Path) -> set[str]:
    """The names of the yardsticks of each run's table metric."""
    out = set()
    for run in REAL:
        scores = json.loads((folder / run / "scores.json").read_text())
        out |= {str(y["name"]) for y in scores["baselines"][scores["primary_metric"]]}
    return out


def _board(*folders: Path) -> str:
    res = CliRunner().invoke(app, ["leaderboard", *map(str, folders), "--resamples", "200"])
    assert res.exit_code == 0, res.output
    return res.output


def test_sample_leaderboard_and_eval_table_list_no_published_row(folders: dict[str, Path]) -> None:
    from noveval.benchmarks._suite import read_eval
    from noveval.cli.eval import format_eval

    carried = _published_models(folders["sample"])
    assert {"GPT-4o", "GPT-5", "o3"} <= carried  # scores.json still carries them: the tables leave them out
    for shown in (_board(folders["sample"]), format_eval(read_eval(folders["sample"]))):
        lines = shown.splitlines()
        text = " ".join(shown.split())  # notes wrap at 120 columns
        assert lines[0].startswith(INVENTED)
        assert max(len(line) for line in lines if not line.startswith("eval folder: ")) <= 120
        assert "published:" not in text and not any(f" {m} " in text or f"{m} ·" in text for m in carried)
        # the rest folded under "other data", each dataset named with its table
        assert "NovBench (EMNLP 2023, not public) (Table 2" in text and "NovBench COLING 2020 (Table 4" in text
        assert "RINoBench test set (Table 3" in text
        names = _yardstick_names(folders["sample"])
        assert names and all(n in text for n in names)  # yardsticks keep their names
    assert "yardstick: chance" not in _board(folders["sample"])


def test_real_data_like_run_shows_its_matching_rows_labelled_with_table_and_dataset(folders: dict[str, Path]) -> None:
    shown = _board(folders["real"])
    text = " ".join(shown.split())
    assert INVENTED not in text and max(len(line) for line in shown.splitlines()) <= 120
    # NovBench: the zero-shot relevance rows of Table 4 (COLING 2020) only, never Table 2's (EMNLP 2023)
    assert "published: GPT-4o · Table 4, NovBench COLING 2020" in text
    assert "published: GPT-3.5 · Table 4, NovBench COLING 2020" in text
    assert "Table 2, NovBench" not in text and "20 rows of NovBench (EMNLP 2023, not public) (Table 2" in text
    # RINoBench: every Table 3 row of its metric
    assert "published: GPT-5 · Table 3, RINoBench test set" in text and "published: o3 · Table 3" in text
    # the same folder under another protocol: no published row is comparable
    ev = folders["real"] / "eval.json"
    doc = json.loads(ev.read_text(encoding="utf-8"))
    doc["settings"]["protocol"] = "noveval"
    other = folders["real"].parent / "real-noveval"
    shutil.copytree(folders["real"], other)
    (other / "eval.json").write_text(json.dumps(doc), encoding="utf-8")
    assert "published:" not in _board(other) and "(Table 4, protocol paper)" in " ".join(_board(other).split())


def test_report_of_a_sample_eval_says_invented_first_and_lists_no_published_row(folders: dict[str, Path],
                                                                               tmp_path: Path) -> None:
    import re

    html = tmp_path / "r.html"
    res = CliRunner().invoke(app, ["report", str(folders["sample"]), "-o", str(html)])
    assert res.exit_code == 0, res.output
    page = html.read_text(encoding="utf-8")
    assert page.index(INVENTED) < page.index('id="leaderboard"')
    cells = " ".join(re.findall(r'<th scope="row">([^<]*)</th>', page))
    assert "paper ·" not in cells and "published:" not in cells
    # "Human" is also NovBench's row of the run's own gold scored as predictions (n = 4), not the paper's
    assert not any(m in cells for m in _published_models(folders["sample"]) - {"Human"})
    assert "majority class (always" in cells and "RINoBench test set (Table 3" in page
    html2 = tmp_path / "real.html"
    res = CliRunner().invoke(app, ["report", str(folders["real"]), "-o", str(html2)])
    assert res.exit_code == 0, res.output
    real = html2.read_text(encoding="utf-8")
    assert INVENTED not in real and "published: GPT-4o · Table 4, NovBench COLING 2020" in real
