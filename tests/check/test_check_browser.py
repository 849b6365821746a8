"""The `noveval check` HTML report renders in headless Chromium: every section, no network."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from noveval.cli.main import app

from .test_cli import CORPUS, IDEA

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is absent (scripts/setup.sh --browser installs it)"),
]


def test_check_report_renders_in_chromium(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"id": f"c{i}", "title": t, "abstract": a, "year": y}) + "\n"
                              for i, (t, a, y) in enumerate(CORPUS)), encoding="utf-8")
    idea = tmp_path / "idea.md"
    idea.write_text(IDEA, encoding="utf-8")
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["check", str(idea), "--corpus", str(corpus), "--top-k", "3", "-o", str(out)])
    assert res.exit_code == 0, res.output

    errors: list[str] = []
    requests: list[str] = []
    shot = tmp_path / "check.png"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("request", lambda r: requests.append(r.url))
            page.goto((out / "check.html").resolve().as_uri())
            page.wait_for_load_state("load")
            headings = page.locator("h2").all_inner_texts()
            for want in ("Input", "Evidence per contribution", "Closest prior work", "Corpus novelty metrics",
                         "Model judgment", "Structured evaluation"):
                assert any(h.startswith(want) for h in headings), (want, headings)
            assert headings[0] == "Input"  # the parsed input comes first
            tables = page.locator("table")
            # the input table: header, title, problem, objective, approach and the idea's two contributions
            assert tables.nth(0).locator("tr").count() == 1 + 4 + 2
            rows = tables.nth(2).locator("tr")  # input, evidence, closest prior work
            assert rows.count() == 1 + 3  # header + top-3 retrieved works
            assert "Sparse linear probes" in page.content()
            page.screenshot(path=str(shot), full_page=True)
        finally:
            browser.close()
    assert not errors, errors
    assert all(u.startswith("file://") for u in requests), requests
    if os.environ.get("NOVEVAL_SCREENSHOT_DIR"):
        Path(os.environ["NOVEVAL_SCREENSHOT_DIR"]).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(os.environ["NOVEVAL_SCREENSHOT_DIR"]) / "check.png")
