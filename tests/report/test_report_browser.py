"""The HTML report renders in a real headless Chromium: sections, figures, drill-down.

Needs Debian ``chromium`` at ``/usr/bin/chromium`` (``scripts/setup.sh --browser``) and the
``playwright`` Python package; Playwright never downloads a browser here.
"""

from __future__ import annotations

import json
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
                assert sec.locator(".items tr.item").count() >= 1, f"{b}: no items in the item table"
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
                sec.locator(".items tr.item").first.click()
                panel = sec.locator(".items .panel")
                assert panel.locator(".sec").count() >= 1, f"{b}: panel empty after click"
                assert panel.locator("h4").inner_text().strip(), f"{b}: panel has no item id"

            page.screenshot(path=str(shot), full_page=True)
            facts = {"html": page.content(), "page": None}
            facts["failures"] = page.locator("#failures .fail").evaluate_all("els => els.map(e => e.dataset.benchmark)")
            facts["panels"] = {b: page.locator(f"section.bench[data-benchmark='{b}'] .items .panel").inner_text() for b in benchmarks}
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
            items = page.locator(".items tr.item")
            items.nth(0).click()
            panel = page.locator(".items .panel")
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
    rinobench, axioms, validate, novbench, claimcheck, focus: the cheapest demos first).
    """
    from noveval.benchmarks import BENCHMARKS

    wanted = os.environ.get("NOVEVAL_REPORT_DEMOS", "rinobench,axioms,validate,novbench,claimcheck,focus").split(",")
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


def _rows(run: Path, name: str) -> list[dict]:
    return [json.loads(line) for line in (run / f"{name}.jsonl").read_text().splitlines() if line.strip()]


def _matching(box) -> int:
    return int(box.locator(".count").get_attribute("data-matching"))


def _ids(box) -> list[str]:
    return box.locator("tbody tr.item").evaluate_all("rs => rs.map(r => r.dataset.id)")


def _browse_items(page, per: list[dict], preds: list[dict]) -> None:
    """Pages, filters, search and sort of run A's 2,000 items against values computed here."""
    box = page.locator(".items[data-bench='rinobench']")
    assert _matching(box) == 2000 and box.locator("tbody tr.item").count() == 50
    assert "page 1 of 40" in box.locator(".pageinfo").inner_text()
    box.locator("button.next").click()
    assert _ids(box)[0] == per[50]["id"]
    gold3 = [r for r in per if r["gold_score"] == 3]
    box.locator("select.f[data-col='gold_score']").select_option("number:3")
    assert _matching(box) == len(gold3) and "page 1 of" in box.locator(".pageinfo").inner_text()
    box.locator("select.f[data-col='correct']").select_option("number:0")
    wrong3 = [r["id"] for r in gold3 if r["correct"] == 0.0]
    assert 0 < _matching(box) == len(wrong3) < len(gold3) and _ids(box) == wrong3[:50]
    for col in ("gold_score", "correct"):
        box.locator(f"select.f[data-col='{col}']").select_option("")
    photonic = [p["id"] for p in preds if "photonic" in p["reasoning"]]
    box.locator("input.q").fill("Photonic")
    page.wait_for_function("n => document.querySelector(\".items .count\").dataset.matching == n", arg=str(len(photonic)))
    assert _ids(box) == photonic[:50]
    box.locator("input.q").fill("")
    page.wait_for_function("() => document.querySelector(\".items .count\").dataset.matching == '2000'")
    sort = box.locator("th[data-col='absolute_error'] button.sort")
    sort.click()
    sort.click()  # descending; missing values last either way, ties in item order
    assert box.locator("th[data-col='absolute_error']").get_attribute("aria-sort") == "descending"
    order = sorted(range(len(per)), key=lambda k: (per[k]["absolute_error"] is None, -(per[k]["absolute_error"] or 0), k))
    assert _ids(box) == [per[k]["id"] for k in order[:50]]
    box.locator("tbody tr.item").nth(1).click()
    panel = box.locator(".panel")
    k = order[1]
    assert panel.locator("h4").inner_text().startswith(per[k]["id"])
    assert preds[k]["reasoning"][:60] in panel.inner_text()
    assert panel.locator(".sec.gold").inner_text().split() == ["GOLD", "gold_score", str(per[k]["gold_score"])]


