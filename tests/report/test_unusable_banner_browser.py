"""A run whose answers were mostly empty is shown in red in the report (issue 27 item 2), in real Chromium.

The run is made for real: RINoBench on its sample against a local OpenAI-compatible server that
answers every request with empty content; the run exits 3 and the report marks it incomplete
with the cause (the role, the model, the rate, the first raw answer, the counts per role) in a
red banner above its tables. A second run whose judge answered unreadable text, accepted with
``--allow-unparseable`` (issue 34), is complete and carries a note with its counts per role.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from fake_openai import FakeOpenAIServer
from noveval.cli.main import app

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is absent (install Debian chromium: scripts/setup.sh --browser)"),
]


def test_a_run_of_empty_answers_has_a_red_banner(tmp_path: Path) -> None:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # pragma: no cover
        pytest.skip("the playwright Python package is not installed")
    from fake_openai import REQUEST
    from schema_reply import schema_reply

    def responder(prompt: str) -> str:
        model = (getattr(REQUEST, "body", None) or {}).get("model")
        if prompt == "Reply with OK.":
            return "OK"
        scripted = {"empty": "", "garbage": "I think this is a nice idea overall, hard to say."}
        return scripted[model] if model in scripted else schema_reply(prompt)

    with FakeOpenAIServer(responder=responder) as server:
        spec = f"openai-compatible/empty@{server.base_url}"
        r = CliRunner().invoke(app, ["-q", "run", "rinobench", "-n", "2", "-m", spec, "-o", str(tmp_path / "run")])
        judge = f"openai-compatible/garbage@{server.base_url}"
        ok = CliRunner().invoke(app, ["-q", "run", "rinobench", "-n", "1", "-m", f"openai-compatible/good@{server.base_url}",
                                      "-j", judge, "-o", str(tmp_path / "judged"), "--allow-unparseable"])
    assert r.exit_code == 3, r.output
    assert ok.exit_code == 0, ok.output
    html = tmp_path / "report.html"
    assert CliRunner().invoke(app, ["report", str(tmp_path / "run"), str(tmp_path / "judged"), "-o", str(html)]).exit_code == 0
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(html.resolve().as_uri())
            banner = page.locator("section.bench[data-benchmark='rinobench'] .failed.incomplete")
            assert banner.count() == 1 and banner.is_visible()
            text = banner.inner_text()
            assert "most answers were empty or unparseable" in text and f"model {spec}" in text and "100%" in text
            assert "unusable answers per role: model 2 of 2" in text
            note = page.locator("section.bench[data-benchmark='rinobench'] .note.unusable")
            assert note.count() == 1 and note.is_visible()
            got = note.inner_text()
            assert "judge" in got and "--allow-unparseable" in got and "model 0 of 1" in got
            color = banner.evaluate("e => getComputedStyle(e).borderLeftColor || getComputedStyle(e).color")
            rgb = [int(x) for x in color[color.index("(") + 1: color.index(")")].split(",")[:3]]
            assert rgb[0] > 150 and rgb[0] > rgb[1] + 60 and rgb[0] > rgb[2] + 60, f"not red: {color}"
        finally:
            browser.close()
