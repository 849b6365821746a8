"""Which metrics of a run can be compared item by item, and how.

A run folder's ``scores.json`` lists its metrics; ``per_item.jsonl`` holds one row per
item, and the rows of each system differ (not every number in a row is a metric:
``gold_score``, ``n_gold``, ``seed`` are not). The rule:

1. **Statistics a system declares** (``item_metrics(scores, config)`` in its views module): metrics that are not
   means of one per-item number — RINoBench's per-class and macro F1 (recomputed from
   ``gold_score`` and ``predicted_score``), its MAE that charges unparseable answers the
   worst error, and its ``unparseable_rate`` (the mean of the per-item ``unparseable``);
   set-level statistics recomputed from per-item data on every resample: focus's
   ``kl_mean`` (from per-paper facet counts), CLAIMCHECK's micro span F1 (from per-item
   matched similarity and span counts), validate's Spearman ``rho_*`` (a ``statistic``
   of the item rows, not a sum).
2. **Per-item means**: otherwise, a metric ``m`` is the mean of the per-item field ``m``
   (or ``m`` without a leading ``mean_``: ``mean_alignment`` <- ``alignment``).
3. **Repeats**: a run may hold several rows per item, one per seed (CLAIMCHECK runs
   every seed in one folder). An item's data is then the *sum* of its rows'
   contributions (``[x, 1]`` for a mean, the TP/FP/FN counts for F1), so the metric is
   the pooled value over all rows and resampling or swapping an item moves all its rows
   together (a cluster bootstrap; seeds of one item are not independent evidence).
4. **Checked, always**: a metric is compared only when recomputing it from the run's own
   rows (items with a value) gives the value in ``scores.json`` (within 1e-9) over the
   same count ``n``. A metric that does not pass — pooled statistics whose inputs
   ``per_item.jsonl`` does not hold (CLAIMCHECK's Krippendorff α; focus ``kl_mean`` and
   CLAIMCHECK's span F1 of runs scored before their rows held the counts), nested
   per-item scores (axioms) — is listed as not compared, with the reason.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from noveval.benchmarks import BENCHMARKS
from noveval.metrics.paired import (
    Combine,
    PairedDifference,
    Statistic,
    mean_combine,
    paired_difference,
)
from noveval.scores import lower_is_better_by_name as by_name

__all__ = ["ItemMetric", "Rows", "field_values", "lower_is_better", "mean_of", "plan_metrics"]

Rows = Sequence[dict[str, Any]]
Groups = Sequence[Rows]
"""Per item, its rows (one per seed; usually one)."""


@dataclass(frozen=True)
class ItemMetric:
    """How one ``scores.json`` metric is computed from per-item rows.

    Attributes:
        name: The metric's name in ``scores.json``.
        how: One line for users: ``mean of per-item absolute_error``.
        data: Rows -> per-item data, ``(n,)`` or ``(n, d)``; a row that has no value for
            this metric is NaN (left out of the comparison of this metric).
        combine: ``None``: the metric is the mean of 1-D data (or ``statistic``). Else the
            metric is ``combine(data.sum(axis=0))``, vectorised over leading axes (see
            :func:`noveval.metrics.paired.paired_difference`).
        kind: ``"mean"`` (a mean of per-item values) or ``"statistic"`` (recomputed on
            each resample of items).
        statistic: For a set statistic that is not a function of summed contributions
            (a rank correlation): the metric of a stack of item sets ``(r, m, d)`` ->
            ``(r,)`` (``batched`` in :func:`~noveval.metrics.paired.paired_difference`),
            recomputed on every resample and swap. Give at most one of ``combine`` /
            ``statistic``.
    """

    name: str
    how: str
    data: Callable[[Rows], np.ndarray]
    combine: Combine | None = None
    kind: str = "mean"
    statistic: Statistic | None = None

    def __post_init__(self) -> None:
        if self.combine is not None and self.statistic is not None:
            raise ValueError(f"{self.name}: give combine or statistic, not both")

    @property
    def theta(self) -> Combine:
        """``combine`` of the summed per-item contributions (:func:`mean_combine` for a mean).

        Raises:
            ValueError: for a ``statistic`` metric (not a function of sums; use :meth:`of`).
        """
        if self.statistic is not None:
            raise ValueError(f"{self.name} is a statistic of the item rows, not of their sums")
        return self.combine if self.combine is not None else mean_combine

    def grouped(self, groups: Groups) -> np.ndarray:
        """Per-item data ``(n_items, d)``: the sum over each item's rows that have a value.

        For a mean the contribution of a row is ``[x, 1]``; an item none of whose rows
        has a value is a NaN row. (A ``statistic`` metric's items normally have one row.)
        """
        out = []
        for rows in groups:
            x = self.data(rows)
            if self.combine is None and self.statistic is None:
                x = np.column_stack([x, np.ones_like(x)])
            x = x.reshape(len(x), -1)
            ok = finite_rows(x)
            out.append(x[ok].sum(axis=0) if ok.any() else np.full(x.shape[1], np.nan))
        return np.array(out, dtype=float).reshape(len(groups), -1)

    def of(self, x: np.ndarray) -> float:
        """The metric of per-item data ``x`` (``(m, d)``, rows with a value; NaN when ``m`` is 0)."""
        if not len(x):
            return math.nan
        if self.statistic is not None:
            return float(np.asarray(self.statistic(x[None]), dtype=float).reshape(-1)[0])
        return float(self.theta(x.sum(axis=0)))

    def paired(self, a: np.ndarray, b: np.ndarray, **options: Any) -> PairedDifference:
        """:func:`~noveval.metrics.paired.paired_difference` of this metric on matched item data."""
        if self.statistic is not None:
            return paired_difference(a, b, statistic=self.statistic, batched=True, **options)
        return paired_difference(a, b, combine=self.theta, **options)

    def value(self, groups: Groups) -> tuple[float, int]:
        """The metric pooled over the items that have a value, and how many those are."""
        x = self.grouped(groups)
        ok = finite_rows(x)
        if not ok.any():
            return (math.nan, 0)
        return (self.of(x[ok]), int(ok.sum()))


def finite_rows(x: np.ndarray) -> np.ndarray:
    """Boolean mask of the rows of ``x`` with no NaN."""
    return ~np.isnan(x) if x.ndim == 1 else ~np.isnan(x).any(axis=1)


def _number(v: Any) -> float:
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, (int, float)):
        return float(v)
    return math.nan


def field_values(rows: Rows, name: str) -> np.ndarray:
    """The per-item numbers of one field (booleans as 0/1; missing, None or text -> NaN)."""
    return np.array([_number(r.get(name)) for r in rows], dtype=float)


def mean_of(name: str, field: str) -> ItemMetric:
    return ItemMetric(name=name, how=f"mean of per-item {field}", data=lambda rows: field_values(rows, field))


"""System -> (scores.json, config.json) -> the metrics it declares as statistics of items."""


def _candidates(name: str) -> list[str]:
    return list(dict.fromkeys([name, name.removeprefix("mean_")]))


def _close(x: float, y: float) -> bool:
    return abs(x - y) <= 1e-9 * max(1.0, abs(x), abs(y))


def plan_metrics(system: str, scores: dict[str, Any], config: dict[str, Any], groups: Groups) -> tuple[dict[str, ItemMetric], dict[str, str]]:
    """Split a run's metrics into those compared item by item and those not (with why).

    Args:
        system: The run's system (``scores.json`` ``benchmark``).
        scores: Its ``scores.json``.
        config: Its ``config.json``.
        groups: Its ``per_item.jsonl`` rows, grouped by item id.

    Returns:
        ``(compared, skipped)``: ``{name: ItemMetric}`` in ``scores.json`` order, and
        ``{name: reason}``.
    """
    metrics: dict[str, Any] = scores["metrics"] if isinstance(scores.get("metrics"), dict) else {}
    rows = [r for g in groups for r in g]

    bench = BENCHMARKS.get(system)
    item_metrics = bench.view("item_metrics") if bench is not None else None
    declared = item_metrics(scores, config) if item_metrics is not None else {}
    compared: dict[str, ItemMetric] = {}
    skipped: dict[str, str] = {}
    for name, m in metrics.items():
        m = m if isinstance(m, dict) else {"mean": m}
        want: Any = m.get("mean")
        n_want: Any = m.get("n")
        options = [declared[name]] if name in declared else [
            mean_of(name, f) for f in _candidates(name) if any(f in r for r in rows)]
        if not options:
            skipped[name] = "no per-item field holds it (a statistic of the whole set)"
            continue
        reason = ""
        for im in options:
            got, n_got = im.value(groups)
            has_value = isinstance(want, (int, float)) and not isinstance(want, bool)
            if n_got == 0:
                reason = "no item has a value" + ("" if not has_value else f" ({im.how}), though scores.json has one")
            elif not has_value:
                reason = f"not reproduced: scores.json has no value, {im.how} gives {got:.4g}"
            elif not _close(got, float(want)):
                reason = f"not reproduced from per_item.jsonl: {im.how} gives {got:.6g}, scores.json says {float(want):.6g}"
            elif isinstance(n_want, int) and not isinstance(n_want, bool) and n_want != n_got:
                reason = f"not reproduced from per_item.jsonl: {im.how} counts {n_got} items, scores.json says n = {n_want}"
            else:
                compared[name] = im
                break
        if name not in compared:
            skipped[name] = reason
    return compared, skipped


def lower_is_better(name: str, scores: dict[str, Any]) -> bool:
    """Whether a lower value of a metric is better.

    The primary metric's direction comes from ``scores.json`` (``greater_is_better``);
    for the others, the report's rule: names that say error, MAE, KL, hallucination,
    unparseable, loss, fail(ed) or perplexity are lower-is-better, everything else
    higher-is-better (``--metric NAME:lower`` overrides it on the command line).
    """
    if name == scores.get("primary_metric") and isinstance(scores.get("greater_is_better"), bool):
        return not scores["greater_is_better"]
    return by_name(name)
