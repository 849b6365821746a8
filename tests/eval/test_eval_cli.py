"""``noveval eval`` against real HTTP servers on 127.0.0.1 (tests/fake_openai.py) scripted from the sample's gold.

Two systems (RINoBench and the pairwise task) on the shipped samples; the values are hand-computed.
"""

from __future__ import annotations

import csv
import json
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fake_openai import FakeOpenAIServer
from noveval.cli.main import app

from .scripted_models import responder


def _eval(spec: str, out: Path, *extra: str, only: str = "rinobench,novelty-pairs") -> tuple[int, str]:
    res = CliRunner().invoke(app, ["-q", "eval", "-m", spec, "--sample", "--only", only, "-o", str(out), *extra])
    return res.exit_code, res.output


def _chat_posts(server: FakeOpenAIServer) -> int:
    return sum(1 for method, path in server.http_log if method == "POST" and path.endswith("/chat/completions"))


def test_eval_ends_with_the_table_writes_its_files_and_resumes_with_no_call(tmp_path: Path) -> None:
    out = tmp_path / "ev"
    with FakeOpenAIServer(responder=responder("oracle")) as server:
        spec = f"openai-compatible/Qwen2.5-7B-Instruct@{server.base_url}"
        code, text = _eval(spec, out)
        assert code == 0, text
        posts = _chat_posts(server)
        # gold 2, 3, 4, 5 answered exactly: F1 1 for classes 2-5, 0 for the absent class 1 -> macro 4/5;
        # both pairs answered for the side of higher gold, in both orders -> accuracy 1
        table = text[text.index("eval · Qwen2.5-7B-Instruct"):]
        assert "rinobench      f1_macro ↑  0.800" in table and "novelty-pairs  accuracy ↑  1.000" in table
        assert table.rstrip().splitlines()[-1].startswith("eval folder: ")
        assert posts == 1 + 4 + 4  # endpoint check, 4 ideas, 2 pairs x 2 orders
        again, text2 = _eval(spec, out)
        assert again == 0 and _chat_posts(server) == posts  # finished runs make no model call
        assert text2[text2.index("eval · "):] == table
    doc = json.loads((out / "eval.json").read_text(encoding="utf-8"))
    assert doc["settings"] == {"model": spec, "judge": None, "protocol": "noveval", "limit": None, "data": "sample",
                               "embedder": None, "max_tokens": None, "temperature": None, "timeout": None,
                               "extra_body": None}
    rows = {r["run"]: r for r in doc["rows"]}
    assert rows["rinobench"]["mean"] == pytest.approx(0.8) and rows["rinobench"]["n"] == 4
    assert rows["novelty-pairs"]["mean"] == 1.0 and rows["novelty-pairs"]["n"] == 2
    assert {r["status"] for r in rows.values()} == {"complete"} and doc["model_id"] == spec
    assert (out / "rinobench" / "per_item.jsonl").is_file() and (out / "novelty-pairs" / "per_item.jsonl").is_file()
    with (out / "eval.csv").open(encoding="utf-8") as f:
        got = [(r["kind"], r["run"], r["metric"], float(r["value"])) for r in csv.DictReader(f)]
    assert [g for g in got if g[0] == "model"] == [("model", "rinobench", "f1_macro", pytest.approx(0.8)),
                                                   ("model", "novelty-pairs", "accuracy", 1.0)]
    kinds = {(k, run) for k, run, _, _ in got}
    assert ("yardstick", "rinobench") in kinds and ("yardstick", "novelty-pairs") in kinds  # computed from the run's gold
    assert ("published", "rinobench") in kinds  # the paper's Table 3 rows beside the model's


def test_other_settings_in_the_same_folder_exit_2_and_change_nothing(tmp_path: Path) -> None:
    out = tmp_path / "ev"
    with FakeOpenAIServer(responder=responder("constant")) as server:
        spec = f"openai-compatible/m@{server.base_url}"
        assert _eval(spec, out, only="novelty-pairs")[0] == 0
        before = (out / "eval.json").read_bytes()
        code, text = _eval(spec, out, "-n", "1", only="novelty-pairs")
    assert code == 2 and "eval.json: settings.limit: this folder holds an eval with limit None" in text
    assert (out / "eval.json").read_bytes() == before


def test_a_killed_eval_resumes_where_it_stopped(tmp_path: Path) -> None:
    """Ctrl-C while the third idea is judged: exit 130; the same command asks only what was not answered."""
    import _thread

    from .scripted_models import GOLD

    def asked(log: list[str]):  # noqa: ANN202
        answer = responder("oracle")

        def reply(prompt: str) -> object:
            if "Judge the novelty of the research idea" in prompt:
                log.append(next(o for o in GOLD if o in prompt))
                if kill and len(log) == 3:
                    _thread.interrupt_main()  # what Ctrl-C does
            return answer(prompt)

        return reply

    out = tmp_path / "ev"
    first: list[str] = []
    second: list[str] = []
    kill = True
    with FakeOpenAIServer(responder=asked(first)) as server:
        spec = f"openai-compatible/Qwen2.5-7B-Instruct@{server.base_url}"
        port = server.port
        code, text = _eval(spec, out, "-c", "1")
    assert code == 130 and "interrupted" in text, text
    killed = {r["run"]: r for r in json.loads((out / "eval.json").read_text(encoding="utf-8"))["rows"]}
    assert killed["rinobench"]["status"] == "incomplete" and "started, not finished" in killed["rinobench"]["message"]
    kill = False
    with FakeOpenAIServer(responder=asked(second), port=port):
        code, text = _eval(spec, out, "-c", "1")
    assert code == 0, text
    assert not set(first[:2]) & set(second)  # the two ideas answered before the kill are not asked again
    assert len(second) <= 2
    rows = {r["run"]: r for r in json.loads((out / "eval.json").read_text(encoding="utf-8"))["rows"]}
    assert rows["rinobench"]["mean"] == pytest.approx(0.8) and rows["novelty-pairs"]["mean"] == 1.0
    assert {r["status"] for r in rows.values()} == {"complete"}


