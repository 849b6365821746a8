"""noveval.io.complete_rows: what a killed run or a provider left in a JSONL text."""

from __future__ import annotations

from noveval.io import complete_rows


def test_keeps_objects_and_skips_blank_torn_and_non_object_lines() -> None:
    text = '{"id": "a", "x": 1}\n\n[1, 2]\n"text"\n{"id": "b"}\r\n{"id": "c", "x": '
    assert complete_rows(text) == [{"id": "a", "x": 1}, {"id": "b"}]


def test_empty_text_has_no_rows() -> None:
    assert complete_rows("") == [] and complete_rows("\n \n") == []
