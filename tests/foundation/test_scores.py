"""Typed scores (noveval.scores): every system's scores.json reads as one model, old layouts too."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from noveval.errors import InputError
from noveval.scores import Scores, read_scores


def _write(folder: Path, data: object) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "scores.json").write_text(json.dumps(data), encoding="utf-8")
    return folder


def test_reads_the_shared_layout_and_keeps_system_fields(tmp_path: Path) -> None:
    d = {"benchmark": "focus", "model": "local", "protocol": "paper", "primary_metric": "kl_mean",
         "greater_is_better": False, "complete": True, "calls": {"requests": 3, "failed": 0},
         "metrics": {"kl_mean": {"mean": 0.25, "ci_low": 0.1, "ci_high": 0.4, "n": 3},
                     "f1_overall": {"mean": 0.5, "ci_low": 0.2, "ci_high": 0.7, "n": 3}},
         "extra": {"by_aspect": {"novelty": 0.3}}}
    s = read_scores(_write(tmp_path / "run", d))
    assert s.primary is not None and s.primary.mean == 0.25 and s.primary.n == 3
    assert s.greater_is_better is False and s.mean("f1_overall") == 0.5 and s.mean("nope") is None
    assert s.extra["by_aspect"] == {"novelty": 0.3} and s.model_extra == {"protocol": "paper"}
    assert s.to_dict() == d  # written back with the same keys: nothing renamed, nothing lost


def test_bare_numbers_nan_and_missing_fields(tmp_path: Path) -> None:
    s = Scores.model_validate({"metrics": {"acc": 0.75, "alpha": float("nan"), "none": None,
                                           "f1": {"mean": float("nan"), "n": 0}}})
    assert s.metrics["acc"].mean == 0.75 and s.metrics["acc"].n is None
    assert s.metrics["alpha"].mean is None and s.metrics["none"].mean is None and s.metrics["f1"].mean is None
    assert s.primary is None and s.complete is None and s.benchmark is None
    assert not any(isinstance(m.mean, float) and math.isnan(m.mean) for m in s.metrics.values())


def test_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no scores.json"):
        read_scores(tmp_path)
    with pytest.raises(InputError, match="must hold a JSON object"):
        read_scores(_write(tmp_path / "a", [1, 2]))
    with pytest.raises(InputError, match=r"scores\.json: metrics\.x\.n: "):
        read_scores(_write(tmp_path / "b", {"metrics": {"x": {"mean": 1.0, "n": "many"}}}))
