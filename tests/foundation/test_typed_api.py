"""The public API is visible to type checkers (issue 26): py.typed ships, mypy sees functions, not Any."""

from __future__ import annotations

import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import pytest

import noveval

USER_FILE = '''
import noveval
from noveval.benchmarks import rinobench

reveal_type(noveval.run)
reveal_type(noveval.score)
reveal_type(rinobench.run)
run = noveval.run("rinobench", "local", "runs/x", options={"limit": 2})
reveal_type(run)
reveal_type(noveval.score(run).primary)
'''


def test_py_typed_is_installed() -> None:
    assert files("noveval").joinpath("py.typed").is_file()


def test_public_names_are_attributes_dir_sees() -> None:
    for name in ("run", "score", "load_run", "read_scores", "Scores", "Run", "benchmarks"):
        assert name in dir(noveval), name
        assert name in noveval.__all__, name


@pytest.mark.slow
def test_mypy_sees_function_types_in_a_user_file(tmp_path: Path) -> None:
    user = tmp_path / "user.py"
    user.write_text(USER_FILE, encoding="utf-8")
    res = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", str(tmp_path / "c"),
                          "--python-version", "3.11", str(user)], capture_output=True, text=True, timeout=600,
                         cwd=tmp_path)
    out = res.stdout
    assert "missing library stubs or py.typed marker" not in out, out
    notes = [line for line in out.splitlines() if "Revealed type" in line]
    assert len(notes) == 5, out
    assert "def (benchmark: str" in notes[0] and "noveval.runs.Run" in notes[0], notes[0]
    assert "def (run:" in notes[1] and "noveval.scores.Scores" in notes[1], notes[1]
    assert "RunFunction" in notes[2], notes[2]
    assert "noveval.runs.Run" in notes[3], notes[3]
    assert "noveval.scores.MetricValue | None" in notes[4], notes[4]
    assert "Any" not in notes[0] or "options: Any" in notes[0]
