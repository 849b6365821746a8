"""``noveval export`` and ``noveval.export.load_run``: real run folders in, tables out.

The run folders are made by real commands: a chat run against the local HTTP server
(tests/fake_openai.py) scored by exact match, and a RINoBench run scored from a
predictions file against the shipped gold samples (no model call). Every value read back
is compared with the run's own per_item.jsonl / scores.json.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from fake_openai import FakeOpenAIServer
from noveval.cli.main import app
from noveval.errors import InputError
from noveval.export import RunResults, load_run, scores_path

GOLD = Path(__file__).resolve().parents[2] / "src" / "noveval" / "samples" / "rinobench" / "test.json"


def _cli(tmp_path: Path, *args: str):
    return CliRunner(env={"NOVEVAL_CACHE_DIR": str(tmp_path / "cache")}).invoke(app, ["-q", *args])


def _rows(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("export")
    prompts = tmp / "prompts.jsonl"
    rows = [{"id": f"q{i}", "prompt": f"question {i}", "reference": "echo: question 0" if i == 0 else "no"}
            for i in range(3)]
    prompts.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with FakeOpenAIServer() as server:
        r = _cli(tmp, "run", "chat", "-i", str(prompts), "-o", str(tmp / "chat"), "-m",
                 f"openai-compatible/m@{server.base_url}")
        assert r.exit_code == 0, r.output
    assert _cli(tmp, "score", "chat", "-i", str(prompts), "-r", str(tmp / "chat")).exit_code == 0
    gold = json.loads(GOLD.read_text())
    preds = tmp / "preds.json"
    preds.write_text(json.dumps([{"reasoning": f"r{i}", "novelty_score": 1 + (i % 5)} for i in range(len(gold))]))
    r = _cli(tmp, "score", "rinobench", "-p", str(preds), "-g", str(GOLD), "-o", str(tmp / "rino"))
    assert r.exit_code == 0, r.output
    return tmp / "chat", tmp / "rino"


def test_csv_has_one_row_per_item_and_a_scores_file(tmp_path: Path, runs: tuple[Path, Path]) -> None:
    chat, rino = runs
    r = _cli(tmp_path, "export", str(chat), str(rino), "-o", str(tmp_path / "out.csv"))
    assert r.exit_code == 0, r.output
    items = pd.read_csv(tmp_path / "out.csv")
    scores = pd.read_csv(tmp_path / "out.scores.csv")
    assert "7 rows" in r.stdout and str(tmp_path / "out.scores.csv") in r.stdout
    assert list(items.columns[:6]) == ["run", "system", "task", "model", "label", "item_id"]
    assert len(items) == 3 + len(_rows(rino / "per_item.jsonl"))
    c = items[items.system == "chat"].set_index("item_id")
    assert c.loc["q0", "exact_match"] == 1.0 and c.loc["q1", "exact_match"] == 0.0
    assert c["model"].iloc[0].startswith("openai-compatible/m@http://127.0.0.1:")
    rn = items[items.system == "rinobench"]
    per_item = _rows(rino / "per_item.jsonl")
    assert rn["absolute_error"].tolist() == [row["absolute_error"] for row in per_item]
    assert rn["item_id"].astype(str).tolist() == [row["id"] for row in per_item]
    assert rn["exact_match"].isna().all() and c["absolute_error"].isna().all()  # each system its own columns
    rs = json.loads((rino / "scores.json").read_text())
    got = scores[scores.system == "rinobench"].set_index("metric")
    assert set(got.index) == set(rs["metrics"])
    for name, m in rs["metrics"].items():
        assert got.loc[name, "mean"] == pytest.approx(m["mean"]) and got.loc[name, "n"] == m["n"]
    assert got.loc["f1_macro", "primary"] and not got.loc["mean_absolute_error", "primary"]
    assert bool(got["complete"].all()) and (got["cost_usd"] == 0).all()  # no model call: $0, known


@pytest.mark.parametrize("suffix", [".parquet", ".jsonl"])
def test_parquet_and_jsonl_hold_the_same_tables(tmp_path: Path, runs: tuple[Path, Path], suffix: str) -> None:
    assert _cli(tmp_path, "export", *map(str, runs), "-o", str(tmp_path / "a.csv")).exit_code == 0
    r = _cli(tmp_path, "export", *map(str, runs), "-o", str(tmp_path / f"a{suffix}"))
    assert r.exit_code == 0, r.output
    read = pd.read_parquet if suffix == ".parquet" else (lambda p: pd.read_json(p, lines=True))
    for name in ("a", "a.scores"):
        ref = pd.read_csv(tmp_path / f"{name}.csv")
        got = read(tmp_path / f"{name}{suffix}")
        assert list(got.columns) == list(ref.columns) and len(got) == len(ref)
        for col in ("mean", "exact_match", "absolute_error"):
            if col in ref:
                assert got[col].tolist() == pytest.approx(ref[col].tolist(), nan_ok=True)


def test_load_run_returns_two_frames(runs: tuple[Path, Path]) -> None:
    chat, _ = runs
    res = load_run(chat)
    assert isinstance(res, RunResults) and res.system == "chat" and res.complete is True
    assert isinstance(res.items, pd.DataFrame) and isinstance(res.scores, pd.DataFrame)
    assert res.items["item_id"].tolist() == ["q0", "q1", "q2"]
    assert res.scores.set_index("metric").loc["exact_match", "mean"] == pytest.approx(1 / 3)
    # 3 requests of 2 words + the check call of 3 words, 2 completion tokens each; no price: unknown
    assert res.cost_usd is None and res.raw_scores["cost"]["models"][res.model]["prompt_tokens"] == 9


def test_a_run_without_per_item_rows_lists_its_predictions(tmp_path: Path) -> None:
    prompts = tmp_path / "p.jsonl"
    prompts.write_text(json.dumps({"id": "a", "prompt": "hello there"}) + "\n")
    with FakeOpenAIServer() as server:
        r = _cli(tmp_path, "run", "chat", "-i", str(prompts), "-o", str(tmp_path / "r"), "-m",
                 f"openai-compatible/m@{server.base_url}")
        assert r.exit_code == 0
    res = load_run(tmp_path / "r")
    assert res.items["item_id"].tolist() == ["a"] and res.items["output"].tolist() == ["echo: hello there"]
    assert res.items["tokens.prompt"].tolist() == [2] and len(res.scores) == 0


def test_bad_inputs_are_one_line(tmp_path: Path, runs: tuple[Path, Path]) -> None:
    with pytest.raises(InputError, match="not a run folder"):
        load_run(tmp_path)
    r = _cli(tmp_path, "export", str(runs[0]), "-o", str(tmp_path / "x.xlsx"))
    assert r.exit_code == 2 and "unknown file type .xlsx" in r.stderr
    r = _cli(tmp_path, "export", str(tmp_path / "missing"), "-o", str(tmp_path / "x.csv"))
    assert r.exit_code == 2 and "no such run folder" in r.stderr
    assert scores_path("a/b.parquet") == Path("a/b.scores.parquet")
