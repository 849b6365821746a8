"""novelty-pairs' yardsticks: a coin flip and always answering the side shown first (issue 29).

Every pair is asked in both orders (``ab``, ``ba``). A coin flip names either side with
probability 1/2 in each order, independently: accuracy 0.5 (the range 95% of outcomes fall
in is the exact binomial one over the run's answered orders), consistent accuracy 0.25,
position consistency 0.5. Always answering A (the side shown first) is right in exactly one
of the two orders of every pair: accuracy exactly 0.5 with no spread, 1 when the better side
is shown first and 0 when it is second, never consistent, first-slot rate 1.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["baselines"]


def baselines(run_folder: Path | None, scores: dict[str, Any]) -> dict[str, list[dict[str, Any]]] | str:
    """Coin-flip and always-first yardsticks of the pair metrics (exact).

    Args:
        run_folder: Not needed.
        scores: The run's ``scores.json`` dict (its ``accuracy`` n sets the coin's range).
    """
    from noveval.metrics.yardsticks import binomial_rate_range, yardstick

    metrics = scores.get("metrics") or {}
    n_pairs = int((metrics.get("accuracy") or {}).get("n") or 0)
    lo, hi = binomial_rate_range(2 * n_pairs)
    coin_how = (f"exact; 95% of outcomes in [{lo:.3f}, {hi:.3f}] (binomial over {2 * n_pairs} answers)"
                if n_pairs else "exact")
    table = {
        "accuracy": [yardstick("coin flip", "chance", 0.5, coin_how, ci_low=lo if n_pairs else None,
                               ci_high=hi if n_pairs else None),
                     yardstick("always the first side", "trivial", 0.5, "exact: right in one of the two orders")],
        "consistent_accuracy": [yardstick("coin flip", "chance", 0.25, "exact expectation (1/2 × 1/2)"),
                                yardstick("always the first side", "trivial", 0.0, "exact")],
        "position_consistency": [yardstick("coin flip", "chance", 0.5, "exact expectation"),
                                 yardstick("always the first side", "trivial", 0.0, "exact")],
        "accuracy_gold_first": [yardstick("coin flip", "chance", 0.5, "exact expectation"),
                                yardstick("always the first side", "trivial", 1.0, "exact")],
        "accuracy_gold_second": [yardstick("coin flip", "chance", 0.5, "exact expectation"),
                                 yardstick("always the first side", "trivial", 0.0, "exact")],
        "first_slot_rate": [yardstick("coin flip", "chance", 0.5, "exact expectation"),
                            yardstick("always the first side", "trivial", 1.0, "exact")],
    }
    return {k: v for k, v in table.items() if k in metrics}
