"""The shared self-consistency vote (issue 18): hand-computed answers, shares and tie-breaks."""

from __future__ import annotations

from typing import Any

import pytest

from noveval.errors import InputError
from noveval.metrics.consistency import (
    check_samples,
    mean_consistency,
    sample_seeds,
    vote_labels,
    vote_ordinal,
)


@pytest.mark.parametrize(("scores", "want"), [
    ([3, 3, 4], (3, 2 / 3)),
    ([2, 4], (2, 0.5)),  # tie, both 1 from the mean 3: the lower
    ([2, 3, 3, 4, 4], (3, 0.4)),  # 3 and 4 tie; the mean 3.2 is nearer 3
    ([5, 4, 4, 5, 1], (4, 0.4)),  # 4 and 5 tie; the mean 3.8 is nearer 4
    ([None, None, 5], (5, 1 / 3)),  # unparseable samples abstain but count in the share
    ([None, None], (None, None)),
    ([5], (5, 1.0)),
])
def test_vote_ordinal_by_hand(scores: list[int | None], want: tuple[Any, Any]) -> None:
    answer, share = vote_ordinal(scores)
    assert answer == want[0]
    assert share == (None if want[1] is None else pytest.approx(want[1]))


@pytest.mark.parametrize(("labels", "want"), [
    (["Method", "Method", "Theory"], ("Method", 2 / 3)),
    (["Theory", "Method"], ("Theory", 0.5)),  # tie: the earliest sample's label, not the alphabet's
    ([None, "Theory", "Method", "Method", "Theory"], ("Theory", 0.4)),  # 2 each; Theory came first
    ([None, "Clarity", None], ("Clarity", 1 / 3)),
    ([None, None, None], (None, None)),
    ([(), ("novelty",), ()], ((), 2 / 3)),  # an empty set of types is an answer, not an abstention
    ([("clarity", "novelty"), ("novelty",), ("clarity", "novelty")], (("clarity", "novelty"), 2 / 3)),
])
def test_vote_labels_by_hand(labels: list[Any], want: tuple[Any, Any]) -> None:
    answer, share = vote_labels(labels)
    assert answer == want[0]
    assert share == (None if want[1] is None else pytest.approx(want[1]))


def test_votes_need_a_sample() -> None:
    with pytest.raises(ValueError):
        vote_ordinal([])
    with pytest.raises(ValueError):
        vote_labels([])


def test_rinobench_votes_with_the_shared_function() -> None:
    from noveval.benchmarks.rinobench.generate import vote

    assert vote is vote_ordinal


def test_mean_consistency_and_seeds() -> None:
    assert mean_consistency([0.5, 1.0]) == pytest.approx(0.75)
    assert mean_consistency([None, 0.25]) == pytest.approx(0.25)
    assert mean_consistency([None, None]) is None
    assert sample_seeds(42, 3) == [42, 43, 44]
    assert sample_seeds(7, 1) == [7]


def test_check_samples() -> None:
    check_samples(1, 0.0)
    check_samples(5, 0.7)
    with pytest.raises(InputError, match="temperature 0"):
        check_samples(3, 0.0)
    with pytest.raises(InputError, match="at least 1"):
        check_samples(0, 1.0)
