"""Structured output: get a reply that validates against a pydantic model, or a recorded failure.

Steps for each request:

1. ask with ``json_schema`` set from the model (grammar-constrained on the local
   backend, ``response_format`` on servers), unless the request already sets one;
2. pull the first JSON value out of the reply (:func:`extract_json`, noveval's one JSON
   extractor: tolerates code fences, prose around it, trailing commas, single quotes in
   simple cases, a reply cut off mid-way);
3. validate it; on failure re-ask up to ``max_reasks`` times, showing the model its
   reply and the error;
4. if it never validates, return a :class:`StructuredResult` with ``value=None`` and the
   error — never raise, so one bad item never stops a run.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator, Sequence
from typing import Any, Generic, TypedDict, TypeVar, Unpack

from pydantic import BaseModel, Field, ValidationError

from noveval.models.chat import ChatClientProtocol, ChatRequest, ChatResponse
from noveval.models.client import run_async

T = TypeVar("T", bound=BaseModel)

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.S)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


def _candidates(text: str) -> list[str]:
    out = [m.group(1) for m in _FENCE.finditer(text)]
    for opener, closer in (("{", "}"), ("[", "]")):
        start = text.find(opener)
        if start >= 0:
            end = text.rfind(closer)
            if end > start:
                out.append(text[start : end + 1])
            out.append(text[start:])
    out.append(text)
    return out


def json_values(text: str | None) -> Iterator[Any]:
    """Every JSON value that can be recovered from a model reply, most plausible first (lazily).

    The one JSON extractor of noveval: every reply of every system is read through it
    (:func:`extract_json`, :func:`find_json_object`). Tried, in order:

    1. fenced code blocks, the span from the first ``{``/``[`` to the last ``}``/``]``,
       the span from the first ``{``/``[`` to the end, then the whole text; each raw and
       with light repairs (trailing commas removed, Python ``True/False/None``, single
       quotes when the text has no double quote); a candidate that starts with a value
       but has prose after it gives its first complete value. One value per candidate;
    2. the text from the first ``{``/``[`` with a truncated end closed
       (:func:`close_truncated_json`: a reply cut off by ``max_tokens``);
    3. the value starting at each ``{`` or ``[`` that opens at the top level of the text
       (a reply whose prose holds braces before its JSON); a bracket inside an unclosed
       one is skipped, so a truncated object never yields one of its inner objects as if
       it were the answer.

    :func:`extract_json` takes the first: steps 1-2 are the order it always had, so a
    reply it read before reads the same; step 3 only reads replies it could not.

    A value may be yielded more than once. Nothing is yielded for an empty reply or one
    without JSON.
    """
    if not text or not text.strip():
        return
    dec = json.JSONDecoder()
    for cand in _candidates(text):
        cand = cand.strip()
        if cand:
            found, value = _first_value(cand, dec)
            if found:
                yield value
    start = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
    if start >= 0:
        try:
            yield json.loads(close_truncated_json(text[start:]))
        except json.JSONDecodeError:
            pass
    for i in _top_level_openings(text):
        try:
            yield dec.raw_decode(text, i)[0]
        except json.JSONDecodeError:
            pass


def _top_level_openings(text: str) -> Iterator[int]:
    """Positions of each ``{``/``[`` outside strings that opens at nesting depth 0."""
    depth, in_str, esc = 0, False, False
    for i, ch in enumerate(text):
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"' and depth > 0:
            in_str = True
        elif ch in "{[":
            if depth == 0:
                yield i
            depth += 1
        elif ch in "}]" and depth > 0:
            depth -= 1


def _first_value(cand: str, dec: json.JSONDecoder) -> tuple[bool, Any]:
    """``(True, value)`` for the first way ``cand`` decodes (whole, leading value; raw, then repaired)."""
    for variant in (cand, _repair(cand)):
        try:
            return True, json.loads(variant)
        except json.JSONDecodeError:
            pass
        try:
            return True, dec.raw_decode(variant)[0]
        except json.JSONDecodeError:
            pass
    return False, None


def extract_json(text: str) -> Any:
    """Return the first JSON value found in a model reply (the first of :func:`json_values`).

    Raises:
        ValueError: an empty reply, or no JSON value could be recovered.
    """
    if not text or not text.strip():
        raise ValueError("empty reply")
    for value in json_values(text):
        return value
    raise ValueError("no JSON object found in the reply")


def find_json_object(text: str | None) -> dict[str, Any] | None:
    """The first JSON object (dict) among :func:`json_values` of a reply, or ``None``.

    For parsers that read fields from an object and fall back to reading prose
    (RINoBench's :func:`~noveval.judging.parse.parse_judgment`, novelty-pairs'
    ``parse_choice``): a list or a bare number in the reply is passed over.
    """
    return next((v for v in json_values(text) if isinstance(v, dict)), None)


def close_truncated_json(s: str) -> str:
    """Close a JSON text cut off mid-way (a reply that hit ``max_tokens``).

    Closes an open string, drops a dangling ``,`` or ``:`` (a key without a value is
    removed), and closes open arrays/objects in order. Valid JSON is returned unchanged.
    """
    stack: list[str] = []
    in_str = esc = False
    for ch in s:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]" and stack:
            stack.pop()
    out = s + ('"' if in_str else "")
    out = out.rstrip()
    if out.endswith(":"):
        out = re.sub(r',?\s*"[^"]*"\s*:$', "", out)
    out = out.rstrip().rstrip(",")
    return out + "".join(reversed(stack))


def _repair(s: str) -> str:
    s = _TRAILING_COMMA.sub(r"\1", s)
    s = re.sub(r"\bTrue\b", "true", s)
    s = re.sub(r"\bFalse\b", "false", s)
    s = re.sub(r"\bNone\b", "null", s)
    if "'" in s and '"' not in s:
        s = s.replace("'", '"')
    return s


class StructuredResult(BaseModel, Generic[T]):
    """A validated value or the reason there is none, with every raw reply kept."""

    value: T | None = Field(default=None, description="The validated object, or None on failure.")
    error: str | None = Field(default=None, description="Why no valid object was obtained.")
    raw: list[str | None] = Field(default_factory=list, description="Every reply, in order.")
    attempts: int = Field(default=0, description="Model calls made (cached ones included).")
    cached: bool = Field(default=False, description="All calls were served from the cache.")
    replies: list[ChatResponse] = Field(default_factory=list, exclude=True,
                                        description="The responses (for a later verdict: a caller's own check).")

    @property
    def ok(self) -> bool:
        """True when ``value`` is set."""
        return self.value is not None


def schema_of(model: type[BaseModel]) -> dict[str, Any]:
    """JSON schema of a pydantic model, inlined (no ``$ref``) for grammar-based decoding."""
    schema = model.model_json_schema()
    defs = schema.pop("$defs", {})

    def inline(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                name = node["$ref"].split("/")[-1]
                return inline(dict(defs[name]))
            return {k: inline(v) for k, v in node.items() if k != "title"}
        if isinstance(node, list):
            return [inline(x) for x in node]
        return node

    return inline(schema)  # type: ignore[no-any-return]


def parse_as(text: str | None, model: type[T]) -> T:
    """Extract JSON from ``text`` and validate it as ``model``.

    Raises:
        ValueError: no JSON, or it does not validate (message says which field).
    """
    if text is None:
        raise ValueError("no reply")
    data = extract_json(text)
    try:
        return model.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        loc = ".".join(str(x) for x in first.get("loc", ())) or "<root>"
        raise ValueError(f"{loc}: {first.get('msg')}") from e


async def acomplete_structured(
    client: ChatClientProtocol,
    request: ChatRequest,
    model: type[T],
    *,
    max_reasks: int = 2,
    use_schema: bool = True,
    role: str | None = None,
) -> StructuredResult[T]:
    """Ask until the reply validates as ``model`` (at most ``1 + max_reasks`` calls).

    The verdict — validated or not — is reported with :func:`noveval.models.calls.note_answer`
    (the first call carries it; an invalid answer's calls are never served from the cache again).

    Args:
        client: A :class:`~noveval.models.client.ChatClient`.
        request: The request; ``json_schema`` is filled in from ``model`` when unset.
        model: The pydantic model the reply must validate against.
        max_reasks: Extra attempts after an invalid reply.
        use_schema: Ask the backend for schema-constrained decoding.
        role: The role the answer plays (``judge``, ``structuring``, ...; None: the client's).
    """
    from noveval.models.calls import note_answer

    if use_schema and request.params.json_schema is None:
        request = request.model_copy(
            update={"params": request.params.model_copy(update={"json_schema": schema_of(model)})}
        )
    raw: list[str | None] = []
    replies: list[ChatResponse] = []
    messages = list(request.messages)
    error = "no attempt"
    all_cached = True
    for attempt in range(max_reasks + 1):
        req = request.model_copy(update={"messages": messages})
        resp = await client.acomplete(req)
        raw.append(resp.text)
        replies.append(resp)
        all_cached = all_cached and resp.cached
        if not resp.ok:
            return StructuredResult(error=f"model call failed: {resp.error}", raw=raw, attempts=attempt + 1, cached=False,
                                    replies=replies)
        try:
            value = parse_as(resp.text, model)
            note_answer(client, replies, usable=True, role=role)
            return StructuredResult(value=value, raw=raw, attempts=attempt + 1, cached=all_cached, replies=replies)
        except ValueError as e:
            error = str(e)
        messages = [
            *request.messages,
            {"role": "assistant", "content": resp.text or ""},
            {
                "role": "user",
                "content": f"That reply could not be used ({error}). Answer again with only a JSON "
                "value that follows the requested format exactly.",
            },
        ]
    note_answer(client, replies, usable=False, role=role)
    return StructuredResult(error=f"invalid reply after {max_reasks + 1} attempts: {error}", raw=raw,
                            attempts=max_reasks + 1, cached=all_cached, replies=replies)


async def acomplete_structured_many(
    client: ChatClientProtocol,
    requests: Sequence[ChatRequest],
    model: type[T],
    *,
    max_reasks: int = 2,
    use_schema: bool = True,
    progress: str | None = None,
    role: str | None = None,
) -> list[StructuredResult[T]]:
    """:func:`acomplete_structured` over many requests, concurrently, in order."""
    from noveval.progress import track

    out: list[StructuredResult[T] | None] = [None] * len(requests)
    with track(len(requests), progress or "", client=client) as tr:

        async def one(i: int, r: ChatRequest) -> None:
            out[i] = await acomplete_structured(client, r, model, max_reasks=max_reasks, use_schema=use_schema,
                                                role=role)
            tr.advance()

        await asyncio.gather(*(one(i, r) for i, r in enumerate(requests)))
    return [r for r in out if r is not None]


class ManyOptions(TypedDict, total=False):
    """The keyword options of :func:`acomplete_structured_many` (each optional)."""

    max_reasks: int
    use_schema: bool
    progress: str | None
    role: str | None


def complete_structured_many(
    client: ChatClientProtocol, requests: Sequence[ChatRequest], model: type[T], **options: Unpack[ManyOptions]
) -> list[StructuredResult[T]]:
    """Synchronous :func:`acomplete_structured_many` (same arguments)."""
    return run_async(acomplete_structured_many(client, requests, model, **options), client)
