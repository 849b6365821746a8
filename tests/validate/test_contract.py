"""validate's contract entry points reject bad options before anything runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from noveval.benchmarks.validate import run
from noveval.benchmarks.validate.data import sample_paths
from noveval.errors import InputError


def test_unknown_option_is_named(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="options.pool_sise"):
        run("none", tmp_path / "r", options={"pool_sise": 20})
    assert not (tmp_path / "r").exists()


def test_ratings_without_their_corpus_is_an_input_error(tmp_path: Path) -> None:
    # no corpus given and none in the data folder: the error names the corpus option
    with pytest.raises(InputError, match="options.corpus"):
        run("none", tmp_path / "r", data=sample_paths()[0], options={"data_dir": tmp_path})
    assert not (tmp_path / "r").exists()


def test_metric_limit_strings_and_dicts_are_the_same_option(tmp_path: Path) -> None:
    from noveval.benchmarks.validate.options import ValidateOptions

    assert ValidateOptions(metric_limit=["5", "SemNovel=3"]).metric_limit == {"*": 5, "SemNovel": 3}
    assert ValidateOptions(metric_limit={"SemNovel": 3}).metric_limit == {"SemNovel": 3}
    assert ValidateOptions(metric_limit=[]).metric_limit is None
    assert ValidateOptions(metric=["NONE"]).metric == []
    with pytest.raises(InputError, match="options.metric_limit.*NAME=N"):
        run("none", tmp_path / "r", options={"metric_limit": ["SemNovel=x"]})
