"""A scripted model for any system: valid JSON for the requested schema, echo text otherwise.

Every structured step of every system asks an OpenAI-compatible server for a JSON-schema
answer (``response_format``); :func:`instance` builds the smallest valid instance of that
schema (enums: their first value; integers: their minimum; arrays: their minimum length,
at least one item; strings: a short word), so a run of any system against
:class:`fake_openai.FakeOpenAIServer` with ``responder=schema_reply`` goes end to end in
seconds. Free-text steps get a short text that RINoBench, novelty-pairs and NovBench's stages parse
(a JSON object with the common answer fields); NovBench's generation gets its three sections. The endpoint check is answered "OK".
"""

from __future__ import annotations

import json
from typing import Any

from fake_openai import REQUEST

PROBE = "Reply with OK."


def instance(schema: dict[str, Any], defs: dict[str, Any] | None = None) -> Any:
    """The smallest valid instance of a JSON schema (the subset pydantic emits)."""
    defs = defs if defs is not None else schema.get("$defs", {})
    if "$ref" in schema:
        return instance(defs[schema["$ref"].split("/")[-1]], defs)
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            options = [s for s in schema[key] if s.get("type") != "null"] or schema[key]
            return instance(options[0], defs)
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object" or "properties" in schema:
        props = schema.get("properties", {})
        return {k: instance(v, defs) for k, v in props.items()}
    if kind == "array":
        n = max(1, int(schema.get("minItems", 1)))
        return [instance(schema.get("items", {"type": "string"}), defs) for _ in range(n)]
    if kind == "integer":
        return int(schema.get("minimum", schema.get("exclusiveMinimum", -1) + 1 if "exclusiveMinimum" in schema else 1))
    if kind == "number":
        return float(schema.get("minimum", 0.5))
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    return "novel"


FREE_TEXT = {"reasoning": "It extends prior work.", "novelty_score": 3, "more_novel": "A", "answer": "Yes",
             "rating": 2}


def schema_reply(prompt: str) -> str:
    """The responder: the endpoint check, a schema instance, or a parseable free-text answer."""
    if prompt == PROBE:
        return "OK"
    body = getattr(REQUEST, "body", None) or {}
    fmt = body.get("response_format") or {}
    schema = (fmt.get("json_schema") or {}).get("schema")
    if schema:
        return json.dumps(instance(schema))
    if "Positive Novelty Evaluations" in prompt:  # NovBench's layout: the sections its parser reads
        return "Positive Novelty Evaluations\n- It extends prior work.\n\nNeutral Novelty Evaluations\n-\n\n" \
               "Negative Novelty Evaluations\n-"
    return json.dumps(FREE_TEXT)
