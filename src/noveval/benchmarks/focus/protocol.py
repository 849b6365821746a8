"""The two evaluation protocols of the focus-level benchmark: ``paper`` and ``noveval``.

``paper`` follows Shin et al. ("Mind the Blind Spots") where the paper says what it did:

* **expert side** -- strengths and weaknesses from the meta-review, augmented with the
  individual reviews, by the three-prompt chain (Section 3.2, Appendix A.1.1);
* **papers** -- rejected papers only, where the data mark the decision (Section 5.1:
  accepted papers are excluded because OpenReview holds their camera-ready version);
  papers whose decision is not marked are kept and counted;
* **F1** -- over the *set* of (target, aspect) pairs of a paper (Section 5.1, Table 3
  caption), strength and weakness separately;
* **overall F1** -- the set F1 over the polarity-tagged pairs of both polarities,
  which is the size-weighted mean of the strength and weakness F1 (the paper does
  not define it in words; see :func:`overall_rule` for the evidence in Table 3). A
  model that wrote no strength in the whole run is scored on weaknesses only, as
  MARG in Table 3 (overall = weakness F1, strength F1 "–");
* **text similarity** -- ROUGE-L, BLEU-4 and BERTScore against the expert review,
  averaged when a paper has several references;
* **KL** -- the mean over the four focus distributions (Table 3 caption) of those
  that have mass on both sides: for MARG, which writes no strengths, the paper
  reports the weakness side only.

``noveval`` (the default) is the behaviour noveval had before the protocols existed,
with the two scoring bugs of issue 13 fixed: the deterministic splitter pools every
reviewer's points (no model in the reference), every paper is used, F1 counts
duplicate labels (multiset), overall F1 matches polarity-tagged multisets, text
similarity takes the best reference, and KL averages all four distributions
(an empty side is smoothed). ``docs/fidelity.md`` explains each difference.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

from noveval.errors import InputError

__all__ = ["PROTOCOLS", "Protocol", "get_protocol", "select_papers"]


@dataclass(frozen=True)
class Protocol:
    """What a focus run does where the paper and noveval differ.

    Attributes:
        name: ``"paper"`` or ``"noveval"``.
        expert: ``"chain"`` (meta-review chain) or ``"split"`` (all reviewers' points).
        rejected_only: Drop papers marked accepted.
        matching: ``"set"`` (each (target, aspect) pair once per paper) or
            ``"multiset"`` (duplicates count).
        text_reference: ``"mean"`` or ``"max"`` over a paper's expert references.
        kl_present_only: Average only distributions with mass on both sides.
        weakness_only_if_no_strengths: Score a run whose model wrote no strength on
            weaknesses only (strength F1 undefined, overall = weakness side).
    """

    name: str
    expert: Literal["chain", "split"]
    rejected_only: bool
    matching: Literal["set", "multiset"]
    text_reference: Literal["mean", "max"]
    kl_present_only: bool
    weakness_only_if_no_strengths: bool

    def describe(self) -> dict[str, Any]:
        """The protocol as recorded in config.json and scores.json."""
        d = asdict(self)
        d["overall_f1"] = overall_rule(self.matching)
        return d


def overall_rule(matching: str) -> str:
    """Plain-words definition of overall F1 under a matching rule.

    Both protocols match polarity-tagged labels ``(polarity, target, aspect)``, so a
    strength never matches a weakness. Per paper that F1 equals
    ``(n_s * F1_s + n_w * F1_w) / (n_s + n_w)`` with ``n = |human| + |model|`` of each
    polarity: the size-weighted mean of strength and weakness F1. Table 3 fits this and
    not the plain mean: overall lies between the plain mean and the weakness F1 in all
    ten rows, and is above the plain mean by more than rounding (0.001) for o1 (0.355
    vs 0.353), DeepSeek-R1 (0.373 vs 0.3705) and gpt-4o (FT) (0.306 vs 0.301) -- always
    toward the weakness side, which has more points (2,448 weaknesses vs 1,241
    strengths, Section 5.1).
    """
    unit = "set of (polarity, target, aspect) triples" if matching == "set" else \
        "multiset of (polarity, target, aspect) triples (duplicates count)"
    return (f"per paper, F1 over the {unit}, i.e. the size-weighted mean of strength and "
            "weakness F1; mean over papers")


PROTOCOLS: dict[str, Protocol] = {
    "paper": Protocol(
        name="paper", expert="chain", rejected_only=True, matching="set",
        text_reference="mean", kl_present_only=True, weakness_only_if_no_strengths=True,
    ),
    "noveval": Protocol(
        name="noveval", expert="split", rejected_only=False, matching="multiset",
        text_reference="max", kl_present_only=False, weakness_only_if_no_strengths=False,
    ),
}
"""The protocols by name; ``noveval`` is the default."""


def get_protocol(name: str | None) -> Protocol:
    """The protocol called ``name`` (``None`` means ``"noveval"``).

    Raises:
        InputError: An unknown name (exit 2 at the CLI).
    """
    key = name or "noveval"
    if key not in PROTOCOLS:
        raise InputError(None, None, "protocol", f"expected one of {sorted(PROTOCOLS)}, got {name!r}")
    return PROTOCOLS[key]


def select_papers(
    papers: Sequence[Any], protocol: Protocol, *, limit: int | None = None
) -> tuple[list[Any], dict[str, Any]]:
    """Apply the protocol's paper selection, then ``limit``, and say what was kept.

    Args:
        papers: Papers in file order (each with an ``accepted`` attribute: bool or None).
        protocol: The protocol.
        limit: Keep the first ``limit`` qualifying papers.

    Returns:
        ``(kept, selection)``; ``selection`` counts the papers ``read``, how many are
        ``rejected``, ``accepted`` and ``unmarked`` (no decision in the data), how many
        ``qualify`` under the rule and how many are ``used`` (after ``limit``), and
        states the ``rule``.
    """
    rejected = sum(1 for p in papers if p.accepted is False)
    accepted = sum(1 for p in papers if p.accepted is True)
    unmarked = len(papers) - rejected - accepted
    if protocol.rejected_only:
        qualify = [p for p in papers if p.accepted is not True]
        rule = "rejected papers only (Section 5.1)"
        if unmarked:
            rule += f"; {unmarked} papers with no decision in the data are kept"
    else:
        qualify = list(papers)
        rule = "all papers"
    kept = qualify[:limit] if limit else qualify
    return kept, {"rule": rule, "read": len(papers), "rejected": rejected, "accepted": accepted,
                  "unmarked": unmarked, "qualify": len(qualify), "used": len(kept)}