def test_one_budget_and_one_ledger_across_the_systems(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"source": "test", "as_of": "2026-01", "models": {
        "openai-compatible/priced": {"input": 1000.0, "output": 1000.0}}}), encoding="utf-8")
    monkeypatch.setenv("NOVEVAL_PRICES", str(prices))
    with FakeOpenAIServer(responder=responder("oracle")) as server:
        spec = f"openai-compatible/priced@{server.base_url}"
        code, text = _eval(spec, tmp_path / "none", "--max-cost", "0.000001")  # the prompts alone cannot fit
        assert code == 4 and "cannot fit --max-cost" in text and not (tmp_path / "none").exists(), text
        assert _chat_posts(server) == 0  # refused up front: not even the endpoint check
        res = CliRunner().invoke(app, ["-q", "eval", "-m", spec, "--sample", "--only", "rinobench,novelty-pairs",
                                       "-o", str(tmp_path / "plan"), "--plan", "--json", "--limit", "1"])
        # a budget the prompts fit (the plan runs) but not RINoBench's first request with its 512-token cap
        floor = json.loads(res.stdout)["usd_prompts_only"]
        code, text = _eval(spec, tmp_path / "tiny", "--max-cost", str(floor * 1.02), "--limit", "1")
        assert code == 4, text
        rows = {r["run"]: r for r in json.loads((tmp_path / "tiny" / "eval.json").read_text())["rows"]}
        assert rows["rinobench"]["status"] == "budget" and rows["novelty-pairs"]["status"] == "not run"
        code, text = _eval(spec, tmp_path / "ok", "--max-cost", "100")
        assert code == 0, text
    doc = json.loads((tmp_path / "ok" / "eval.json").read_text())
    per_run = [json.loads((tmp_path / "ok" / run / "scores.json").read_text())["cost"]["this_invocation_usd"]
               for run in ("rinobench", "novelty-pairs")]
    assert all(c > 0 for c in per_run)
    assert doc["budget"]["usd"] == pytest.approx(sum(per_run)) and doc["budget"]["max_cost"] == 100
    assert "cost of this invocation: $" in text


def test_yardsticks_and_published_rows_sit_beside_the_value(tmp_path: Path) -> None:
    """scores.json's ``baselines`` and ``published`` (SCHEMA29, written by the systems) reach the table and the CSV."""
    from noveval.benchmarks._suite import csv_rows, read_eval
    from noveval.cli.eval import format_eval

    out = tmp_path / "ev"
    with FakeOpenAIServer(responder=responder("oracle")) as server:
        assert _eval(f"openai-compatible/m@{server.base_url}", out, only="rinobench")[0] == 0
    f = out / "rinobench" / "scores.json"
    scores = json.loads(f.read_text(encoding="utf-8"))
    scores["baselines"] = {"f1_macro": [
        {"name": "uniform random", "kind": "chance", "value": 0.185, "how": "exact expectation"},
        {"name": "majority class (always 3)", "kind": "trivial", "value": 0.09, "how": "exact"}]}
    on = {"dataset": "RINoBench test set", "data_file": "rinobench/test.json", "protocol": "noveval"}
    scores["published"] = [
        {"model": "GPT-5", "setting": "zero-shot", "metric": "f1_macro", "value": 0.172, "table": "Table 3", "source": "S&F",
         **on},
        {"model": "o3", "setting": "zero-shot", "metric": "mean_absolute_error", "value": 0.9, "table": "Table 3", **on}]
    f.write_text(json.dumps(scores), encoding="utf-8")
    result = read_eval(out)
    text = format_eval(result)
    assert "uniform random 0.185 · majority class (always 3) 0.090" in text
    assert "GPT-5" not in text and "rinobench: 1 row of RINoBench test set (Table 3, protocol noveval)" in text
    config = json.loads((out / "rinobench" / "config.json").read_text(encoding="utf-8"))
    (out / "rinobench" / "config.json").write_text(json.dumps({**config, "items": "/d/rinobench/test.json"}))
    text = format_eval(replace(result, settings=replace(result.settings, data="/d")))  # the real file: shown
    assert "published: GPT-5 · Table 3, RINoBench test set 0.172" in text
    assert "o3" not in text  # another metric's published row
    kinds = [(r["kind"], r["label"], r["value"]) for r in csv_rows(result.rows, label="m", model="m")]
    assert kinds[1:] == [("yardstick", "uniform random", 0.185), ("yardstick", "majority class (always 3)", 0.09),
                         ("published", "GPT-5 · zero-shot", 0.172)]
