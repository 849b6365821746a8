"""``noveval leaderboard``: two models' eval folders as one model × system table, paired tests, CSV, report.

The two models are real HTTP servers on 127.0.0.1 (tests/fake_openai.py) scripted from the
sample's gold: ``Qwen2.5-7B-Instruct`` answers every item right, ``Llama-3.1-8B-Instruct``
answers 3 and "A" throughout.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fake_openai import FakeOpenAIServer
from noveval.cli.main import app
from noveval.compare import compare_runs
from noveval.metrics.paired import holm

from .scripted_models import responder

CHROMIUM = Path("/usr/bin/chromium")


@pytest.fixture(scope="module")
def evals(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two eval folders (RINoBench and the pairwise task on the shipped samples), by model name."""
    root = tmp_path_factory.mktemp("evals")
    out = {}
    for name, kind in (("Qwen2.5-7B-Instruct", "oracle"), ("Llama-3.1-8B-Instruct", "constant")):
        with FakeOpenAIServer(responder=responder(kind)) as server:
            folder = root / name
            res = CliRunner().invoke(app, ["-q", "eval", "-m", f"openai-compatible/{name}@{server.base_url}", "--sample",
                                           "--only", "rinobench", "--only", "novelty-pairs", "-o", str(folder)])
            assert res.exit_code == 0, res.output
        out[name] = folder
    return out


