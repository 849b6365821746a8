"""Typed scores: what every system's ``scores.json`` holds, read as one pydantic model.

Every system writes ``scores.json`` with the same core (``benchmark``, ``model``,
``metrics`` as ``{name: {mean, ci_low, ci_high, n}}``, ``primary_metric``,
``greater_is_better``) plus the run's outcome (``complete``, ``calls``, ``cost``: issues
19/20) and whatever it adds of its own (kept in :attr:`Scores.extra` and the model's
extra fields, never dropped). :class:`Scores` reads any of them, old run folders included
(a metric written as a bare number becomes ``{mean: number}``), and writes back the same
keys, so the file on disk stays what users and the report already read.

Pure: no model, no file format of its own.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from noveval.errors import InputError
from noveval.io import read_json, validation_field

__all__ = ["MetricValue", "Scores", "lower_is_better_by_name", "read_scores"]

_LOWER = re.compile(r"(mae|absolute_error|error|kl|hallucination|unparseable|loss|fail|perplexity)", re.I)


def lower_is_better_by_name(name: str) -> bool:
    """Guess a metric's direction from its name (errors, KL, hallucination, failures: lower is better)."""
    return bool(_LOWER.search(name))


class MetricValue(BaseModel):
    """One metric of a run: the mean over items and its 95% bootstrap interval.

    Attributes:
        mean: The value (None when it could not be computed, e.g. no item had it).
        ci_low, ci_high: The 95% bootstrap confidence interval (None when not computed).
        n: Items the mean is over (None when the system does not say).
    """

    model_config = ConfigDict(extra="allow")

    mean: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    n: int | None = None

    @field_validator("mean", "ci_low", "ci_high", mode="before")
    @classmethod
    def _nan_is_none(cls, v: Any) -> Any:
        return None if isinstance(v, float) and math.isnan(v) else v


class Scores(BaseModel):
    """A run's scores (its ``scores.json``), typed.

    Attributes:
        benchmark: The system that wrote them (``rinobench``, ``focus``, ...).
        model: The model evaluated (a spec label, or the model's description).
        metrics: Metric name -> :class:`MetricValue`.
        primary_metric: The metric the system reports first (None: the system names none).
        greater_is_better: Direction of the primary metric (None: not stated).
        complete: False when model calls failed or a budget stopped the run (the numbers
            are then not a result); None for runs made before noveval recorded it.
        calls: The call ledger's counts (requests, failed, from the cache, ...).
        cost: Dollar cost of the run's model calls, when known.
        extra: The system's own additions (protocol details, per-group tables, ...).
    """

    model_config = ConfigDict(extra="allow")

    benchmark: str | None = None
    model: Any = None
    metrics: dict[str, MetricValue] = Field(default_factory=dict)
    primary_metric: str | None = None
    greater_is_better: bool | None = None
    complete: bool | None = None
    calls: dict[str, Any] | None = None
    cost: dict[str, Any] | None = None
    extra: dict[str, Any] = Field(default_factory=dict)

    @field_validator("metrics", mode="before")
    @classmethod
    def _bare_numbers(cls, v: Any) -> Any:
        if isinstance(v, dict):
            return {k: ({"mean": x} if isinstance(x, int | float) or x is None else x) for k, x in v.items()}
        return v

    @property
    def primary(self) -> MetricValue | None:
        """The primary metric's value (None when there is none or it is missing)."""
        return self.metrics.get(self.primary_metric) if self.primary_metric else None

    def mean(self, metric: str) -> float | None:
        """The mean of one metric (None when absent or not computed)."""
        m = self.metrics.get(metric)
        return None if m is None else m.mean

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready dict with the keys ``scores.json`` uses (unset optional keys left out)."""
        return self.model_dump(mode="json", exclude_unset=True)


def read_scores(source: str | os.PathLike[str] | dict[str, Any]) -> Scores:
    """The :class:`Scores` of a run folder, a ``scores.json`` file, or a scores dict.

    Raises:
        InputError: no ``scores.json`` in the folder, a file that is not a JSON object,
            or a ``metrics`` entry that is not ``{mean, ci_low, ci_high, n}``.
    """
    path: Path | None = None
    if isinstance(source, dict):
        data: Any = source
    else:
        path = Path(source)
        if path.is_dir():
            path = path / "scores.json"
        if not path.is_file():
            raise InputError(path, None, None, "no scores.json: the run has not been scored (see `noveval score`)")
        data = read_json(path)
    if not isinstance(data, dict):
        raise InputError(path, None, None, "scores.json must hold a JSON object")
    try:
        return Scores.model_validate(data)
    except ValidationError as e:
        field, msg = validation_field(e)
        raise InputError(path, None, field, msg) from e
