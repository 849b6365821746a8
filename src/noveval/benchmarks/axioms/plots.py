"""Pass-rate heatmap (metric × axiom, overall) as a PNG (matplotlib, Agg backend)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


def heatmap(tab: dict, metrics: Sequence[str], path: str | Path, *, title: str = "Axiom pass rates (%)") -> Path:
    """Draw ``tab["overall"]`` (from :func:`run.table`) as an annotated heatmap."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    cols = tab["columns"]
    data = np.array([[np.nan if tab["overall"][m][c] is None else tab["overall"][m][c] for c in cols]
                     for m in metrics], dtype=float)
    fig, ax = plt.subplots(figsize=(1.0 + 0.8 * len(cols), 1.0 + 0.6 * len(metrics)))
    im = ax.imshow(np.ma.masked_invalid(data), cmap="RdYlGn", vmin=0, vmax=100, aspect="auto")
    ax.set_xticks(range(len(cols)), cols, rotation=45, ha="right")
    ax.set_yticks(range(len(metrics)), metrics)
    for i in range(len(metrics)):
        for j in range(len(cols)):
            ax.text(j, i, "–" if np.isnan(data[i, j]) else f"{data[i, j]:.0f}", ha="center", va="center", fontsize=8)
    ax.set_title(title)
    fig.colorbar(im, ax=ax, fraction=0.03)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
