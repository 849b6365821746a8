"""Do the runs give the same answer on the same item? (flip rate, self-consistency, spread).

Runs of one system that differ only by chance (seeds at a temperature above 0) or by
wording (prompt variants, ``NOVEVAL_PROMPTS_DIR``) should answer each item alike. For a
system that declares its per-item *answer* field (:func:`declared_answer`; RINoBench:
``predicted_score``, an ordinal 1-5), :func:`answer_agreement` measures on the items all
runs share:

* **flip rate**: the share of items whose answer is not the same in every run (an
  unparseable answer is an answer of its own), with a 95% bootstrap CI over items; the
  "verdict flips" of novelty-eval (2026) when the runs are prompt variants;
* **pairwise agreement**: the mean, over pairs of runs, of the share of items both answer
  the same;
* **self-consistency** (modal share): the mean over items of the share of runs giving
  the item's most common answer (Wang et al. 2023 vote over samples; 1 = unanimous);
* **Krippendorff's alpha** across runs (runs as coders, the declared level of
  measurement; unparseable answers missing);

and, for every metric compared item by item, its value in each run with the spread
(min, max, range, SD): how much a metric moves across variants or samples.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np

from noveval.benchmarks import BENCHMARKS
from noveval.metrics.agreement import krippendorff_alpha
from noveval.metrics.bootstrap import bootstrap_ci

__all__ = ["Agreement", "answer_agreement", "declared_answer", "metric_spread"]

def declared_answer(system: str) -> tuple[str, str, str | None] | None:
    """A system's declared per-item answer: ``(per-item field, level, predictions field)``, or None.

    Read from the system's declaration (:class:`noveval.benchmarks.Answer`; RINoBench:
    ``predicted_score``, ordinal, ``novelty_score`` in ``predictions.jsonl``).
    """
    b = BENCHMARKS.get(system)
    if b is None or b.answer is None:
        return None
    return b.answer.field, b.answer.level, b.answer.prediction


_SHOW_FLIPS = 5


@dataclass
class Agreement:
    """How alike the runs answer their common items (see the module docstring).

    Attributes:
        answer: The per-item field compared (``predicted_score``).
        level: Level of measurement used for alpha.
        n: Items every run has.
        flip_rate: Share of items not answered identically by every run, in [0, 1], best 0
            (for repeats of one setting).
        flip_ci: 95% percentile bootstrap CI of ``flip_rate`` over items.
        pairwise: Mean share of items two runs answer the same, in [0, 1], best 1.
        modal_share: Mean over items of the most common answer's share of runs, in
            [1/runs, 1], best 1.
        alpha: Krippendorff's alpha across runs, in [-1, 1], best 1; NaN when undefined
            (e.g. one value only).
        flips: The first items that flip: ``(id, {run label: answer})``.
        n_flips: How many items flip.
    """

    answer: str
    level: str
    n: int
    flip_rate: float
    flip_ci: tuple[float, float]
    pairwise: float
    modal_share: float
    alpha: float
    flips: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    n_flips: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (NaN becomes None)."""
        def clean(v: float) -> float | None:
            return None if isinstance(v, float) and math.isnan(v) else v

        return {"answer": self.answer, "level": self.level, "n": self.n, "flip_rate": clean(self.flip_rate),
                "flip_ci": [clean(self.flip_ci[0]), clean(self.flip_ci[1])], "pairwise": clean(self.pairwise),
                "modal_share": clean(self.modal_share), "alpha": clean(self.alpha), "n_flips": self.n_flips,
                "flips": [{"id": i, "answers": a} for i, a in self.flips]}


def _key(v: Any) -> Any:
    """An answer as a hashable value; None / missing is the answer "unparseable"."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "unparseable"
    return v if isinstance(v, (str, int, float, bool)) else repr(v)


def answer_agreement(
    answers: Sequence[Sequence[Any]],
    labels: Sequence[str],
    ids: Sequence[str],
    *,
    answer: str,
    level: str = "nominal",
    n_resamples: int = 10_000,
    seed: int = 0,
) -> Agreement:
    """Agreement of two or more runs' answers on the same items.

    Args:
        answers: One sequence per run, the items in the same order (None: unparseable).
        labels: Run labels (``A``, ``B``, ...).
        ids: Item ids, in the same order.
        answer: Name of the answer field (for the output).
        level: ``"nominal"``, ``"ordinal"`` or ``"interval"`` (alpha's distance).
        n_resamples: Bootstrap resamples of the flip rate's CI.
        seed: Bootstrap seed.

    Returns:
        An :class:`Agreement`.

    Raises:
        ValueError: fewer than two runs, or runs of different lengths.
    """
    if len(answers) < 2:
        raise ValueError("agreement needs two or more runs")
    n = len(ids)
    if any(len(a) != n for a in answers) or len(labels) != len(answers):
        raise ValueError("every run needs one answer per item")
    keys = [[_key(v) for v in run] for run in answers]
    per_item = list(zip(*keys, strict=True)) if n else []
    flipped = np.array([len(set(row)) > 1 for row in per_item], dtype=float)
    modal = [Counter(row).most_common(1)[0][1] / len(row) for row in per_item]
    pairs = [float(np.mean([x == y for x, y in zip(keys[i], keys[j], strict=True)]))
             for i, j in combinations(range(len(keys)), 2)] if n else []
    numeric = [[float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else math.nan for v in run]
               for run in answers]
    alpha = math.nan
    if level in ("ordinal", "interval") and n:
        alpha = krippendorff_alpha(np.array(numeric), level=level)  # type: ignore[arg-type]
    elif n:  # nominal: categories as codes, unparseable missing
        codes: dict[Any, float] = {}
        data = [[math.nan if k == "unparseable" else codes.setdefault(k, float(len(codes))) for k in run] for run in keys]
        alpha = krippendorff_alpha(np.array(data), level="nominal")
    ci = bootstrap_ci(flipped, n_resamples=n_resamples, seed=seed) if n else (math.nan, math.nan)
    flips = [(ids[i], {lab: answers[r][i] for r, lab in enumerate(labels)}) for i in map(int, np.flatnonzero(flipped))]
    return Agreement(answer=answer, level=level, n=n, flip_rate=float(flipped.mean()) if n else math.nan,
                     flip_ci=(float(ci[0]), float(ci[1])), pairwise=float(np.mean(pairs)) if pairs else math.nan,
                     modal_share=float(np.mean(modal)) if modal else math.nan, alpha=float(alpha),
                     flips=flips[:_SHOW_FLIPS], n_flips=len(flips))


def metric_spread(values: dict[str, float]) -> dict[str, Any]:
    """A metric's value per run and its spread across runs.

    Args:
        values: ``{run label: value}`` (NaN: no value in that run).

    Returns:
        ``{"values", "min", "max", "range", "sd"}``; ``sd`` is the sample SD (ddof 1);
        None where no run has a value.
    """
    x = np.array([v for v in values.values() if not math.isnan(v)], dtype=float)
    if not x.size:
        return {"values": values, "min": None, "max": None, "range": None, "sd": None}
    return {"values": values, "min": float(x.min()), "max": float(x.max()), "range": float(x.max() - x.min()),
            "sd": float(x.std(ddof=1)) if x.size > 1 else None}
