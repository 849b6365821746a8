"""``noveval eval --plan`` (issue 37 item 1): the numbers by hand, no model call, the plan against a real run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli_helpers import closed_port
from fake_openai import FakeOpenAIServer
from noveval.cli.main import app
from noveval.plan import (
    PlannedCall,
    Rates,
    SystemPlan,
    capped,
    plan_cost,
    plan_seconds,
    prompt_tokens,
    totals,
)

from .scripted_models import responder


def _plan(spec: str, out: Path, *extra: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(app, ["-q", "eval", "-m", spec, "--sample", "--plan", "-o", str(out), *extra])
    return res.exit_code, res.stdout, res.stderr


def _posts(server: FakeOpenAIServer) -> int:
    return sum(1 for method, path in server.http_log if method == "POST" and path.endswith("/chat/completions"))


def test_tokens_caps_dollars_and_seconds_by_hand() -> None:
    from noveval.models.costs import Price, PriceTable

    # 400 + 8 characters / 4 = 102, plus 4 per message
    assert prompt_tokens([{"role": "system", "content": "x" * 400}, {"role": "user", "content": "y" * 8}]) == 110
    assert capped({}, 512) == 512 and capped({"max_tokens": 7}, 512) == 7
    p = SystemPlan("s", items=2, calls=[PlannedCall("model", 1000, 500), PlannedCall("judge", 2000, 100, "openai/j")],
                   embed_texts=84, embed_cached=14, embedder="local:bf16@256", local_models=["a", "b"])
    prices = PriceTable({"openai/m": Price(2.0, 8.0, 2.0), "openai/j": Price(1.0, 1.0, 1.0)}, [])
    # model: 1000 x $2/M + 500 x $8/M = $0.006; judge: 2100 x $1/M = $0.0021
    assert plan_cost(p, "openai/m", prices) == (pytest.approx(0.0081), [])
    assert plan_cost(p, "openai-compatible/x@http://h/v1", prices) == (pytest.approx(0.0021),
                                                                       ["openai-compatible/x@http://h/v1"])
    assert plan_cost(p, "local", prices) == (pytest.approx(0.0021), [])  # in-process: $0, not unknown
    rates = {None: Rates(prefill=100.0, decode=10.0, per_call=1.0), "openai/j": Rates(1000.0, 100.0, 0.5)}
    # model: 10 + 50 + 1 s; judge: 2 + 1 + 0.5 s; 70 texts at 35/s (MiniLM at 256 tokens): 2 s; 2 models loaded: 10 s
    assert plan_seconds(p, rates) == pytest.approx(61 + 3.5 + 2 + 10)
    assert plan_seconds(p, rates, loads=False) == pytest.approx(66.5)
    json_answer = SystemPlan("j", calls=[PlannedCall("model", 0, 400, structured=True)])
    # a schema-constrained answer is timed at a quarter of its cap (400 / 4 tokens at 10/s), bounded by all of it
    assert plan_seconds(json_answer, {None: Rates(1.0, 10.0)}) == pytest.approx(10.0)
    assert plan_seconds(json_answer, {None: Rates(1.0, 10.0)}, at_caps=True) == pytest.approx(40.0)
    t = totals([p, SystemPlan("u", items=1, local_models=["b", "c"], estimated=False)])
    assert (t.items, len(t.calls), t.local_models, t.estimated) == (3, 2, ["a", "b", "c"], False)
    assert t.by_role() == {"model": (1, 1000, 500), "judge": (1, 2000, 100)}


def test_plan_sends_only_the_check_call_and_writes_nothing(tmp_path: Path) -> None:
    with FakeOpenAIServer(responder=responder("oracle")) as server:
        spec = f"openai-compatible/m@{server.base_url}"
        code, out, err = _plan(spec, tmp_path / "ev", "--only", "rinobench,novelty-pairs", "--max-tokens", "7")
        assert code == 0, err
        assert _posts(server) == 1  # the endpoint check, timed; no model call
        assert server.bodies[0]["max_tokens"] == 1
    assert not (tmp_path / "ev").exists()
    # the sample's 4 ideas, 2 pairs in both orders; --max-tokens 7 is each call's cap
    assert "rinobench: 4 items; 4 model calls (" in out and "≤ 28 completion)" in out
    assert "novelty-pairs: 2 items; 4 model calls (" in out
    assert "unknown price (openai-compatible/m@" in out and "latency of the endpoint's check call" in out
    doc = json.loads(_plan(spec, tmp_path / "ev", "--only", "novelty-pairs", "--json")[1])
    assert doc["runs"][0]["calls"]["model"]["calls"] == 4 and doc["runs"][0]["calls"]["model"]["max_completion_tokens"] == 128
    assert doc["endpoint_check_call"] is True and not (tmp_path / "ev").exists()


def test_plan_of_a_dead_endpoint_says_its_check_failed(tmp_path: Path) -> None:
    code, out, _ = _plan(f"openai-compatible/m@http://127.0.0.1:{closed_port()}/v1", tmp_path / "ev",
                         "--only", "novelty-pairs")
    assert code == 0 and "the endpoint's check call failed" in out and not (tmp_path / "ev").exists()


def test_a_local_plan_lists_the_models_it_loads(tmp_path: Path) -> None:
    code, out, err = _plan("local", tmp_path / "ev", "--only", "novbench", "--limit", "1")
    assert code == 0, err
    assert "novbench: 1 items; 1 model call (" in out and "≤ 1,024 completion)" in out and "$0.0000" in out
    assert "bundled SmolLM2-135M GGUF" in out and "perplexity LM (NovBench's Fluency Score" in out
    assert "plan of local (no model call):" in out and not (tmp_path / "ev").exists()


@pytest.mark.integration
@pytest.mark.slow
def test_plan_matches_the_calls_of_a_real_run(tmp_path: Path) -> None:
    """The bundled model on the sample: the plan's calls are the run's, prompt tokens within 15%, answers within caps."""
    only = ["--only", "rinobench,novelty-pairs", "--limit", "1"]
    code, out, err = _plan("local", tmp_path / "ev", *only, "--json")
    assert code == 0, err
    planned = {r["system"]: r["calls"]["model"] for r in json.loads(out)["runs"]}
    res = CliRunner().invoke(app, ["-q", "eval", "-m", "local", "--sample", "-o", str(tmp_path / "ev"), *only])
    assert res.exit_code in (0, 3), res.output
    for run, plan in planned.items():
        rows = [json.loads(line) for line in (tmp_path / "ev" / run / "transcripts.jsonl").read_text().splitlines()]
        scores = json.loads((tmp_path / "ev" / run / "scores.json").read_text())
        assert len(rows) == plan["calls"] == scores["calls"]["requests"], run
        actual = sum(r["prompt_tokens"] for r in rows)
        assert abs(actual - plan["prompt_tokens"]) <= 0.15 * actual, (run, actual, plan)
        assert sum(r["params"]["max_tokens"] for r in rows) == plan["max_completion_tokens"]
        assert sum(r["completion_tokens"] for r in rows) <= plan["max_completion_tokens"]


def test_every_system_of_the_sample_eval_is_planned(tmp_path: Path) -> None:
    """No planner fails silently ("not estimated"): each run's count of calls is the one its run makes."""
    code, out, err = _plan("local", tmp_path / "ev", "--limit", "2", "--json")
    assert code == 0, err
    runs = {r["system"]: r for r in json.loads(out)["runs"]}
    assert all(r["estimated"] for r in runs.values()), [r["notes"] for r in runs.values()]
    calls = {name: {role: c["calls"] for role, c in r["calls"].items()} for name, r in runs.items()}
    # 2 records, ideas, weaknesses; 2 papers reviewed (each point annotated twice: target, aspect);
    # 2 papers x 2 judge prompts; 2 pairs x 2 orders (the sample eval of docs/eval.md made the same)
    assert calls["novbench"] == {"model": 2} and calls["rinobench"] == {"model": 2}
    assert calls["claimcheck"] == {"model": 2} and calls["validate"] == {"judge": 4}
    assert calls["novelty-pairs"] == {"model": 4}
    assert calls["focus"]["model"] == 2 and calls["focus"]["annotator"] % 2 == 0
    assert runs["validate"]["embed_texts"] > 0 and runs["novbench"]["embed_texts"] > 0


