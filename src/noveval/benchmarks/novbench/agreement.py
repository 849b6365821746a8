"""Human agreement with the automatic metrics (NovBench Section 4.3, Appendix D).

Each sample compares two model outputs A and B. N annotators each choose ``A``,
``B`` or ``tie`` ("Both are comparable", Fig. 15); the metric's choice is given
directly or derived from its two scores (higher wins, equal = tie).

Reported (Appendix D):

* Fleiss' κ among the annotators (paper: 0.72 with four annotators);
* Agreement (Eq. 8): share of samples whose strict-majority human label equals the
  metric's choice, samples without a strict majority excluded (paper: 78%);
* Spearman ρ between the metric and the humans (paper: 0.61). Preferences are
  coded A = +1, tie = 0, B = -1; the human value of a sample is the mean code over
  annotators, the metric value is ``score_A - score_B`` when scores are given,
  else the code of its choice.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, field_validator, model_validator

from noveval.errors import InputError
from noveval.io import read_json, read_jsonl, validation_field
from noveval.metrics.agreement import fleiss_kappa, majority_agreement, spearman_rho

__all__ = ["PreferenceRow", "load_preferences", "agreement_report"]

_CODES = {"a": 1, "b": -1, "tie": 0}
_ALIASES = {
    "a": "a", "model a": "a", "model a is better": "a", "1": "a",
    "b": "b", "model b": "b", "model b is better": "b", "2": "b",
    "tie": "tie", "0": "tie", "both": "tie", "comparable": "tie", "both are comparable": "tie",
    "equal": "tie",
}


def _choice(v: Any) -> str:
    s = str(v).strip().lower().rstrip(".")
    if s not in _ALIASES:
        raise ValueError(f"preference must be A, B or tie, got {v!r}")
    return _ALIASES[s]


class PreferenceRow(BaseModel):
    """One A/B comparison judged by several annotators and by a metric."""

    id: str
    annotators: list[str] = Field(description="Each annotator's choice: a, b or tie.")
    metric: str | None = Field(default=None, description="The metric's choice (a, b, tie).")
    metric_a: float | None = Field(default=None, description="Metric score of output A.")
    metric_b: float | None = Field(default=None, description="Metric score of output B.")

    @field_validator("id", mode="before")
    @classmethod
    def _id(cls, v: Any) -> Any:
        return str(v) if isinstance(v, int) else v

    @field_validator("annotators", mode="before")
    @classmethod
    def _anns(cls, v: Any) -> Any:
        if not isinstance(v, list) or len(v) < 2:
            raise ValueError("needs a list of at least two annotator choices")
        return [_choice(x) for x in v]

    @field_validator("metric", mode="before")
    @classmethod
    def _metric(cls, v: Any) -> Any:
        return None if v is None else _choice(v)

    @model_validator(mode="after")
    def _derive(self) -> PreferenceRow:
        if self.metric is None:
            if self.metric_a is None or self.metric_b is None:
                raise ValueError("give the metric's choice ('metric') or both 'metric_a' and 'metric_b'")
            d = self.metric_a - self.metric_b
            self.metric = "a" if d > 0 else "b" if d < 0 else "tie"
        return self

    def metric_value(self) -> float:
        """``score_A - score_B`` when scores are given, else the choice's code."""
        if self.metric_a is not None and self.metric_b is not None:
            return self.metric_a - self.metric_b
        return float(_CODES[self.metric or "tie"])


def load_preferences(path: str | Path, *, metric_field: str = "metric") -> list[PreferenceRow]:
    """Read preference rows from JSON (array) or JSONL.

    Args:
        path: The file.
        metric_field: Name of the field holding the metric's choice (renamed to
            ``metric`` before validation).

    Raises:
        InputError: bad file, bad choice value, ragged annotator counts (with field).
    """
    p = Path(path)
    name = p.name[:-3] if p.name.endswith(".gz") else p.name
    raw = read_jsonl(p) if name.endswith(".jsonl") else read_json(p)
    if not isinstance(raw, list) or not raw:
        raise InputError(p, None, None, "expected a non-empty list of preference rows")
    rows = []
    for i, obj in enumerate(raw):
        if not isinstance(obj, dict):
            raise InputError(p, None, f"[{i}]", "expected an object")
        obj = dict(obj)
        if metric_field != "metric" and metric_field in obj:
            obj["metric"] = obj.pop(metric_field)
        try:
            rows.append(PreferenceRow.model_validate(obj))
        except Exception as e:  # pydantic.ValidationError
            from pydantic import ValidationError

            if isinstance(e, ValidationError):
                field, msg = validation_field(e)
                raise InputError(p, i + 1 if name.endswith(".jsonl") else None, f"[{i}].{field}", msg) from e
            raise
    n = len(rows[0].annotators)
    for i, r in enumerate(rows):
        if len(r.annotators) != n:
            raise InputError(p, None, f"[{i}].annotators", f"expected {n} annotators like the first row, got {len(r.annotators)}")
    return rows


def agreement_report(rows: Sequence[PreferenceRow]) -> dict[str, Any]:
    """Fleiss' κ, majority-vote agreement (Eq. 8) and Spearman ρ (Appendix D).

    Returns:
        ``{"n_samples", "n_annotators", "fleiss_kappa", "agreement", "n_majority",
        "spearman_rho", "spearman_p"}``. κ in [-1, 1], agreement in [0, 1], ρ in
        [-1, 1]; higher is better for all three.
    """
    human = [r.annotators for r in rows]
    agree, n_major = majority_agreement(human, [r.metric for r in rows])
    h_vals = [sum(_CODES[c] for c in r.annotators) / len(r.annotators) for r in rows]
    m_vals = [r.metric_value() for r in rows]
    rho, p = spearman_rho(h_vals, m_vals) if len(rows) >= 3 else (float("nan"), float("nan"))
    return {
        "n_samples": len(rows),
        "n_annotators": len(rows[0].annotators) if rows else 0,
        "fleiss_kappa": fleiss_kappa(human) if rows else float("nan"),
        "agreement": agree,
        "n_majority": n_major,
        "spearman_rho": rho,
        "spearman_p": p,
    }
