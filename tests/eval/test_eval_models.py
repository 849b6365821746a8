"""``noveval eval -m a -m b``: one eval folder per model, the leaderboard of them at the end; ``noveval.eval`` and
``noveval.leaderboard`` go the command's way (issue 37, items 4 and 7).

The models are real HTTP servers on 127.0.0.1 (tests/fake_openai.py) scripted from the sample's gold:
``Qwen2.5-7B-Instruct`` answers every pair right, ``Llama-3.1-8B-Instruct`` answers "A" throughout; a dead
endpoint is the address of a server that has stopped. One cheap system: the pairwise task (2 pairs, both orders).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

import noveval
from cli_helpers import cli
from fake_openai import FakeOpenAIServer
from noveval.errors import InputError

from .scripted_models import responder


def _chat_posts(server: FakeOpenAIServer) -> int:
    return sum(1 for method, path in server.http_log if method == "POST" and path.endswith("/chat/completions"))


def test_several_models_one_folder_each_then_the_leaderboard_and_a_dead_one_reported(tmp_path: Path) -> None:
    with FakeOpenAIServer(responder=responder("oracle")) as gone:
        dead = f"openai-compatible/Dead-Model@{gone.base_url}"
    out = tmp_path / "ev"
    with (FakeOpenAIServer(responder=responder("oracle")) as qs, FakeOpenAIServer(responder=responder("constant")) as ls):
        qwen, llama = (f"openai-compatible/Qwen2.5-7B-Instruct@{qs.base_url}",
                       f"openai-compatible/Llama-3.1-8B-Instruct@{ls.base_url}")
        r = cli("eval", "-m", qwen, "-m", dead, "-m", llama, "--sample", "--only", "novelty-pairs", "-o", str(out))
        assert _chat_posts(qs) == 1 + 4 and _chat_posts(ls) == 1 + 4  # check call, 2 pairs x 2 orders each
    assert r.exit_code == 2, r.output  # the dead model failed; the others ran
    err = [line for line in r.stderr.splitlines() if line.startswith("error: ")]
    assert len(err) == 1 and dead in err[0] and "(model 2/3; the other models still run)" in err[0], r.stderr
    assert f"model failed: {dead}: " in r.stdout and f"leaderboard: {out / 'leaderboard.csv'}" in r.stdout
    folders = {p.name for p in out.iterdir() if p.is_dir()}
    assert folders == {"Qwen2.5-7B-Instruct", "Llama-3.1-8B-Instruct"}  # none for the dead model
    for name, spec, value in (("Qwen2.5-7B-Instruct", qwen, 1.0), ("Llama-3.1-8B-Instruct", llama, 0.5)):
        doc = json.loads((out / name / "eval.json").read_text(encoding="utf-8"))
        assert doc["settings"]["model"] == spec
        # oracle: the side of higher gold in both orders -> 4/4; "A" always: right in one order of each pair -> 2/4
        assert [(row["run"], row["mean"], row["status"]) for row in doc["rows"]] == [("novelty-pairs", value, "complete")]
    board = r.stdout[r.stdout.index("leaderboard · "):]
    assert board.startswith("leaderboard · 2 model(s) · 1 run(s) · baseline Qwen2.5-7B-Instruct")
    assert "Llama-3.1-8B-Instruct" in board and "Dead-Model" not in board.split("model failed")[0]
    with (out / "leaderboard.csv").open(encoding="utf-8") as f:
        cells = {(row["label"], row["run"]): row for row in csv.DictReader(f) if row["kind"] == "model"}
    assert set(cells) == {("Qwen2.5-7B-Instruct", "novelty-pairs"), ("Llama-3.1-8B-Instruct", "novelty-pairs")}
    assert float(cells[("Llama-3.1-8B-Instruct", "novelty-pairs")]["difference"]) == pytest.approx(0.5 - 1.0)
    saved = json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))
    assert saved["baseline"] == "Qwen2.5-7B-Instruct" and [m["label"] for m in saved["models"]] == [
        "Qwen2.5-7B-Instruct", "Llama-3.1-8B-Instruct"]


def test_several_models_refuse_a_single_model_eval_folder_and_a_model_given_twice(tmp_path: Path) -> None:
    spec = "openai-compatible/m@http://127.0.0.1:9/v1"  # never asked: refused before any call
    out = tmp_path / "ev"
    out.mkdir()
    (out / "eval.json").write_text("{}", encoding="utf-8")
    r = cli("eval", "-m", spec, "-m", "local", "--sample", "-o", str(out))
    assert r.exit_code == 2 and "--out: holds the eval of one model" in r.stderr, r.output
    r = cli("eval", "-m", spec, "-m", spec, "--sample", "-o", str(tmp_path / "two"))
    assert r.exit_code == 2 and f"--model: given twice: {spec}" in r.stderr and not (tmp_path / "two").exists()


def test_the_python_api_is_the_command(tmp_path: Path) -> None:
    """``noveval.eval`` writes the folder ``noveval eval`` resumes with no call; ``noveval.leaderboard`` its table."""
    with (FakeOpenAIServer(responder=responder("oracle")) as qs, FakeOpenAIServer(responder=responder("constant")) as ls):
        qwen, llama = (f"openai-compatible/Qwen2.5-7B-Instruct@{qs.base_url}",
                       f"openai-compatible/Llama-3.1-8B-Instruct@{ls.base_url}")
        a = noveval.eval(qwen, tmp_path / "a", sample=True, only=["novelty-pairs"])
        b = noveval.eval(llama, tmp_path / "b", sample=True, only=["novelty-pairs"])
        assert isinstance(a, noveval.EvalResult) and isinstance(a.rows[0], noveval.EvalRow)
        assert [(x.run, x.metric, x.mean, x.n, x.status) for x in a.rows] == [("novelty-pairs", "accuracy", 1.0, 2,
                                                                                 "complete")]
        assert [x.mean for x in b.rows] == [0.5]
        posts = _chat_posts(qs)
        again = cli("eval", "-m", qwen, "--sample", "--only", "novelty-pairs", "-o", str(tmp_path / "a"))
        assert again.exit_code == 0 and _chat_posts(qs) == posts, again.output  # the same settings: resumed, no call
        with pytest.raises(InputError, match="only"):
            noveval.eval(qwen, tmp_path / "c", sample=True, only=["no-such-system"])
        assert not (tmp_path / "c").exists()
    board = noveval.leaderboard([tmp_path / "a", tmp_path / "b"], n_resamples=1000)
    cell = board.cell("Llama-3.1-8B-Instruct", "novelty-pairs")
    assert board.baseline == "Qwen2.5-7B-Instruct" and cell is not None and cell.value == 0.5
    assert cell.difference == pytest.approx(-0.5)
    cli_board = cli("leaderboard", str(tmp_path / "a"), str(tmp_path / "b"), "--resamples", "1000", "--json")
    assert json.loads(cli_board.stdout) == board.to_dict()
