"""validate's contract entry points reject bad options before anything runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from noveval.benchmarks.validate.contract import run
from noveval.errors import InputError


def test_unknown_option_is_named(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="options.pool_sise"):
        run("none", tmp_path / "r", options={"pool_sise": 20})
    assert not (tmp_path / "r").exists()


def test_ratings_without_their_corpus_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="options.corpus"):
        run("none", tmp_path / "r", data=tmp_path / "reviews.jsonl")
    assert not (tmp_path / "r").exists()
