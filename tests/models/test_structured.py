"""JSON extraction and repair from model replies; schema inlining."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from noveval.models.structured import close_truncated_json, extract_json, parse_as, schema_of


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ('Here you go:\n```json\n{"a": [1, 2]}\n```\nThanks', {"a": [1, 2]}),
        ("Sure! {\"a\": 1} hope it helps", {"a": 1}),
        ('{"a": 1, "b": [1, 2,],}', {"a": 1, "b": [1, 2]}),
        ("{'a': True, 'b': None}", {"a": True, "b": None}),
        ('{\n "score": 1,\n "reason": "runs on and on', {"score": 1, "reason": "runs on and on"}),
        ('{"a": [1, {"b": "x', {"a": [1, {"b": "x"}]}),
        ('{"a": 1, "b":', {"a": 1}),
        ("[1, 2, 3]", [1, 2, 3]),
    ],
)
def test_extract_json(text: str, expected: object) -> None:
    assert extract_json(text) == expected


@pytest.mark.parametrize("text", ["", "   ", "no json here at all"])
def test_extract_json_fails_clearly(text: str) -> None:
    with pytest.raises(ValueError):
        extract_json(text)


def test_close_truncated_leaves_valid_json_alone() -> None:
    assert close_truncated_json('{"a": "x"}') == '{"a": "x"}'
    assert close_truncated_json('{"q": "say \\"hi') == '{"q": "say \\"hi"}'


def test_parse_as_names_the_field() -> None:
    class M(BaseModel):
        score: int

    assert parse_as('{"score": 3}', M).score == 3
    with pytest.raises(ValueError, match="score"):
        parse_as('{"score": "high"}', M)


def test_schema_of_inlines_refs() -> None:
    class Inner(BaseModel):
        x: int

    class Outer(BaseModel):
        items: list[Inner]

    s = schema_of(Outer)
    assert "$defs" not in s and "$ref" not in str(s)
    assert s["properties"]["items"]["items"]["properties"]["x"]["type"] == "integer"


def test_a_truncated_object_never_yields_one_of_its_inner_objects() -> None:
    # the reply hit max_tokens inside its second list entry: no value of the whole reply can be
    # recovered, and the first inner entry must not pass for the answer (it validated as an
    # empty reply of any schema whose fields have defaults)
    cut = '{"weaknesses": [{"groundedness": 4, "text": "one seed"}, {"groundedness": 2, "te'
    with pytest.raises(ValueError):
        extract_json(cut)
    # prose with a closed brace before the JSON still reads the JSON after it
    assert extract_json('Scores {see below}: {"score": 3}') == {"score": 3}
