"""The item panel shows each model call made for the item: its messages and parameters (issue 37 item 8).

The run is made for real: RINoBench on its shipped sample with a judge, against a local
OpenAI-compatible server whose model answers with markup in its reasoning. The report's data
holds each item's calls (a system prompt shared by the items stored once), the parser's verdict
and role joined from ``calls.json``; in real Chromium, a click on an item and on its first call
shows the rendered prompt, the parameters and the reply, escaped.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fake_openai import REQUEST, FakeOpenAIServer
from noveval.cli.main import app
from noveval.models.calls import TRANSCRIPTS_FILE
from noveval.report.items import item_table
from noveval.report.load import load_run
from schema_reply import schema_reply

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
MARKUP = "<b>not bold</b> & <script>x</script>"


def _responder(prompt: str) -> str:
    if (getattr(REQUEST, "body", None) or {}).get("model") == "good" and "research idea" in prompt:
        return json.dumps({"reasoning": MARKUP, "novelty_score": 3})
    return schema_reply(prompt)


@pytest.fixture(scope="module")
def judged_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("transcripts") / "run"
    with FakeOpenAIServer(responder=_responder) as server:
        r = CliRunner().invoke(app, ["-q", "run", "rinobench", "-n", "2", "-m", f"openai-compatible/good@{server.base_url}",
                                     "-j", f"openai-compatible/judge@{server.base_url}", "-o", str(out)])
    assert r.exit_code == 0, r.output
    return out


def _lines(run: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (run / TRANSCRIPTS_FILE).read_text(encoding="utf-8").splitlines()]


def test_the_report_data_holds_each_items_calls(judged_run: Path) -> None:
    rows = _lines(judged_run)
    data = item_table(load_run(judged_run))
    ids = [r[0] for r in data["rows"]]
    for k, iid in enumerate(ids):
        mine = [x for x in rows if x["item"] == iid]
        calls = data["calls"][str(k)]
        assert len(calls) == len({(x["stage"], x["key"]) for x in mine}) > 1
        first = next(x for x in mine if x["stage"] == "predictions")
        got = next(c for c in calls if c["stage"] == "predictions")
        assert [[m["role"], m["content"]] for m in first["messages"]] == [[r, data["texts"][t]] for r, t in got["msgs"]]
        assert got["role"] == "model" and got["usable"] is True and ["max_tokens", "512"] in data["setups"][got["setup"]]["params"]
        assert {c["role"] for c in calls if c["stage"] == "judgments"} == {"judge"}
    system = {x["messages"][0]["content"] for x in rows if x["stage"] == "predictions"}
    assert len(system) == 1 and data["texts"].count(next(iter(system))) == 1  # shared by both items, stored once
    assert data["tcap"] == 8000
    assert len(data["setups"]) < sum(map(len, data["calls"].values()))  # model and parameters shared by calls


def test_transcripts_are_cut_to_fit_their_budget(judged_run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import noveval.report.items as items

    monkeypatch.setattr(items, "TRANSCRIPT_BUDGET", 4_000)
    data = items.item_table(load_run(judged_run))
    assert data["tcap"] == 240 and all(len(t) <= 240 + 80 for t in data["texts"])
    assert all(len(c["reply"]) <= 240 + 80 for cs in data["calls"].values() for c in cs)
    assert any("more characters not included in the report" in t for t in data["texts"])


@pytest.mark.browser
@pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is absent (install Debian chromium: scripts/setup.sh --browser)")
def test_the_item_panel_shows_the_prompt_and_parameters(judged_run: Path, tmp_path: Path) -> None:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # pragma: no cover
        pytest.skip("the playwright Python package is not installed")
    html = tmp_path / "report.html"
    assert CliRunner().invoke(app, ["report", str(judged_run), "-o", str(html)]).exit_code == 0
    rows = _lines(judged_run)
    pred = next(x for x in rows if x["item"] == "1" and x["stage"] == "predictions")
    user = pred["messages"][-1]["content"]
    shot = tmp_path / "report-item-transcripts.png"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            errors: list[str] = []
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.goto(html.resolve().as_uri())
            box = page.locator("section.bench[data-benchmark='rinobench'] .items")
            box.locator("tr.item[data-id='1']").click()
            sec = box.locator(".panel .sec.calls")
            assert sec.count() == 1
            calls = sec.locator("details.call")
            assert calls.count() == len({(x["stage"], x["key"]) for x in rows if x["item"] == "1"})
            first = calls.first
            summary = first.locator("summary").first
            assert summary.inner_text().startswith("model · predictions · ") and "answer usable" in summary.inner_text()
            assert not first.locator(".val").first.is_visible()  # closed until clicked
            summary.click()
            text = first.inner_text()
            assert user[:60] in text and "SYSTEM MESSAGE" in text.upper() and "max_tokens = 512" in text
            assert "temperature = 0.0" in text and "finish: stop" in text
            assert MARKUP in text and sec.locator("b").count() == 0 and sec.locator("script").count() == 0  # escaped
            assert "judge · judgments" in sec.inner_text()
            first.scroll_into_view_if_needed()
            page.screenshot(path=str(shot))
            assert not errors, errors
        finally:
            browser.close()
    if os.environ.get("NOVEVAL_SCREENSHOT_DIR"):
        Path(os.environ["NOVEVAL_SCREENSHOT_DIR"]).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(os.environ["NOVEVAL_SCREENSHOT_DIR"]) / shot.name)
