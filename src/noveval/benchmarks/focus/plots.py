"""Figure-4-like plot: human vs model focus per distribution ("Mind the Blind Spots", Fig. 4)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

__all__ = ["plot_focus"]


def plot_focus(
    distributions: Mapping[str, Mapping[str, Sequence[float]]],
    path: str | Path,
    *,
    model_label: str = "model",
    facets: Mapping[str, Sequence[str]] | None = None,
) -> Path:
    """Save a 2x2 grouped-bar figure (strength/weakness x target/aspect) as PNG.

    Args:
        distributions: ``{"human": {"strength/target": [...], ...}, "<model>": {...}}``
            as in ``scores.json["extra"]["distributions"]``; every source gets a bar.
        path: Output PNG path.
        model_label: Legend label of the ``"model"`` source.
        facets: ``{"target": [...], "aspect": [...]}`` tick labels.

    Returns:
        The written path.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from noveval.metrics.focus import ASPECTS, TARGETS

    facets = facets or {"target": TARGETS, "aspect": ASPECTS}
    sources = list(distributions)
    fig, axes = plt.subplots(2, 2, figsize=(12, 7))
    for ax, key in zip(axes.flat, ("strength/target", "weakness/target", "strength/aspect",
                                    "weakness/aspect"), strict=True):
        labels = list(facets[key.split("/")[1]])
        x = np.arange(len(labels))
        width = 0.8 / max(1, len(sources))
        for j, src in enumerate(sources):
            values = distributions[src].get(key, [0.0] * len(labels))
            name = model_label if src == "model" else src
            ax.bar(x + (j - (len(sources) - 1) / 2) * width, values, width, label=name)
        ax.set_xticks(x)
        ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=8)
        ax.set_ylim(0, 1)
        ax.set_title(key.replace("/", " / ").capitalize())
        ax.set_ylabel("share of points")
    axes[0, 0].legend(fontsize=8)
    fig.suptitle("Focus distributions (Mind the Blind Spots, Figure 4 style)")
    fig.tight_layout()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
