"""One real run of ``noveval validate`` on the shipped sample, shared by the tests of this folder.

The bundled MiniLM embeds the texts and the bundled SmolLM2-135M judges two papers for real.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from noveval.benchmarks.validate import ValidateOptions
from noveval.benchmarks.validate.data import sample_paths

SAMPLE_OPTS = dict(pool_size=20, judge_limit=2, max_tokens=96, resamples=200, min_group=4, top_k=3)


def validate(reviews: Path, corpus: Path, out: Path, model: object = "local", **options: object) -> Path:
    """``noveval.run("validate", ...)`` on ``reviews`` with ``corpus``: the run folder."""
    from noveval.benchmarks.validate import run

    return run(model, out, data=reviews, options=ValidateOptions(corpus=corpus, **options)).path  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def sample_files() -> tuple[Path, Path]:
    """``(reviews, corpus)`` of the shipped sample."""
    return sample_paths()


@pytest.fixture(scope="session")
def sample_run(tmp_path_factory, sample_files) -> Path:
    """A finished run folder on the sample (all four metrics, both judges on two papers)."""
    out = tmp_path_factory.mktemp("validate") / "run"
    return validate(*sample_files, out, "local", **SAMPLE_OPTS)
