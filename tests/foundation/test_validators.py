"""The shared input checks several readers use (:mod:`noveval.io`, :mod:`noveval.corpus`)."""

from __future__ import annotations

import pytest

from noveval.corpus import check_title_abstract
from noveval.errors import InputError
from noveval.io import canonical_names, require_unique_ids


def test_require_unique_ids_names_the_repeat_and_the_first() -> None:
    require_unique_ids("f.json", ["a", None, "b", None])  # None ids are not compared
    with pytest.raises(InputError) as e:
        require_unique_ids("f.json", ["a", "b", "c", "b"])
    assert str(e.value) == "f.json: [3].id: duplicate id 'b' (first at [1])"


def test_check_title_abstract() -> None:
    assert check_title_abstract("c.jsonl", 4, {"title": "T", "abstract": None}) == ("T", None)
    assert check_title_abstract("c.jsonl", 4, {"title": "T"}) == ("T", None)
    with pytest.raises(InputError) as e:
        check_title_abstract("c.jsonl", 4, {"title": "  "}, what="corpus paper")
    assert str(e.value) == "c.jsonl:4: title: each corpus paper needs a non-empty title"
    with pytest.raises(InputError) as e:
        check_title_abstract("c.jsonl", 7, {"title": "T", "abstract": ["x"]})
    assert str(e.value) == "c.jsonl:7: abstract: must be a string"


def test_canonical_names_keeps_the_given_order() -> None:
    assert canonical_names(["rnd", "YIN"], ["Yin", "RND"]) == ["RND", "Yin"]
    with pytest.raises(InputError, match="--task: unknown task 'x'; choose from a, b"):
        canonical_names(["x"], ["a", "b"], option="--task", what="task")
