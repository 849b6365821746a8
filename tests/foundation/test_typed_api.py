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

from noveval.benchmarks.rinobench.options import RINoBenchOptions, RINoBenchScoreOptions

noveval.run("rinobench", options=17)  # error: options is the system's options object or a mapping
noveval.run("rinobench", options=RINoBenchOptions(limit=2))
noveval.run("rinobench", options=None)
noveval.score("runs/x", options=17)  # error
noveval.score("runs/x", options={"judge": "local"})
noveval.score("runs/x", options=RINoBenchScoreOptions(judge="local"))
rinobench.run(options=17)  # error: a system package's run takes its own options class or a mapping
rinobench.run(options={"limit": 2})
rinobench.score("runs/x", options=RINoBenchOptions())  # error: the run's options are not the scoring options

reveal_type(noveval.eval)
ev = noveval.eval("local", "evals/x", sample=True, only=["novelty-pairs"], limit=2)
reveal_type(ev)
reveal_type(ev.rows[0].mean)
board = noveval.leaderboard(["evals/x", ev.path], baseline="local")
reveal_type(board)
reveal_type(board.cell("local", "novelty-pairs"))
noveval.eval("local", "evals/x", limit="3")  # error: limit is an int
noveval.leaderboard("evals/x", alpha="0.05")  # error: alpha is a float
'''


def test_py_typed_is_installed() -> None:
    assert files("noveval").joinpath("py.typed").is_file()


def test_public_names_are_attributes_dir_sees() -> None:
    for name in ("run", "score", "load_run", "read_scores", "Scores", "Run", "benchmarks", "eval", "leaderboard",
                 "EvalResult", "EvalRow"):
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
    assert len(notes) == 10, out
    assert "def (benchmark: str" in notes[0] and "noveval.runs.Run" in notes[0], notes[0]
    assert "def (run:" in notes[1] and "noveval.scores.Scores" in notes[1], notes[1]
    assert "RunFunction[noveval.benchmarks.rinobench.options.RINoBenchOptions]" in notes[2], notes[2]
    assert "noveval.runs.Run" in notes[3], notes[3]
    assert "noveval.scores.MetricValue | None" in notes[4], notes[4]
    assert "options: Any" not in notes[0] and "options: Any" not in notes[1], notes[:2]
    assert "options: noveval.options.RunOptions | typing.Mapping[" in notes[0], notes[0]
    assert "options: pydantic.main.BaseModel | typing.Mapping[" in notes[1], notes[1]
    # noveval.eval and noveval.leaderboard (issue 37): typed, returning the eval's and the leaderboard's tables
    assert "def (model: str =" in notes[5] and "noveval.benchmarks._suite.EvalResult" in notes[5], notes[5]
    assert "only: typing.Sequence[str] | None" in notes[5] and "limit: int | None" in notes[5]
    assert notes[6].endswith('Revealed type is "noveval.benchmarks._suite.EvalResult"'), notes[6]
    assert notes[7].endswith('Revealed type is "float | None"'), notes[7]
    assert notes[8].endswith('Revealed type is "noveval.compare.leaderboard.ModelLeaderboard"'), notes[8]
    assert notes[9].endswith('Revealed type is "noveval.compare.leaderboard.BoardCell | None"'), notes[9]
    # options=17 is refused, for run and score alike; a dict, None and an options object pass; so are a str
    # limit for eval and a str alpha for leaderboard
    lines = USER_FILE.splitlines()
    wrong = {i + 1 for i, line in enumerate(lines) if "# error" in line}
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert {int(e.split(":")[1]) for e in errors} == wrong and len(errors) == 6, out
    assert all("[arg-type]" in e for e in errors), errors
    assert sum('Argument "options" to' in e for e in errors) == 4, errors
    assert sum('"RunFunction"' in e and "RINoBenchOptions | Mapping" in e for e in errors) == 1, errors
    assert any('Argument "limit" to "eval"' in e for e in errors) and any('Argument "alpha" to "leaderboard"' in e
                                                                          for e in errors), errors