@pytest.mark.realdata
@pytest.mark.slow
def test_the_real_data_plan_counts_the_calls_of_a_limit_3_eval(tmp_path: Path, data_dir: Path) -> None:
    """The calls a real-data ``--limit 3`` eval made (docs/eval.md): NovBench 3, focus's chain 3 x 3 steps and
    3 reviews, validate 3 papers x 2 judge prompts after embedding its --limit sample of candidates, 3 pairs x 2."""
    res = CliRunner().invoke(app, ["-q", "eval", "-m", "local", "--data-dir", str(data_dir), "--limit", "3",
                                   "--plan", "--json", "-o", str(tmp_path / "ev")])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    runs = {r["system"]: r for r in doc["runs"]}
    assert all(r["estimated"] for r in runs.values()), [r["notes"] for r in runs.values()]
    calls = {name: {role: c["calls"] for role, c in r["calls"].items()} for name, r in runs.items()}
    if "novbench" in runs:
        assert calls["novbench"] == {"model": 3}
        assert any("perplexity LM" in m for m in runs["novbench"]["local_models"])
    if "focus" in runs:  # the paper protocol: the meta-review chain
        assert calls["focus"]["expert chain"] == 9 and calls["focus"]["model"] == 3
    if "validate" in runs:
        # the candidates --limit samples (1,500 when measured) and the 3 papers, not the ~95k prior corpus
        assert calls["validate"] == {"judge": 6} and 3 < runs["validate"]["embed_texts"] <= 10_000
    if "novelty-pairs" in runs:
        assert calls["novelty-pairs"] == {"model": 6}
    assert not (tmp_path / "ev").exists()
