"""``rinobench.score`` takes records as well as files, and validates both (issue 15: no raw TypeError)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from noveval.benchmarks import rinobench
from noveval.errors import InputError

GOLD = Path(rinobench.__file__).parents[2] / "samples" / "rinobench" / "test.json"


def _gold() -> list[dict]:
    return json.loads(GOLD.read_text(encoding="utf-8"))


def test_records_score_like_the_same_records_in_a_file(tmp_path: Path) -> None:
    gold = _gold()
    preds = [{"reasoning": "r", "novelty_score": s} for s in (1, 3, 5, 2)][: len(gold)]
    f = tmp_path / "preds.json"
    f.write_text(json.dumps(preds))
    from_file = rinobench.score_predictions(f, GOLD, n_resamples=50)
    from_list = rinobench.score_predictions(preds, gold, n_resamples=50)
    assert from_list["metrics"] == from_file["metrics"]
    # hand check: the mean absolute error over the sample's gold scores
    mae = sum(abs(p["novelty_score"] - g["novelty_score"]) for p, g in zip(preds, gold, strict=True)) / len(gold)
    assert from_list["metrics"]["mean_absolute_error"]["mean"] == pytest.approx(mae)


@pytest.mark.parametrize(("preds", "expected"), [
    (42, "<input>: predictions: must be a file path or a list of {reasoning, novelty_score} records, got int"),
    ([], "<in-memory records>: predictions: the list is empty"),
    (["x"], "<in-memory records>: [0]: expected an object, got str"),
    ([{"reasoning": "r"}], "<in-memory records>: [0].novelty_score: required field is missing"),
    ([{"reasoning": "r", "novelty_score": 9}], "<in-memory records>: [0].novelty_score: 9 is not a score"),
])
def test_bad_prediction_records_are_input_errors(preds: object, expected: str) -> None:
    with pytest.raises(InputError) as e:
        rinobench.score_predictions(preds, GOLD)  # type: ignore[arg-type]
    assert str(e.value).startswith(expected)


def test_bad_gold_records_are_input_errors(tmp_path: Path) -> None:
    gold = _gold()
    gold[1] = {**gold[1], "novelty_score": None}
    with pytest.raises(InputError, match=r"^<in-memory records>: \[1\]\.novelty_score: gold score is missing"):
        rinobench.score_predictions([{"novelty_score": 3}] * len(gold), gold)
    with pytest.raises(InputError, match=r"^<input>: items: must be a file path or a list of RINoBench item records, got dict"):
        rinobench.score_predictions([{"novelty_score": 3}], {"a": 1})  # type: ignore[arg-type]
    out = tmp_path / "run"
    with pytest.raises(InputError):
        rinobench.score_predictions([{"novelty_score": 3}], gold, out=out)  # misaligned: 1 for 4
    assert not out.exists()  # nothing written
