"""Render the view model into one self-contained HTML file (CSS, JS, figures inlined)."""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path

from noveval.errors import InputError
from noveval.io import make_dir, write_text
from noveval.report.model import ReportView

__all__ = ["render_html", "write_report"]


def _asset(name: str) -> str:
    return files("noveval.report").joinpath("templates", name).read_text(encoding="utf-8")


def _script_json(obj: object) -> str:
    """JSON safe inside a ``<script>`` element (no ``</script>`` or ``<!--`` breakouts)."""
    s = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), default=str)
    return s.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def render_html(report: ReportView) -> str:
    """The page's HTML text."""
    import jinja2
    from markupsafe import Markup

    env = jinja2.Environment(autoescape=True, trim_blocks=False, lstrip_blocks=False, undefined=jinja2.StrictUndefined)
    tpl = env.from_string(_asset("report.html.j2"))
    items = {slug: run for b in report.benchmarks for slug, run in b.items.items()}
    return tpl.render(report=report, css=Markup(_asset("report.css")), js=Markup(_asset("report.js")),
                      items_json=Markup(_script_json(items)))


def write_report(run_dirs: list[Path], out: Path, failures: list[tuple[str, str]] | None = None,
                 leaderboard: object = None) -> Path:
    """Build and write the HTML report of the given run directories.

    Args:
        run_dirs: Run directories (or folders that hold them); eval folders add the
            leaderboard as the first section.
        out: The HTML file to write (parents are created; written atomically).
        failures: ``(benchmark, message)`` pairs of failed demos to list on the page.
        leaderboard: The leaderboard to show first (None: the eval folders' own, if any).

    Returns:
        The path written.
    """
    from noveval.report.build import build_report

    out = Path(out)
    if out.is_dir():
        raise InputError(out, None, "--out", "is a folder, expected an HTML file name (e.g. report.html)")
    make_dir(out.parent, "--out")
    html = render_html(build_report(list(run_dirs), failures=failures, leaderboard=leaderboard))
    write_text(out, html)
    return out
