"""Figures drawn with matplotlib (Agg) and inlined as base64 PNG ``data:`` URIs.

Each builder takes the runs of one benchmark and returns :class:`Figure` objects;
data the builder needs but does not find simply yields no figure (the caller lists
the gap).
"""

from __future__ import annotations

import base64
import io
from pathlib import Path
from typing import Any

from noveval.report.model import Figure, RunData

__all__ = ["PALETTE", "file_uri", "png_uri", "pyplot", "saved_figures"]

PALETTE = ["#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860", "#DA8BC3", "#8C8C8C"]


def pyplot() -> Any:
    """matplotlib's pyplot on the Agg backend with the report's style."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({
        "font.size": 9, "axes.spines.top": False, "axes.spines.right": False, "axes.titlesize": 10,
        "axes.titleweight": "bold", "figure.dpi": 110, "axes.grid": True, "grid.alpha": 0.25,
        "axes.axisbelow": True,
    })
    return plt


def png_uri(fig: Any) -> str:
    """Render a matplotlib figure to a base64 PNG ``data:`` URI and close it."""
    plt = pyplot()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight", dpi=110)
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def file_uri(path: Path) -> str:
    """A saved PNG/SVG file as a ``data:`` URI."""
    mime = "image/svg+xml" if path.suffix.lower() == ".svg" else "image/png"
    return f"data:{mime};base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def _extra(r: RunData) -> dict[str, Any]:
    return r.extra


def saved_figures(runs: list[RunData]) -> list[Figure]:
    """Images the runs saved themselves (PNG/SVG in the run directory)."""
    return [Figure(f"{p.stem} ({r.label})", src=file_uri(p), caption=f"Saved by the run as {p.name}.")
            for r in runs for p in r.images]


