"""Weakness identification, WI (CLAIMCHECK §3.3).

The model reads one review and returns the passages that describe claim-related
weaknesses, each copied verbatim, with a 1-5 groundedness label (Appendix B.3).
Passages are located in the review after whitespace normalisation and stored as
character offsets. A passage that is not an exact substring but a near-verbatim copy
is aligned to the review by fuzzy matching
(:func:`~noveval.benchmarks.claimcheck.data.align_span`, similarity >= 85 of 100) and
the aligned review span is kept, flagged ``aligned`` with its ``alignment_score``; it is
scored like any other span, so a near copy earns partial ``F1_edit`` credit instead of
0. Passages that align nowhere are kept in ``unverified`` (not scored). Scored
against gold spans with ``F1_edit`` / ``F1_exact`` (§3.4).
"""

from __future__ import annotations

from noveval.benchmarks.claimcheck._common import (
    WIReply,
    failure_of,
    prompt_messages,
    structured,
)
from noveval.benchmarks.claimcheck.data import align_span, find_span
from noveval.benchmarks.claimcheck.options import ClaimcheckOptions
from noveval.models.calls import note_answer
from noveval.models.chat import ChatClientProtocol
from noveval.models.structured import parse_as

__all__ = ["identify_weaknesses"]


def _salvage(raw: list[str | None]) -> WIReply | None:
    """Keep the complete passages of a reply that was cut off mid-list."""
    for text in reversed([r for r in raw if r]):
        cut = text.rfind("}")
        while cut > 0:
            try:
                return parse_as(text[: cut + 1] + "]}", WIReply)
            except ValueError:
                cut = text.rfind("}", 0, cut)
    return None


async def identify_weaknesses(
    client: ChatClientProtocol, *, paper_id: str, review_index: int, review_text: str, title: str,
    options: ClaimcheckOptions,
) -> dict:
    """Find claim-related weakness spans in one review.

    Args:
        client: A chat client.
        paper_id: Paper id.
        review_index: Index of the review among the paper's reviews.
        review_text: The review.
        title: Paper title (context for the model).
        options: Generation settings.

    Returns:
        ``{"id": "<paper_id>#<review_index>", "paper_id", "review_index",
        "weaknesses": [{"id", "text", "start", "end", "groundedness", "aligned",
        "alignment_score"?}], "unverified": [{"text", "groundedness"}], "error",
        "failure"}``. The row's weaknesses have the shape of the annotation format, so
        they can feed CA/WL/CV/WLE. A failed reply (``failure`` ``"call"`` or
        ``"unparseable"``) has no weaknesses: it is scored as an empty answer.
    """
    rid = f"{paper_id}#{review_index}"
    res = await structured(client, prompt_messages("wi", title=title, review=review_text), WIReply,
                           task="wi", options=options, tag=f"claimcheck.wi:{rid}")
    row: dict = {"id": rid, "paper_id": paper_id, "review_index": review_index,
                 "weaknesses": [], "unverified": [], "error": None, "failure": None}
    reply = res.value if res.ok else _salvage(res.raw)
    if reply is None:
        row["error"] = res.error
        row["failure"] = failure_of(res)
        return row
    if not res.ok:
        note_answer(client, res.replies, usable=True, role="model")  # its complete passages are read
        row["salvaged"] = True  # reply cut by the token budget: complete passages kept
    seen: set[tuple[int, int]] = set()
    for w in reply.weaknesses:
        span = find_span(review_text, w.text)
        extra: dict = {"aligned": False}
        if span is None:
            fuzzy = align_span(review_text, w.text)
            if fuzzy is None:
                row["unverified"].append({"text": w.text, "groundedness": w.groundedness})
                continue
            span = fuzzy[:2]
            extra = {"aligned": True, "alignment_score": round(fuzzy[2], 1), "model_text": w.text}
        if span in seen:
            continue
        seen.add(span)
        row["weaknesses"].append({"text": review_text[span[0]:span[1]], "start": span[0],
                                  "end": span[1], "groundedness": w.groundedness, **extra})
    row["weaknesses"].sort(key=lambda w: w["start"])
    for i, w in enumerate(row["weaknesses"], 1):
        w["id"] = f"w{i}"
    row["weaknesses"] = [{"id": w.pop("id"), **w} for w in row["weaknesses"]]
    return row
