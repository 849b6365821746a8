"""The HTML report renders in a real headless Chromium: sections, figures, drill-down.

Needs Debian ``chromium`` at ``/usr/bin/chromium`` (``scripts/setup.sh --browser``) and the
``playwright`` Python package; Playwright never downloads a browser here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is absent (install Debian chromium: scripts/setup.sh --browser)"),
]


def _playwright():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # pragma: no cover
        pytest.skip("the playwright Python package is not installed")
    return sync_playwright


def _screenshot_copy(shot: Path, name: str) -> None:
    target = os.environ.get("NOVEVAL_SCREENSHOT_DIR")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(target) / name)


def check_report(html: Path, shot: Path, benchmarks: list[str], *, min_figures: int) -> dict:
    """Open ``html`` from disk and assert the page is complete and interactive.

    Returns:
        Facts about the page (for extra assertions by the caller).
    """
    sync_playwright = _playwright()
    errors: list[str] = []
    requests: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("request", lambda r: requests.append(r.url))
            page.goto(html.resolve().as_uri())
            page.wait_for_load_state("load")

            for b in benchmarks:
                sec = page.locator(f"section.bench[data-benchmark='{b}']")
                assert sec.count() == 1, f"section {b} missing"
                assert sec.locator("table.num[data-kind='headline'] tbody tr").count() >= 1, f"{b}: empty headline table"
                assert sec.locator(".items .itemlist button.item").count() >= 1, f"{b}: no drill-down items"
                assert sec.locator("details.cfg").count() >= 1, f"{b}: no run configuration"

            figs = page.locator("figure img, figure svg")
            assert figs.count() >= min_figures, f"{figs.count()} figures < {min_figures}"
            for i in range(figs.count()):
                f = figs.nth(i)
                f.scroll_into_view_if_needed()
                box = f.bounding_box()
                assert box and box["width"] > 50 and box["height"] > 50, f"figure {i} has no size: {box}"
                assert f.evaluate("e => e.tagName !== 'IMG' || (e.complete && e.naturalWidth > 0)"), f"figure {i} did not decode"

            # drill-down: click the first item of each benchmark; the panel shows its sections
            for b in benchmarks:
                sec = page.locator(f"section.bench[data-benchmark='{b}']")
                sec.locator(".itemlist button.item").first.click()
                panel = sec.locator(".panel")
                assert panel.locator(".sec").count() >= 1, f"{b}: panel empty after click"
                assert panel.locator("h4").inner_text().strip(), f"{b}: panel has no item id"

            page.screenshot(path=str(shot), full_page=True)
            facts = {"html": page.content(), "page": None}
            facts["failures"] = page.locator("#failures .fail").evaluate_all("els => els.map(e => e.dataset.benchmark)")
            facts["panels"] = {b: page.locator(f"section.bench[data-benchmark='{b}'] .panel").inner_text() for b in benchmarks}
        finally:
            browser.close()
    assert not errors, f"console errors: {errors}"
    external = [u for u in requests if not (u.startswith("file://") or u.startswith("data:"))]
    assert not external, f"network requests: {external}"
    assert shot.stat().st_size > 10_000
    return facts


def test_hand_made_runs_render(hand_runs: list[Path], tmp_path: Path) -> None:
    from noveval.report import write_report

    html = write_report(hand_runs, tmp_path / "report.html", failures=[("novbench", "RuntimeError: sample missing")])
    assert html.stat().st_size < 3_000_000
    shot = tmp_path / "report-hand.png"
    facts = check_report(html, shot, ["rinobench", "focus", "axioms", "mystery"], min_figures=4)
    _screenshot_copy(shot, "report-hand.png")
    assert "Table 3" in facts["html"] and "Table 2" in facts["html"]
    # model output is what the panel shows (rinobench's first item has a long reasoning)
    assert "contrastive decoding" in facts["panels"]["rinobench"]
    assert "forty-two" in facts["panels"]["mystery"]
    assert facts["failures"] == ["novbench"]


def test_show_more_and_escaping(hand_runs: list[Path], tmp_path: Path) -> None:
    from noveval.report import write_report

    html = write_report(hand_runs[:1], tmp_path / "r.html")
    sync_playwright = _playwright()
    dialogs: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = browser.new_page()
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.goto(html.resolve().as_uri())
            items = page.locator(".itemlist button.item")
            items.nth(0).click()
            panel = page.locator(".panel")
            short = len(panel.inner_text())
            panel.locator("a.toggle").first.click()
            assert len(panel.inner_text()) > short + 500
            items.nth(1).click()  # reasoning holds a <script> tag: shown as text, never run
            assert "<script>alert(1)</script>" in panel.inner_text()
        finally:
            browser.close()
    assert not dialogs


@pytest.mark.integration
@pytest.mark.slow
def test_demo_report_renders(tmp_path: Path) -> None:
    """``noveval demo --only`` two fast benchmarks, then the browser checks on its report.

    ``NOVEVAL_REPORT_DEMOS=a,b`` picks the benchmarks (default: the first two installed of
    axioms, claimcheck, novbench, focus, rinobench).
    """
    from noveval.benchmarks import BENCHMARKS

    wanted = os.environ.get("NOVEVAL_REPORT_DEMOS", "axioms,claimcheck,novbench,focus,rinobench").split(",")
    fast = [b for b in wanted if b in BENCHMARKS and BENCHMARKS[b].demo is not None][:2]
    if len(fast) < 2:
        pytest.skip(f"fewer than two benchmark demos installed: {fast}")
    out = tmp_path / "demo"
    cmd = [sys.executable, "-m", "noveval.cli.main", "--quiet", "demo", "-o", str(out)]
    for b in fast:
        cmd += ["--only", b]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=1500)
    assert res.returncode == 0, res.stderr[-3000:]
    html = out / "report.html"
    assert f"report: {html.resolve()}" in res.stdout
    shot = tmp_path / "report-demo.png"
    check_report(html, shot, fast, min_figures=2)
    _screenshot_copy(shot, "report-demo.png")
