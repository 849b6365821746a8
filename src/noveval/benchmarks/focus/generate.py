"""Model reviews for focus-level evaluation ("Mind the Blind Spots", A.1.2, Section 5.1).

A model reads the paper (title + abstract, or the full text when the record has
``fulltext_markdown`` and ``source="fulltext"``) and writes a review with a
summary, a list of strengths and a list of weaknesses. The reply is requested as
JSON (``{"summary", "strengths": [...], "weaknesses": [...]}``) under a JSON schema,
so that even the bundled 135M model yields separable points; a reply that is not
valid JSON falls back to cutting the text at ``Strengths:``/``Weaknesses:`` headers
and splitting with :func:`.split.split_points`.

**Truncation rule** (recorded in every prediction row under ``truncation``): the
paper text is cut to ``max_input_tokens`` estimated as ``4`` characters per
token, at the last paragraph break (else whitespace) before the limit; the title
is never cut. The default 6000 tokens leaves room for the 8192-token context of
the bundled model with 1024 tokens of output.
"""

from __future__ import annotations

import json
from typing import Any

from noveval.benchmarks.focus.annotate import prompt_messages
from noveval.benchmarks.focus.data import FocusPaper
from noveval.benchmarks.focus.split import split_points, split_review_sections
from noveval.models.calls import note_answer
from noveval.models.chat import ChatRequest, GenerationParams

CHARS_PER_TOKEN = 4
DEFAULT_MAX_INPUT_TOKENS = 6000
DEFAULT_MAX_TOKENS = 1024
"""Output budget; the schema caps strings (600/400 chars) and lists (8) so small models stop."""

REVIEW_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "summary": {"type": "string", "maxLength": 600},
        "strengths": {
            "type": "array", "items": {"type": "string", "maxLength": 400}, "minItems": 1, "maxItems": 8,
        },
        "weaknesses": {
            "type": "array", "items": {"type": "string", "maxLength": 400}, "minItems": 1, "maxItems": 8,
        },
    },
    "required": ["summary", "strengths", "weaknesses"],
}

__all__ = ["REVIEW_SCHEMA", "paper_input", "parse_review", "render_review", "review_request"]


def truncation_rule(max_input_tokens: int) -> str:
    """The human-readable truncation rule recorded in run configs and rows."""
    return (
        f"paper text cut to {max_input_tokens} tokens estimated as {CHARS_PER_TOKEN} chars/token "
        f"({max_input_tokens * CHARS_PER_TOKEN} chars), at the last paragraph break or space"
    )


def paper_input(
    paper: FocusPaper, *, source: str = "abstract", max_input_tokens: int = DEFAULT_MAX_INPUT_TOKENS
) -> tuple[str, dict[str, Any]]:
    """The paper text shown to the reviewing model and how it was truncated.

    Args:
        paper: The paper.
        source: ``"abstract"`` or ``"fulltext"`` (falls back to the abstract when the
            record has no full text; the row records what was used).
        max_input_tokens: Budget for the paper text.

    Returns:
        ``(text, info)`` with ``info = {"source", "chars_total", "chars_kept",
        "truncated", "rule"}``.
    """
    used = "fulltext" if source == "fulltext" and paper.fulltext_markdown else "abstract"
    text = paper.fulltext_markdown if used == "fulltext" else f"Abstract: {paper.abstract}"
    text = (text or "").strip()
    limit = max_input_tokens * CHARS_PER_TOKEN
    kept = text
    if len(text) > limit:
        cut = text.rfind("\n\n", 0, limit)
        if cut < limit // 2:
            cut = text.rfind(" ", 0, limit)
        kept = text[: cut if cut > 0 else limit].rstrip()
    info = {
        "source": used,
        "chars_total": len(text),
        "chars_kept": len(kept),
        "truncated": len(kept) < len(text),
        "rule": truncation_rule(max_input_tokens),
    }
    return kept, info


