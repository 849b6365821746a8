"""One real run of ``noveval validate`` on the shipped sample, shared by the tests of this folder.

The bundled MiniLM embeds the texts and the bundled SmolLM2-135M judges two papers for real.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from noveval.benchmarks.validate import ValidateOptions
from noveval.benchmarks.validate.data import sample_paths

SAMPLE_OPTS = dict(pool_size=20, judge_limit=2, max_tokens=96, resamples=200, min_group=4, top_k=3,
                   fasttext_bucket=20_000)  # as the demo: each FastTextLOF fit sets up 20k, not 2M, hash vectors


def validate(reviews: Path, corpus: Path, out: Path, model: object = "local", **options: object) -> Path:
    """``noveval.run("validate", ...)`` on ``reviews`` with ``corpus``: the run folder."""
    from noveval.benchmarks.validate import run

    return run(model, out, data=reviews, options=ValidateOptions(corpus=corpus, **options)).path  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def sample_files() -> tuple[Path, Path]:
    """``(reviews, corpus)`` of the shipped sample."""
    return sample_paths()


@pytest.fixture(scope="session")
def sample_run(tmp_path_factory, sample_files, worker_id: str) -> Path:
    """A finished run folder on the sample (all four metrics, both judges on two papers).

    Under pytest-xdist every worker has its own session: the first to get here makes the
    run in the folder the workers share, the others wait for it and read it (tests only read it).
    """
    if worker_id == "master":
        return validate(*sample_files, tmp_path_factory.mktemp("validate") / "run", "local", **SAMPLE_OPTS)
    import fcntl

    shared = tmp_path_factory.getbasetemp().parent / "validate-sample"
    shared.mkdir(exist_ok=True)
    out, done = shared / "run", shared / "done"
    with open(shared / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            validate(*sample_files, out, "local", **SAMPLE_OPTS)
            done.touch()
    return out
