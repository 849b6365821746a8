"""The automatic target/aspect annotator ("Mind the Blind Spots", Section 4.2, A.2.3).

Every point gets one *target* and one *aspect* from four prompts, target/aspect x
strength/weakness (Figures 9-12), written here in our own words from the facet
definitions of Appendix A.2.2 and the example lists of A.2.3.

Label sets (the order is the prompts' order):

* strength targets -- Problem, Method, Theory, Experiment, Conclusion, Paper,
  Review process. Figure 9 offers no "Prior Research" target for strengths, which
  agrees with Table 8 (Prior Research strength F1 = 0 for every model); we follow it.
* weakness targets -- Problem, Prior Research, Method, Theory, Experiment,
  Conclusion, Paper, Review process (Figure 10).
* strength aspects -- Impact, Novelty, Clarity, Validity, Not-specific, Irrelevant
  (Figure 11); weakness aspects -- Validity, Clarity, Novelty, Impact,
  Not-specific, Irrelevant (Figure 12).

The paper's "Overall Motivation" target is our ``Problem`` (Table 1) and
"Communication Clarity" is ``Clarity``; a reply that uses the paper's strings (or its
``"Target 1: Overall Motivation"`` answer format) is mapped by
:func:`noveval.metrics.focus.canonical_label`. Any other label in a reply is a
parse failure: recorded with its reason, counted, never dropped silently. Deviation: the paper's prompts ask for a
written discussion before the final label; ours ask for the label only, and the
reply is constrained to the label set by a JSON schema with an ``enum``
(``GenerationParams.json_schema``; a grammar on the local backend,
``response_format`` on OpenAI-compatible servers). A reply that is not valid JSON
or not in the set is recorded as a parse failure (label ``None``), never guessed.

Self-consistency (``--samples N``, issue 18): each prompt is asked N times at a
temperature above 0, sample ``k`` with seed ``seed + k``, and each label is the
plurality of the parsed samples (:func:`sampled_judgment_row`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from noveval.benchmarks.focus.data import FocusPoint
from noveval.metrics.consistency import mean_consistency, sample_seeds, vote_labels
from noveval.models.calls import note_answer
from noveval.models.chat import ChatClientProtocol, ChatRequest, GenerationParams
from noveval.models.structured import extract_json
from noveval.prompts import load
from noveval.records import Polarity

__all__ = [
    "ASPECT_LABELS",
    "TARGET_LABELS",
    "annotation_requests",
    "annotation_seeds",
    "judgment_row",
    "sampled_judgment_row",
    "label_schema",
    "parse_label",
    "prompt_messages",
]

TARGET_LABELS: dict[Polarity, tuple[str, ...]] = {
    "strength": (
        "Problem", "Method", "Theory", "Experiment", "Conclusion", "Paper", "Review process",
    ),
    "weakness": (
        "Problem", "Prior Research", "Method", "Theory", "Experiment", "Conclusion", "Paper",
        "Review process",
    ),
}
ASPECT_LABELS: dict[Polarity, tuple[str, ...]] = {
    "strength": ("Impact", "Novelty", "Clarity", "Validity", "Not-specific", "Irrelevant"),
    "weakness": ("Validity", "Clarity", "Novelty", "Impact", "Not-specific", "Irrelevant"),
}
FAMILIES = ("target", "aspect")


def prompt_messages(name: str, **values: Any) -> list[dict[str, str]]:
    """Chat messages of the prompt template ``prompts/<name>.txt`` filled with ``values``.

    The user message ends with a newline, as it always has (cached responses stay valid).

    Raises:
        InputError: the template (e.g. an override) uses a variable not in ``values``.
    """
    return load("focus", name).render(**values).messages(end="\n")


def labels_for(family: str, polarity: Polarity) -> tuple[str, ...]:
    """The allowed labels of one prompt (``family`` is ``"target"`` or ``"aspect"``)."""
    return (TARGET_LABELS if family == "target" else ASPECT_LABELS)[polarity]


def label_schema(family: str, polarity: Polarity) -> dict[str, Any]:
    """JSON schema ``{"<family>": enum}`` that constrains a reply to the label set."""
    return {
        "type": "object",
        "properties": {family: {"type": "string", "enum": list(labels_for(family, polarity))}},
        "required": [family],
        "additionalProperties": False,
    }


def build_messages(family: str, polarity: Polarity, text: str) -> list[dict[str, str]]:
    """Chat messages of one annotation prompt for one point."""
    return prompt_messages(f"{family}_{polarity}", point=text.strip())


def annotation_requests(point: FocusPoint, *, max_tokens: int = 32, temperature: float = 0.0,
                        seed: int = 0) -> dict[str, Any]:
    """The two chat requests (target, aspect) for one point, keyed by family.

    ``temperature`` and ``seed`` are the sample's (:func:`annotation_seeds`); the defaults
    give the requests the annotator has always sent (temperature 0, seed 0).
    """
    out = {}
    for family in FAMILIES:
        out[family] = ChatRequest(
            messages=build_messages(family, point.polarity, point.text),
            params=GenerationParams(
                temperature=temperature,
                max_tokens=max_tokens,
                seed=seed,
                json_schema=label_schema(family, point.polarity),
            ),
            tag=f"focus-{family}-{point.polarity}",
        )
    return out


def annotation_seeds(seed: int, samples: int, temperature: float) -> list[int]:
    """The annotator's sample seeds: ``seed .. seed + N - 1`` when sampling (temperature > 0).

    At temperature 0 (one sample: more are refused) the request keeps seed 0, as it
    always has: a greedy reply does not depend on the seed, and a run's ``--seed`` (which
    also seeds the reviews and the bootstrap) then leaves cached annotations valid.
    """
    return sample_seeds(seed, samples) if temperature > 0 else [0]


def parse_label(text: str | None, family: str, polarity: Polarity) -> tuple[str | None, str | None]:
    """Read the label from a reply.

    Args:
        text: The raw reply.
        family: ``"target"`` or ``"aspect"``.
        polarity: Which label set applies.

    Returns:
        ``(label, None)`` when the reply is JSON with a label from the set, otherwise
        ``(None, reason)`` -- a parse failure, recorded as such.
    """
    if not text:
        return None, "empty reply"
    try:
        obj = extract_json(text)  # noveval's one JSON extractor (it also tries the whole text)
    except ValueError:
        return None, "reply is not JSON"
    value = obj.get(family) if isinstance(obj, dict) else None
    allowed = labels_for(family, polarity)
    if isinstance(value, str):
        from noveval.metrics.focus import canonical_label

        try:
            label = canonical_label(value, family)
        except ValueError:
            label = None
        if label in allowed:
            return label, None
    return None, f"label {value!r} not in {list(allowed)}"


async def annotate_points(
    client: ChatClientProtocol, points: list[FocusPoint], *, progress: str | None = "annotate"
) -> list[dict[str, Any]]:
    """Annotate points with target and aspect (no run directory; see :mod:`.generate`).

    Returns:
        One judgment row per point: ``id, paper_id, source, polarity, index, text,
        target, aspect, raw_target, raw_aspect, error``.
    """
    reqs = []
    for p in points:
        r = annotation_requests(p)
        reqs += [r["target"], r["aspect"]]
    responses = await client.acomplete_many(reqs, progress=progress) if reqs else []
    rows = []
    for i, p in enumerate(points):
        rows.append(judgment_row(p, responses[2 * i], responses[2 * i + 1], client.model_id, client))
    return rows


def judgment_row(point: FocusPoint, target_resp: Any, aspect_resp: Any, annotator: str, client: Any = None) -> dict:
    """One judgments.jsonl row from the two replies of a point.

    With ``client`` (the annotator) each reply's verdict is reported
    (:func:`noveval.models.calls.note_answer`, role ``annotator``).
    """
    row: dict[str, Any] = point.model_dump()
    row["annotator"] = annotator
    errors, unparsed = [], []
    for family, resp in (("target", target_resp), ("aspect", aspect_resp)):
        row[f"raw_{family}"] = resp.text
        if not resp.ok:
            row[family] = None
            errors.append(f"{family}: backend error: {resp.error}")
            continue
        label, err = parse_label(resp.text, family, point.polarity)
        row[family] = label
        if client is not None:
            note_answer(client, resp, usable=label is not None, role="annotator")
        if err:
            unparsed.append(f"{family}: {err}")
    # a failed call ("error") and an answer that does not parse ("parse_error": a failed point
    # in the metrics) are both asked again by the next run on the folder
    row["error"] = "; ".join(errors) or None
    row["parse_error"] = "; ".join(unparsed) or None
    return row


def sampled_judgment_row(point: FocusPoint, target_resps: Sequence[Any], aspect_resps: Sequence[Any], annotator: str,
                         seeds: Sequence[int], client: Any = None) -> dict:
    """One judgments.jsonl row from N sampled reply pairs of a point (``--samples N``).

    Each family's label is the plurality of its parsed samples
    (:func:`noveval.metrics.consistency.vote_labels`: an unparseable sample abstains;
    a tie goes to the label of the earliest sample). The row has the fields of
    :func:`judgment_row` (``raw_<family>`` is the reply of the first sample giving the
    label) plus ``samples`` (each sample's ``seed``, ``target``, ``aspect``,
    ``parse_error``), ``self_consistency_target`` and ``self_consistency_aspect`` (share
    of the N samples giving the family's label, in (0, 1], best 1; None when none parsed)
    and ``self_consistency``, their mean. A family any of whose sample calls failed has
    no label and no share, and the row's ``error`` names the failed calls (a re-run redoes
    them; the others come from the cache).
    """
    singles = [judgment_row(point, t, a, annotator, client) for t, a in zip(target_resps, aspect_resps, strict=True)]
    row: dict[str, Any] = point.model_dump()
    row["annotator"] = annotator
    errors, unparsed = [], []
    for family, resps in (("target", target_resps), ("aspect", aspect_resps)):
        failed = [(s, r) for s, r in zip(seeds, resps, strict=True) if not r.ok]
        label, share = vote_labels([one[family] for one in singles])
        if failed:
            label, share = None, None
            errors += [f"{family}: backend error (seed {s}): {r.error}" for s, r in failed]
        elif label is None:
            unparsed.append(f"{family}: no sample parsed")
        chosen = next((k for k, one in enumerate(singles) if label is not None and one[family] == label), 0)
        row[family] = label
        row[f"raw_{family}"] = resps[chosen].text
        row[f"self_consistency_{family}"] = share
    row["self_consistency"] = mean_consistency([row["self_consistency_target"], row["self_consistency_aspect"]])
    row["samples"] = [{"seed": s, "target": one["target"], "aspect": one["aspect"], "parse_error": one["parse_error"]}
                      for s, one in zip(seeds, singles, strict=True)]
    row["error"] = "; ".join(errors) or None
    row["parse_error"] = "; ".join(unparsed) or None
    return row