def _board(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(app, ["leaderboard", *args])
    return res.exit_code, res.output


def test_model_by_system_table_with_paired_tests_against_the_baseline(evals: dict[str, Path], tmp_path: Path) -> None:
    qwen, llama = evals["Qwen2.5-7B-Instruct"], evals["Llama-3.1-8B-Instruct"]
    code, text = _board(str(qwen), str(llama), "-o", str(tmp_path / "lb.csv"), "--resamples", "2000")
    assert code == 0, text
    assert "baseline Qwen2.5-7B-Instruct" in text and "v1" not in text.split("\n  Qwen2.5-7B-Instruct = ")[0]
    # the same tests as noveval compare, run by run; Holm over the table's two comparisons
    direct = {run: next(m.result for m in compare_runs([qwen / run, llama / run], n_resamples=2000).metrics
                        if m.name == metric)
              for run, metric in (("rinobench", "f1_macro"), ("novelty-pairs", "accuracy"))}
    assert direct["rinobench"].difference == pytest.approx(0.08 - 0.8)  # class 3 only: F1 2/5 over five classes
    assert direct["novelty-pairs"].difference == pytest.approx(0.5 - 1.0)  # "A": right on one pair of two
    adjusted = holm([direct["rinobench"].p_value, direct["novelty-pairs"].p_value])
    with (tmp_path / "lb.csv").open(encoding="utf-8") as f:
        rows = {(r["label"], r["run"]): r for r in csv.DictReader(f) if r["kind"] == "model"}
    assert set(rows) == {(m, r) for m in evals for r in ("rinobench", "novelty-pairs")}
    for k, run in enumerate(("rinobench", "novelty-pairs")):
        got = rows[("Llama-3.1-8B-Instruct", run)]
        assert float(got["difference"]) == pytest.approx(direct[run].difference)
        assert float(got["p_value"]) == pytest.approx(direct[run].p_value)
        assert float(got["p_holm"]) == pytest.approx(adjusted[k])
        assert float(got["diff_ci_low"]) == pytest.approx(direct[run].ci_low)
        assert int(got["n_matched"]) == direct[run].n == (4 if run == "rinobench" else 2)
        assert got["significant"] == str(adjusted[k] < 0.05) and got["baseline"] == "Qwen2.5-7B-Instruct"
        assert rows[("Qwen2.5-7B-Instruct", run)]["difference"] == ""  # the baseline is not tested against itself
    assert f"−0.720 p={adjusted[0]:.3f}" in text and f"−0.500 p={adjusted[1]:.3f}" in text


def test_baseline_by_name_and_bad_inputs(evals: dict[str, Path], tmp_path: Path) -> None:
    qwen, llama = evals["Qwen2.5-7B-Instruct"], evals["Llama-3.1-8B-Instruct"]
    code, text = _board(str(qwen), str(llama), "--baseline", "Llama-3.1-8B-Instruct", "--json", "--resamples", "500")
    assert code == 0, text
    d = json.loads(text)
    cell = next(c for c in d["cells"] if c["model"] == "Qwen2.5-7B-Instruct" and c["run"] == "rinobench")
    assert d["baseline"] == "Llama-3.1-8B-Instruct" and cell["test"]["difference"] == pytest.approx(0.72)
    code, text = _board(str(qwen), str(llama), "--baseline", "gpt-5")
    assert code == 2 and "--baseline: 'gpt-5' is none of the models" in text
    code, text = _board(str(qwen), str(tmp_path))
    assert code == 2 and "not an eval folder" in text


def test_report_of_eval_folders_opens_with_the_leaderboard(evals: dict[str, Path], tmp_path: Path) -> None:
    from noveval.report.build import build_report

    view = build_report(list(evals.values()))
    assert view.leaderboard is not None and view.leaderboard.baseline == "Qwen2.5-7B-Instruct"
    assert [label for label, _ in view.leaderboard.table.rows[:2]] == ["Qwen2.5-7B-Instruct (baseline)",
                                                                        "Llama-3.1-8B-Instruct"]
    rino = next(b for b in view.benchmarks if b.name == "rinobench")
    assert sorted(r.label for r in rino.runs) == ["Llama-3.1-8B-Instruct", "Qwen2.5-7B-Instruct"]  # not "v1"
    code, text = _board(*map(str, evals.values()), "--report", str(tmp_path / "r.html"), "--resamples", "500")
    assert code == 0 and (tmp_path / "r.html").is_file()
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert html.index('id="leaderboard"') < html.index('data-benchmark="rinobench"')


@pytest.mark.browser
@pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is absent (scripts/setup.sh --browser)")
def test_leaderboard_is_the_first_section_in_a_real_browser(evals: dict[str, Path], tmp_path: Path) -> None:
    playwright = pytest.importorskip("playwright.sync_api")
    html = tmp_path / "report.html"
    res = CliRunner().invoke(app, ["report", *map(str, evals.values()), "-o", str(html)])
    assert res.exit_code == 0, res.output
    errors: list[str] = []
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--headless", "--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(html.resolve().as_uri())
            first = page.locator("main > section").first
            assert first.get_attribute("id") == "leaderboard"
            assert page.locator("nav.toc a").first.inner_text() == "Leaderboard"
            table = first.locator("table.num[data-kind='leaderboard']")
            heads = table.locator("thead th").all_inner_texts()
            assert heads[1:] == ["RINoBench · f1_macro ↑", "Pairwise novelty · accuracy ↑"]
            rows = table.locator("tbody th[scope='row']").all_inner_texts()
            assert rows[:2] == ["Qwen2.5-7B-Instruct (baseline)", "Llama-3.1-8B-Instruct"]
            cells = table.locator("tbody tr").nth(1).locator("td").all_inner_texts()
            assert cells[0].startswith("0.080") and "Δ −0.720" in cells[0].replace("-", "−")
            assert first.bounding_box()["y"] < page.locator("section.bench").first.bounding_box()["y"]
            # the system sections name the runs the same way
            head = page.locator("section.bench[data-benchmark='rinobench'] table.num[data-kind='headline'] thead").inner_text()
            assert "Qwen2.5-7B-Instruct" in head and "v1" not in head
            page.screenshot(path=str(tmp_path / "leaderboard.png"))
        finally:
            browser.close()
    assert not errors


def test_runs_embedded_differently_are_refused(evals: dict[str, Path], tmp_path: Path) -> None:
    """Issue 35: a system's runs whose resolved embedders differ do not join (exit 2, naming both)."""
    import shutil

    folders = []
    for (name, src), emb in zip(evals.items(), ("local/all-MiniLM-L6-v2+bf16", "local/all-MiniLM-L6-v2+bf16@128"),
                                strict=True):
        dst = shutil.copytree(src, tmp_path / name)
        cfg_file = dst / "novelty-pairs" / "config.json"
        cfg = json.loads(cfg_file.read_text(encoding="utf-8"))
        cfg_file.write_text(json.dumps({**cfg, "embedder_resolved": {"id": emb}}), encoding="utf-8")
        folders.append(str(dst))
    code, text = _board(*folders, "--resamples", "200")
    assert code == 2, text
    assert "novelty-pairs: the runs were embedded differently" in text
    assert "local/all-MiniLM-L6-v2+bf16;" in text and "local/all-MiniLM-L6-v2+bf16@128" in text