def _browse_disagreement(page, per_a: list[dict], per_b: list[dict]) -> None:
    """The items where run A and run B answer differently, side by side with the gold."""
    box = page.locator(".disagree")
    assert box.count() == 1
    differ = [(a, b) for a, b in zip(per_a, per_b, strict=True) if a["predicted_score"] != b["predicted_score"]]
    assert len(differ) == 38  # the items run B's writer moved (every 53rd from the 4th)
    summary = box.locator(".dis-summary")
    assert summary.get_attribute("data-differ") == str(len(differ)) and summary.get_attribute("data-common") == "2000"
    assert _ids(box) == [a["id"] for a, _ in differ[:20]]
    first = box.locator("tbody tr.item").first
    a, b = differ[0]
    assert first.locator("td").all_inner_texts() == [str(a["gold_score"]), str(a["predicted_score"] or "–"), str(b["predicted_score"] or "–")]
    first.click()
    panel = box.locator(".panel")
    assert panel.locator("h4").inner_text() == a["id"] and panel.locator(".side").count() == 2
    assert f"gold_score\n{a['gold_score']}" in panel.locator(".sec.gold").first.inner_text()
    sides = panel.locator(".side .ans").all_inner_texts()
    assert sides == [f"predicted_score = {a['predicted_score']}", f"predicted_score = {b['predicted_score']}"]
    box.locator("select.pick-a").select_option(index=1)  # B against A: the same items
    box.locator("select.pick-b").select_option(index=0)
    assert summary.get_attribute("data-differ") == str(len(differ))


def _no_sideways_overflow(page) -> None:
    for width in (1280, 1400, 1920):
        page.set_viewport_size({"width": width, "height": 900})
        assert page.evaluate("document.documentElement.scrollWidth") <= width, f"page overflows sideways at {width} px"
        cards = page.locator(".card.scroll:has(table[data-kind='comparison'])")
        assert cards.count() >= 1
        wide = cards.evaluate_all("cs => cs.filter(c => c.scrollWidth > c.clientWidth + 1).length")
        assert wide == 0, f"a comparison table overflows its card at {width} px"


@pytest.mark.slow
def test_a_2000_item_report_can_be_browsed(tmp_path: Path, make_big_rinobench_run) -> None:
    """Two RINoBench runs of 2,000 invented items that answer 38 items differently: the item
    table pages, filters, searches and sorts them; the disagreement view lists exactly those 38
    with the gold; cost is one line a run; nothing overflows sideways at 1,280-1,920 px."""
    from noveval.report import write_report

    root = tmp_path / "runs"
    root.mkdir()
    a = make_big_rinobench_run(root, "run-a", "openai/gpt-4o-mini", 2000, frozenset(), price_of="openai/gpt-4o-mini")
    b = make_big_rinobench_run(root, "run-b", "openai/gpt-4o-mini", 2000, frozenset(range(3, 2000, 53)), price_of="openai/gpt-4o-mini")
    html = write_report([a, b], tmp_path / "report.html")
    assert html.stat().st_size < 6_000_000, html.stat().st_size
    per_a, per_b, preds_a = _rows(a, "per_item"), _rows(b, "per_item"), _rows(a, "predictions")
    errors: list[str] = []
    requests: list[str] = []
    with _playwright()() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("request", lambda r: requests.append(r.url))
            page.goto(html.resolve().as_uri())
            shot = tmp_path / "report-browse-first-screen.png"
            page.screenshot(path=str(shot))
            _screenshot_copy(shot, shot.name)
            sec = page.locator("section.bench[data-benchmark='rinobench']")
            assert sec.locator(".costs li").count() == 2 and sec.locator(".note.cost").count() == 0
            assert "$0.486 for this run folder" in sec.locator(".costs").inner_text()
            assert sec.locator("details.notes[open]").count() == 0
            _browse_items(page, per_a, preds_a)
            _browse_disagreement(page, per_a, per_b)
            _no_sideways_overflow(page)
        finally:
            browser.close()
    assert not errors, f"console errors: {errors}"
    assert not [u for u in requests if not (u.startswith("file://") or u.startswith("data:"))]
