"""One real run of ``noveval validate`` on the shipped sample, shared by the tests of this folder.

The bundled MiniLM embeds the texts and the bundled SmolLM2-135M judges two papers for real.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from noveval.benchmarks.validate import ValidateOptions
from noveval.benchmarks.validate.data import sample_paths

SAMPLE_OPTS = dict(pool_size=20, judge_limit=2, max_tokens=96, n_resamples=200, min_group=4, top_k=3)


@pytest.fixture(scope="session")
def sample_files() -> tuple[Path, Path]:
    """``(reviews, corpus)`` of the shipped sample."""
    return sample_paths()


@pytest.fixture(scope="session")
def sample_run(tmp_path_factory, sample_files) -> Path:
    """A finished run folder on the sample (all four metrics, both judges on two papers)."""
    from noveval.benchmarks.validate import run

    out = tmp_path_factory.mktemp("validate") / "run"
    reviews, corpus = sample_files
    return run(reviews, corpus, out=out, model="local", options=ValidateOptions(**SAMPLE_OPTS), progress=False)
