"""chat's yardstick: the most frequent reference as a constant answer (issue 29).

Exact match against references the user wrote has no chance level of its own (the answer
space is open). The one yardstick that holds for any reference set is a constant answer:
always answering the most frequent reference (after the same case and space folding as
the metric) matches exactly the items that share it. With all references distinct it is
1/n: then any exact match above it is real, and a high value says the references repeat.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from noveval.io import read_json

__all__ = ["baselines"]


def baselines(run_folder: Path | None, scores: dict[str, Any]) -> dict[str, list[dict[str, Any]]] | str:
    """Exact match of the most frequent reference answered to every item (exact).

    Args:
        run_folder: The run folder (its ``config.json`` names the prompts file, ``input``).
        scores: The run's ``scores.json`` dict.
    """
    from noveval.benchmarks.chat.task import _norm, load_prompts
    from noveval.metrics.yardsticks import yardstick

    if "exact_match" not in (scores.get("metrics") or {}):
        return "no references in this run (nothing to match)"

    cfg = read_json(run_folder / "config.json") if run_folder is not None and (run_folder / "config.json").is_file() else {}
    source = cfg.get("input") if isinstance(cfg, dict) else None
    if not source or not Path(str(source)).is_file():
        return "the prompts file is not recorded in the run folder"
    items = load_prompts(str(source), limit=cfg.get("n_items"))
    refs = [_norm(it.reference) for it in items if it.reference is not None]
    if not refs:
        return "no item has a reference"
    top, k = Counter(refs).most_common(1)[0]
    short = top if len(top) <= 40 else top[:37] + "..."
    return {"exact_match": [yardstick(f"most frequent reference ({short!r})", "trivial", k / len(refs),
                                      f"exact: {k} of {len(refs)} references are this answer")]}
