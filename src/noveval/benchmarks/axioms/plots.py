"""Pass-rate heatmap (metric × axiom, overall) as a PNG (matplotlib, Agg backend)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any


def draw_pass_rates(ax: Any, tab: dict, metrics: Sequence[str], *, rotation: int = 45,
                    fractions_as_percent: bool = False) -> Any:
    """Draw ``tab["overall"]`` (pass rates, %) on ``ax`` as an annotated metric × axiom heatmap.

    ``fractions_as_percent``: a table whose values are all at most 1 is read as fractions
    (old run folders) and shown as percentages. Returns the image (for a colour bar).
    """
    import numpy as np

    cols = list(tab["columns"])
    data = np.array([[np.nan if tab["overall"][m].get(c) is None else float(tab["overall"][m][c]) for c in cols]
                     for m in metrics], dtype=float)
    if fractions_as_percent and np.nanmax(np.nan_to_num(data, nan=0.0)) <= 1.0:
        data = data * 100
    im = ax.imshow(np.ma.masked_invalid(data), cmap="RdYlGn", vmin=0, vmax=100, aspect="auto")
    ax.set_xticks(range(len(cols)), cols, rotation=rotation, ha="right")
    ax.set_yticks(range(len(metrics)), metrics)
    for i in range(len(metrics)):
        for j in range(len(cols)):
            ax.text(j, i, "–" if np.isnan(data[i, j]) else f"{data[i, j]:.0f}", ha="center", va="center", fontsize=8)
    return im


def heatmap(tab: dict, metrics: Sequence[str], path: str | Path, *, title: str = "Axiom pass rates (%)") -> Path:
    """Draw ``tab["overall"]`` (from :func:`run.table`) as an annotated heatmap PNG at ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(1.0 + 0.8 * len(tab["columns"]), 1.0 + 0.6 * len(metrics)))
    im = draw_pass_rates(ax, tab, metrics)
    ax.set_title(title)
    fig.colorbar(im, ax=ax, fraction=0.03)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
