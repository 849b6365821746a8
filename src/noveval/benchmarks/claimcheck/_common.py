"""Shared pieces of the CLAIMCHECK tasks: prompts, reply schemas, paper context."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from noveval.benchmarks.claimcheck.data import WEAKNESS_TYPES
from noveval.benchmarks.claimcheck.options import PROTOCOLS, ClaimcheckOptions
from noveval.models.chat import ChatClientProtocol, ChatRequest, GenerationParams
from noveval.models.structured import acomplete_structured, schema_of
from noveval.prompts import load
from noveval.prompts import prompt_hashes as hashes

__all__ = [
    "PROTOCOLS",
    "PAPER_SEEDS",
    "failure_of",
    "prompt_messages",
    "prompt_hashes",
    "paper_context",
    "split_chunks",
    "strip_references",
    "TypeFlags",
    "ExtractReply",
    "WIReply",
    "CAReply",
    "WLReply",
    "CVEvidenceReply",
    "CVGenerateReply",
    "CVJudgeReply",
    "WLERewriteReply",
    "WLEJudgeReply",
    "WLEPaperReply",
    "structured",
    "format_targets",
]


PAPER_SEEDS: tuple[int, ...] = (0, 42, 2025)
"""Appendix C.1: every experiment is run with these seeds and the results averaged."""

def failure_of(result: Any) -> str | None:
    """How a structured call failed: ``"call"``, ``"unparseable"`` or ``None`` (it worked).

    ``"call"``: the request failed for good (connection, HTTP error, timeout, after the
    client's retries). ``"unparseable"``: a reply arrived but did not validate as the
    task's JSON even after a re-ask -- the model's answer, counted as a failed item.
    """
    if result.ok:
        return None
    return "call" if str(result.error or "").startswith("model call failed") else "unparseable"


def prompt_messages(name: str, **values: Any) -> list[dict[str, str]]:
    """Chat messages of the prompt template ``prompts/<name>.txt`` filled with ``values``.

    ``related`` defaults to ``""`` (no related works: the prompt reads as without it).
    Values are given as text (``str(value)``). The user message ends with a newline, as it
    always has (cached responses stay valid).

    Raises:
        InputError: the template (e.g. an override) uses a variable not in ``values``.
    """
    values.setdefault("related", "")
    return load("claimcheck", name).render(**{k: str(v) for k, v in values.items()}).messages(end="\n")


def prompt_hashes(names: list[str]) -> dict[str, str]:
    """Content hashes of the prompt templates used by a run (for ``config.json``), checked
    against the variables the code provides (:func:`noveval.prompts.prompt_hashes`)."""
    return hashes("claimcheck", names)


def format_targets(texts: list[str]) -> str:
    """Numbered list of target-claim texts for a prompt."""
    return "\n".join(f"{i}. {t}" for i, t in enumerate(texts, 1)) or "(no target claim given)"


_REF_HEAD = re.compile(r"^#+\s*(\d+\s*)?(references|bibliography)\b", re.I | re.M)


def strip_references(fulltext: str) -> str:
    """Drop the References section and everything after it (Markdown heading)."""
    m = _REF_HEAD.search(fulltext)
    return fulltext[: m.start()] if m else fulltext


def split_chunks(text: str, size: int) -> list[tuple[int, str]]:
    """Split ``text`` into chunks of at most ~``size`` characters on paragraph breaks.

    Returns:
        ``(offset, chunk)`` pairs; ``text[offset:offset+len(chunk)] == chunk``.
    """
    chunks: list[tuple[int, str]] = []
    start = 0
    n = len(text)
    while start < n:
        end = min(n, start + size)
        if end < n:
            cut = text.rfind("\n\n", start + size // 2, end)
            if cut < 0:
                cut = text.rfind(". ", start + size // 2, end)
                cut = cut + 1 if cut >= 0 else end
            end = cut
        piece = text[start:end]
        if piece.strip():
            chunks.append((start, piece))
        start = end
        while start < n and text[start] in "\n":
            start += 1
    return chunks


_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 3}


def paper_context(fulltext: str, query: str, budget: int) -> str:
    """Paper text for a prompt: whole text, or the paragraphs most related to ``query``.

    Paragraphs are ranked by the number of (4+ letter) words they share with ``query``,
    kept up to ``budget`` characters, and printed in paper order. The first paragraph
    (title/abstract) is always kept.

    Args:
        fulltext: Paper Markdown.
        query: Weakness and/or claim text.
        budget: Character budget; ``0`` or a text that fits returns the text unchanged.
    """
    body = strip_references(fulltext)
    if budget <= 0 or len(body) <= budget:
        return body
    paras = [p for p in re.split(r"\n\s*\n", body) if p.strip()]
    q = _words(query)
    ranked = sorted(range(1, len(paras)), key=lambda i: -len(q & _words(paras[i])))
    keep = {0}
    used = len(paras[0]) if paras else 0
    for i in ranked:
        if used + len(paras[i]) > budget:
            continue
        keep.add(i)
        used += len(paras[i]) + 2
    return "\n\n".join(paras[i][:budget] for i in sorted(keep))


# ---------------------------------------------------------------- reply schemas
class TypeFlags(BaseModel):
    """Multi-label weakness types (Appendix B.3)."""

    insufficient: bool = False
    contradictory: bool = False
    novelty: bool = False
    clarity: bool = False
    related_work: bool = False
    other: bool = False

    def labels(self) -> list[str]:
        """The true labels, in :data:`WEAKNESS_TYPES` order."""
        return [t for t in WEAKNESS_TYPES if getattr(self, t)]


# Length caps go into the JSON schema only (``json_schema_extra``): they bound what a
# grammar-constrained local model can emit, without rejecting longer replies from
# servers that ignore them.
def _cap(n: int, **kw: Any) -> Any:
    return Field(json_schema_extra={"maxLength": n}, **kw)


def _items(n: int, **kw: Any) -> Any:
    return Field(json_schema_extra={"maxItems": n}, **kw)


_S = Annotated[str, Field(json_schema_extra={"maxLength": 600})]


class ExtractReply(BaseModel):
    claims: list[_S] = _items(12, default_factory=list)


class _WIItem(BaseModel):
    # groundedness first: a reply cut off by the token budget still has it for every
    # passage it started, and the partial passage is still a verifiable substring.
    groundedness: int = Field(ge=1, le=5)
    text: str = _cap(1200)


class WIReply(BaseModel):
    weaknesses: list[_WIItem] = _items(10, default_factory=list)


class CAReply(BaseModel):
    reasoning: str = _cap(300, default="")
    target_claims: list[int] = _items(3, default_factory=list)
    custom_claim: str | None = _cap(600, default=None)


class WLReply(BaseModel):
    reasoning: str = _cap(300, default="")
    objectivity: int = Field(ge=1, le=5)
    agreement: int = Field(ge=1, le=5)
    types: TypeFlags


class CVEvidenceReply(BaseModel):
    evidence: list[_S] = _items(5, default_factory=list)
    weakness: str = _cap(1200)


class CVGenerateReply(CVEvidenceReply):
    types: TypeFlags


class CVJudgeReply(BaseModel):
    reasoning: str = _cap(300, default="")
    verdict: Literal["same", "similar", "different"]


class WLERewriteReply(BaseModel):
    reasoning: str = _cap(300, default="")
    revised_weakness: str = _cap(1500)


def _span(lo: int, hi: int, **kw: Any) -> Any:
    """Length bounds for the decoding grammar only (servers that ignore them are not rejected)."""
    return Field(json_schema_extra={"minLength": lo, "maxLength": hi}, **kw)


class WLEPaperReply(BaseModel):
    """One reply that labels and rewrites a weakness (the paper's WLE prompt, App. D).

    The minimum lengths keep a grammar-constrained small model from answering with empty
    or placeholder strings ("", "...", "1"), which it otherwise does for every field; the
    maximum lengths keep a whole reply within the default 512-token budget.
    """

    objectivity_reasoning: str = _span(10, 150)
    objectivity: int = Field(ge=1, le=5)
    agreement_reasoning: str = _span(10, 150)
    agreement: int = Field(ge=1, le=5)
    types_reasoning: str = _span(10, 150)
    types: TypeFlags
    rewrite_reasoning: str = _span(10, 150)
    rewritten_weakness: str = _span(20, 1200)


class WLEJudgeReply(BaseModel):
    reasoning: str = _cap(300, default="")
    preference: Literal["A", "B", "tie"]


async def structured(
    client: ChatClientProtocol, messages: list[dict[str, str]], schema: type[BaseModel], *, task: str,
    options: ClaimcheckOptions, tag: str, role: str = "model",
) -> Any:
    """One schema-constrained call through the client (cached, re-asked on bad JSON).

    ``role``: ``model`` for the model under test, ``judge`` for CV's and WLE's judge (the
    parser's verdict is counted under it, :func:`noveval.models.calls.note_answer`).

    Returns:
        A :class:`~noveval.models.structured.StructuredResult`.
    """
    params = GenerationParams(
        temperature=options.temp(task),
        seed=options.seed,
        max_tokens=options.max_tokens,
        json_schema=schema_of(schema),
    )
    req = ChatRequest(messages=messages, params=params, tag=tag)
    return await acomplete_structured(client, req, schema, max_reasks=1, role=role)
