"""Yardsticks and published rows as short text: the one wording every view uses.

The run summary (``noveval.cli.summary``), the comparison's terminal view
(``noveval.compare.text``), the report's tables and ``noveval.export`` show a metric's
yardsticks (:mod:`noveval.metrics.yardsticks`, which computes them and reads them back from
``scores.json``) and the paper's rows in the same words: ``class-frequency random 0.199
[0.154, 0.247]``, ``paper (Table 3): GPT-5 0.172 · o3 0.162``.

Presentation: strings out. Lives above ``metrics/`` (which only computes) at the layer of
``compare/``, the lowest view that shows yardsticks (tests/foundation/test_layering.py).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["published_summary", "reference_text"]


def _fmt(v: Any, digits: int) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    return f"{float(v):.{digits}f}"


def reference_text(ref: Mapping[str, Any], digits: int = 3) -> str:
    """One yardstick or published row as short text: ``class-frequency random 0.199 [0.154, 0.247]``, ``GPT-5 0.172``."""
    if "name" in ref:
        rng = f" [{_fmt(ref['ci_low'], digits)}, {_fmt(ref['ci_high'], digits)}]" if ref.get("ci_low") is not None else ""
        return f"{ref['name']} {_fmt(ref.get('value'), digits)}{rng}"
    return f"{ref.get('model')} {_fmt(ref.get('value'), digits)}"


def published_summary(rows: Sequence[Mapping[str, Any]], *, greater_is_better: bool = True, most: int = 3,
                      digits: int = 3) -> str:
    """The best ``most`` published rows of a metric as one line part: ``paper (Table 3): GPT-5 0.172 · o3 0.162 …``."""
    vals = [r for r in rows if isinstance(r.get("value"), (int, float))]
    if not vals:
        return ""
    vals.sort(key=lambda r: float(r["value"]), reverse=greater_is_better)
    tables = list(dict.fromkeys(str(r.get("table")) for r in vals))
    more = f" … ({len(vals)} rows)" if len(vals) > most else ""
    if len(tables) == 1:
        return f"paper ({tables[0]}): " + " · ".join(reference_text(r, digits) for r in vals[:most]) + more
    shown = [f"{r.get('model')} ({r.get('table')}) {_fmt(r.get('value'), digits)}" for r in vals[:most]]
    return "paper: " + " · ".join(shown) + more
