"""Self-consistency of a judging step: N samples, one answer by vote, and how many agree.

Issue 18 (``--samples N``): a judging step (RINoBench's score, ``noveval check``'s rubric
judgment, the focus annotator's target/aspect labels, CLAIMCHECK's weakness labels) asks
the model N times, sample ``k`` with seed ``seed + k`` (:func:`sample_seeds`) at a
temperature above 0 (:func:`check_samples`), and answers by plurality vote in the manner
of Wang et al. (2023), "Self-consistency improves chain of thought reasoning":

* :func:`vote_ordinal` for scores on an ordered scale (RINoBench 1-5, CLAIMCHECK's
  objectivity and agreement 1-5): among tied most frequent values, the one nearest the
  mean of the parsed samples, then the lower one;
* :func:`vote_labels` for categorical answers (a focus target or aspect, CLAIMCHECK's set
  of weakness types as one answer): among tied most frequent labels, the one given by
  the earliest sample (lowest seed), so sample 0 -- the one-sample answer -- wins a tie
  it is part of.

In both, an unparseable sample (``None``) abstains from the vote but still counts in the
share: the item's **self-consistency** is the share of *all* N samples that gave the
answer, in (0, 1] (best 1: unanimous; 1/N: every parsed sample different), and None when
no sample parsed. A step with several answers per item (target and aspect; objectivity,
agreement and types) records one share per answer and their mean
(:func:`mean_consistency`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from typing import TypeVar

from noveval.errors import InputError

__all__ = ["vote_ordinal", "vote_labels", "mean_consistency", "sample_seeds", "check_samples"]

L = TypeVar("L", bound=Hashable)


def vote_ordinal(scores: Sequence[int | None]) -> tuple[int | None, float | None]:
    """The plurality answer of N sampled scores on an ordered scale, and its share.

    Unparseable samples (None) abstain. Among tied most frequent scores, the one nearest
    the mean of the parsed samples wins, then the lower one: (2, 4) gives 2; in
    (2, 3, 3, 4, 4) 3 and 4 tie and the mean is 3.2, so 3.

    Args:
        scores: The samples' scores (e.g. 1..5, or None), at least one.

    Returns:
        ``(answer, self_consistency)``: the answer and the share of all samples equal
        to it, in (0, 1], best 1 (unanimous); ``(None, None)`` when no sample parsed
        (no score to be consistent about; such items are left out of the mean).

    Raises:
        ValueError: no sample.
    """
    if not scores:
        raise ValueError("vote needs at least one sample")
    parsed = [s for s in scores if s is not None]
    if not parsed:
        return None, None
    counts = Counter(parsed)
    top = max(counts.values())
    mean = sum(parsed) / len(parsed)
    answer = min((s for s, c in counts.items() if c == top), key=lambda s: (abs(s - mean), s))
    return answer, counts[answer] / len(scores)


def vote_labels(labels: Sequence[L | None]) -> tuple[L | None, float | None]:
    """The plurality answer of N sampled categorical labels, and its share.

    Unparseable samples (None) abstain. Among tied most frequent labels, the one given
    by the earliest sample wins: ("Method", "Theory") gives "Method"; (None, "Theory",
    "Method", "Method", "Theory") gives "Theory" (2 each; "Theory" came first). The
    label's name never decides, so renaming a label cannot change an answer. Any
    hashable answer works, e.g. a set of types as a sorted tuple (an empty tuple is an
    answer, not an abstention).

    Args:
        labels: The samples' labels in sample (seed) order, or None, at least one.

    Returns:
        ``(answer, self_consistency)``: the answer and the share of all samples equal
        to it, in (0, 1], best 1 (unanimous); ``(None, None)`` when no sample parsed.

    Raises:
        ValueError: no sample.
    """
    if not labels:
        raise ValueError("vote needs at least one sample")
    counts: Counter[L] = Counter(x for x in labels if x is not None)
    if not counts:
        return None, None
    top = max(counts.values())
    answer = next(x for x in labels if x is not None and counts[x] == top)
    return answer, counts[answer] / len(labels)


def mean_consistency(shares: Sequence[float | None]) -> float | None:
    """Mean of an item's per-answer self-consistencies (None ones left out; None if all are).

    For a step that answers several things per item (focus: target and aspect;
    CLAIMCHECK WL: objectivity, agreement and types): in (0, 1], best 1.
    """
    have = [s for s in shares if s is not None]
    return sum(have) / len(have) if have else None


def sample_seeds(seed: int, samples: int) -> list[int]:
    """Seeds of the N samples: ``seed, seed + 1, ..., seed + N - 1``.

    Sample 0 has the run's own seed, so it is the one-sample answer (a cache hit when a
    one-sample run with the same settings was made). Runs whose seeds are closer than N
    share samples.
    """
    return [seed + k for k in range(samples)]


def check_samples(samples: int, temperature: float, *, hint: str = "set a temperature above 0",
                  field: str = "options.samples") -> None:
    """Refuse a sample count that cannot measure anything.

    Args:
        samples: Samples per item.
        temperature: The step's sampling temperature.
        hint: What the user can do instead (end of the message).
        field: The option the error names (the CLI shows it as its flag).

    Raises:
        InputError: ``samples < 1``, or ``samples > 1`` at temperature 0 (greedy decoding
            gives one answer N times: self-consistency 1 by construction).
    """
    if samples < 1:
        raise InputError(None, None, field, f"must be at least 1, got {samples}")
    if samples > 1 and temperature == 0.0:
        raise InputError(None, None, field, f"{samples} samples at temperature 0 are one answer repeated: {hint}")
