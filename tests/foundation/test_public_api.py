"""The public API (issue 15 item 6): the README's Python example runs as written; run/score dispatch.

The example runs RINoBench on its shipped sample with the bundled model (2 items, 128
answer tokens); a second run of it makes zero model calls, and ``noveval.score`` equals
the scores the run wrote.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

import noveval
from noveval.errors import InputError

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_example() -> str:
    text = README.read_text(encoding="utf-8")
    m = re.search(r"<!-- readme-python-example -->\s*```python\n(.*?)```", text, re.S)
    assert m, "README.md lost its marked Python example"
    return m.group(1)


def _exec(code: str) -> tuple[dict, str]:
    ns: dict = {}
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(code, str(README), "exec"), ns)  # noqa: S102 - the README's own example
    return ns, buf.getvalue()


@pytest.mark.slow
@pytest.mark.integration
def test_readme_python_example_runs_and_resumes_with_zero_calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from noveval.io import read_json
    from noveval.models.calls import ledger_scope

    monkeypatch.chdir(tmp_path)
    code = readme_example()
    ns, out = _exec(code)
    folder = Path(ns["folder"])
    assert folder == Path("runs/readme-rino") and (folder / "predictions.jsonl").is_file()
    assert "rinobench" in out and "f1_macro" in out
    scores = ns["scores"]
    assert isinstance(scores, noveval.Scores) and scores.primary_metric == "f1_macro" and scores.greater_is_better
    written = read_json(folder / "scores.json")
    for name, m in written["metrics"].items():  # scores from saved outputs == the run's own
        if m.get("mean") is not None:
            assert scores.metrics[name].mean == pytest.approx(m["mean"]), name
            assert scores.metrics[name].n == m["n"]
    assert scores.metrics["f1_macro"].n == 2
    with ledger_scope() as ledger:
        again = noveval.run("rinobench", model="local", out="runs/readme-rino", options={"limit": 2, "max_tokens": 128})
    assert again.path == folder and again.complete and ledger.totals()["requests"] == 0
    table = ns["table"]
    assert set(table["metric"]) >= {"f1_macro", "mean_absolute_error"}


def test_bad_options_and_names_are_input_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"options\.max_tokens: "):
        noveval.run("rinobench", out=tmp_path / "r", options={"max_tokens": 0})
    with pytest.raises(InputError, match=r"options\.temprature: "):
        noveval.run("rinobench", out=tmp_path / "r", options={"temprature": 1.0})
    with pytest.raises(InputError, match=r"options: expected RINoBenchOptions or a dict of its fields, got int"):
        noveval.run("rinobench", out=tmp_path / "r", options=3)
    with pytest.raises(InputError, match=r"unknown benchmark 'nope'; one of novbench, rinobench"):
        noveval.run("nope", out=tmp_path / "r")
    with pytest.raises(InputError, match=r"options\.n_focal: "):  # the old Python name; the field is the flag's, focal
        noveval.run("axioms", out=tmp_path / "r", options={"n_focal": 3})
    with pytest.raises(InputError, match=r"not a run folder"):
        noveval.score(tmp_path)
    assert not (tmp_path / "r").exists()  # nothing written


def test_public_names() -> None:
    import noveval.export

    assert noveval.load_run is noveval.export.load_run
    assert {"run", "score", "load_run", "read_scores", "benchmarks"} <= set(noveval.__all__)
    with pytest.raises(AttributeError):
        noveval.nope  # noqa: B018