def review_request(
    paper: FocusPaper,
    *,
    source: str = "abstract",
    max_input_tokens: int = DEFAULT_MAX_INPUT_TOKENS,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    seed: int = 0,
) -> tuple[Any, dict[str, Any]]:
    """The chat request that asks a model to review ``paper``, and the truncation info."""
    text, info = paper_input(paper, source=source, max_input_tokens=max_input_tokens)
    req = ChatRequest(
        messages=prompt_messages("review", title=paper.title, paper=text),
        params=GenerationParams(
            temperature=0.0, max_tokens=max_tokens, seed=seed, json_schema=REVIEW_SCHEMA
        ),
        tag="focus-review",
    )
    return req, info


def _clean_items(items: Any) -> list[str]:
    if not isinstance(items, list):
        return []
    out = []
    for it in items:
        if isinstance(it, dict):  # {"header": ..., "detail": ...} styles
            it = ": ".join(str(v) for v in it.values() if v)
        if isinstance(it, str) and it.strip():
            out.append(" ".join(it.split()))
    return out


def parse_review(text: str | None) -> tuple[dict[str, Any], str | None]:
    """Read a generated review into ``{"summary", "strengths", "weaknesses"}``.

    Returns:
        ``(review, error)``; ``error`` is ``None`` when JSON was read, a note when the
        header fallback was used, and the reason when nothing could be read (then the
        lists are empty).
    """
    empty: dict[str, Any] = {"summary": "", "strengths": [], "weaknesses": []}
    if not text or not text.strip():
        return empty, "empty reply"
    try:
        from noveval.models.structured import extract_json

        obj = extract_json(text)
    except Exception:  # noqa: BLE001
        obj = None
    if isinstance(obj, dict) and ("strengths" in obj or "weaknesses" in obj):
        return {
            "summary": str(obj.get("summary") or ""),
            "strengths": _clean_items(obj.get("strengths")),
            "weaknesses": _clean_items(obj.get("weaknesses")),
        }, None
    sec = split_review_sections(text)
    review = {
        "summary": sec.get("summary", ""),
        "strengths": split_points(sec.get("strengths")),
        "weaknesses": split_points(sec.get("weaknesses")),
    }
    if review["strengths"] or review["weaknesses"]:
        return review, "not JSON: points read from section headers"
    return empty, "no strengths or weaknesses found in the reply"


def render_review(summary: str, strengths: list[str], weaknesses: list[str]) -> str:
    """A review as plain text (used for ROUGE-L / BLEU-4 / BERTScore)."""
    parts = []
    if summary:
        parts.append(f"Summary: {summary}")
    parts.append("Strengths:\n" + "\n".join(f"- {s}" for s in strengths))
    parts.append("Weaknesses:\n" + "\n".join(f"- {w}" for w in weaknesses))
    return "\n\n".join(parts)


def prediction_row(paper: FocusPaper, response: Any, info: dict[str, Any], model_id: str, client: Any = None) -> dict:
    """One predictions.jsonl row from a model's reply.

    With ``client`` (the model that answered) the parser's verdict is reported
    (:func:`noveval.models.calls.note_answer`, role ``model``): a reply with no strengths
    and no weaknesses is unusable.
    """
    if response.ok:
        review, parse_err = parse_review(response.text)
        err = None
        if client is not None:
            note_answer(client, response, usable=bool(review["strengths"] or review["weaknesses"]), role="model")
    else:
        review, err = {"summary": "", "strengths": [], "weaknesses": []}, response.error
        parse_err = None
    # "error": the call failed; "parse_error": the reply is the model's answer but has no
    # usable strengths/weaknesses. Both are asked again by the next run on the folder.
    return {
        "id": paper.id,
        "model": model_id,
        "raw": response.text,
        "summary": review["summary"],
        "strengths": review["strengths"],
        "weaknesses": review["weaknesses"],
        "review_text": render_review(review["summary"], review["strengths"], review["weaknesses"]),
        "truncation": info,
        "error": err,
        "parse_error": parse_err,
    }


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False)
