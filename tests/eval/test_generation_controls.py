"""Generation controls (issue 37 item 3): ``--max-tokens``, ``--temperature``, ``--timeout``, ``--extra-body``
on ``noveval run <system>`` and ``noveval eval``.

Each control must reach the request body a real local server receives (tests/fake_openai.py
records every chat body), be recorded in config.json / eval.json, and a bad ``--extra-body``
must exit 2 writing nothing and sending nothing.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from cli_helpers import cli, one_line_exit_2
from fake_openai import FakeOpenAIServer

from .scripted_models import responder

BODY = '{"chat_template_kwargs": {"enable_thinking": false}, "reasoning_effort": "low"}'
CONTROLS = ("--max-tokens", "77", "--temperature", "0.4", "--timeout", "33", "--extra-body", BODY)


def _values(obj: object, key: str) -> list[object]:
    """Every value of ``key`` anywhere in a JSON document."""
    if isinstance(obj, dict):
        return [v for k, v in obj.items() if k == key] + [x for v in obj.values() for x in _values(v, key)]
    if isinstance(obj, list):
        return [x for v in obj for x in _values(v, key)]
    return []


def _work(server: FakeOpenAIServer) -> list[dict]:
    """The chat bodies of the work itself (not the one-token endpoint check)."""
    return [b for b in server.bodies if b.get("max_tokens") != 1]


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NOVEVAL_CACHE_DIR", str(tmp_path / "cache"))


def test_each_control_of_a_run_reaches_the_request_body_and_config_json(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with FakeOpenAIServer(responder=responder("oracle")) as server:
        spec = f"openai-compatible/m@{server.base_url}"
        r = cli("run", "rinobench", "-m", spec, "-o", str(out), *CONTROLS)
        assert r.exit_code == 0, r.output
        work = _work(server)
        assert len(work) == 4  # the 4 sample ideas
        for b in work:
            assert (b["max_tokens"], b["temperature"]) == (77, 0.4)
            assert b["chat_template_kwargs"] == {"enable_thinking": False} and b["reasoning_effort"] == "low"
        cfg = json.loads((out / "config.json").read_text(encoding="utf-8"))
        # rinobench declares its own answer budget: --max-tokens is that field (recorded with the
        # system's options); the shared controls are laid over every call and recorded as such
        assert cfg["generation"] == {"temperature": 0.4,
                                     "extra_body": {"chat_template_kwargs": {"enable_thinking": False},
                                                    "reasoning_effort": "low"}}
        assert 77 in _values(cfg, "max_tokens")
        assert cfg["timeout_s"] == 33.0
        # the same run with other controls is another run: refused, not resumed (exit 2, nothing sent)
        sent = len(server.bodies)
        again = cli("run", "rinobench", "-m", spec, "-o", str(out), "--max-tokens", "78")
        one_line_exit_2(again, "generation")
        # another timeout changes no answer: the run resumes with no call
        same = cli("run", "rinobench", "-m", spec, "-o", str(out), *CONTROLS[:4], "--timeout", "60", *CONTROLS[6:])
        assert same.exit_code == 0, same.output
        assert len(server.bodies) == sent


def test_without_controls_each_call_keeps_its_own_budget_and_cache_key(tmp_path: Path) -> None:
    from noveval.models.cache import cache_key
    from noveval.models.chat import ChatRequest, GenerationParams

    with FakeOpenAIServer(responder=responder("oracle")) as server:
        r = cli("run", "rinobench", "-m", f"openai-compatible/m@{server.base_url}", "-o", str(tmp_path / "run"))
        assert r.exit_code == 0, r.output
        work = _work(server)
    assert {(b["max_tokens"], b["temperature"]) for b in work} == {(512, 0.0)}  # rinobench's own budget, noveval 0
    assert not any("chat_template_kwargs" in b or "reasoning_effort" in b for b in work)
    assert "generation" not in json.loads((tmp_path / "run" / "config.json").read_text(encoding="utf-8"))
    # a request without extra_body keeps the key it had before the field existed (the cache stays valid)
    req = ChatRequest(messages=[{"role": "user", "content": "hi"}], params=GenerationParams(max_tokens=9))
    old = {"model": "m", "base_url": None, "messages": req.messages,
           "params": {"temperature": 0.0, "max_tokens": 9, "seed": 0, "top_p": None, "stop": None,
                      "json_schema": None, "logprobs": False, "top_logprobs": None}}
    blob = json.dumps(old, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    assert cache_key("m", None, req) == hashlib.sha256(blob.encode()).hexdigest()
    extra = req.model_copy(update={"params": req.params.model_copy(update={"extra_body": {"x": 1}})})
    assert cache_key("m", None, extra) != cache_key("m", None, req)


@pytest.mark.parametrize("bad, needle", [("{not json", "not valid JSON"), ("[1, 2]", "JSON object"),
                                         ('{"max_tokens": 5}', "'max_tokens': set by noveval")])
@pytest.mark.parametrize("command", ["run", "eval"])
def test_a_bad_extra_body_exits_2_writing_and_sending_nothing(tmp_path: Path, command: str, bad: str,
                                                              needle: str) -> None:
    out = tmp_path / "out"
    with FakeOpenAIServer() as server:
        spec = f"openai-compatible/m@{server.base_url}"
        args = (["run", "rinobench"] if command == "run" else ["eval", "--sample", "--only", "rinobench"])
        r = cli(*args, "-m", spec, "-o", str(out), "--extra-body", bad)
        one_line_exit_2(r, "--extra-body", needle)
        assert server.bodies == [] and not out.exists()


def test_eval_passes_every_control_to_its_runs_records_them_and_names_the_paper_departure(tmp_path: Path) -> None:
    from noveval.benchmarks._suite import read_eval
    from noveval.cli.eval import format_eval

    out = tmp_path / "ev"
    args = ("eval", "--sample", "--protocol", "paper", "--only", "novelty-pairs", "-o", str(out))
    with FakeOpenAIServer(responder=responder("oracle")) as server:
        spec = f"openai-compatible/m@{server.base_url}"
        r = cli(*args, "-m", spec, *CONTROLS)
        assert r.exit_code == 0, r.output
        work = _work(server)
        assert len(work) == 4  # 2 sample pairs, each in both orders
        assert all((b["max_tokens"], b["temperature"], b["reasoning_effort"]) == (77, 0.4, "low") for b in work)
        settings = json.loads((out / "eval.json").read_text(encoding="utf-8"))["settings"]
        assert {k: settings[k] for k in ("max_tokens", "temperature", "timeout", "extra_body")} == {
            "max_tokens": 77, "temperature": 0.4, "timeout": 33.0, "extra_body": json.loads(BODY)}
        cfg = json.loads((out / "novelty-pairs" / "config.json").read_text(encoding="utf-8"))
        # novelty-pairs declares its own budget and temperature: the controls fill those fields
        assert 77 in _values(cfg, "max_tokens") and 0.4 in _values(cfg, "temperature") and cfg["timeout_s"] == 33.0
        # the pairwise paper protocol asks 32 tokens at temperature 0: both controls depart, and any extra body
        note = read_eval(out).rows[0].note or ""
        assert "--max-tokens 77 (paper protocol: 32)" in note and "--temperature 0.4 (paper protocol: 0)" in note
        assert '--extra-body {"chat_template_kwargs"' in note
        assert " ".join(note.split()) in " ".join(format_eval(read_eval(out)).split())  # under the table (wrapped)
        sent = len(server.bodies)
        refused = cli(*args, "-m", spec, *CONTROLS[:6])  # other settings: refused, nothing sent
        assert refused.exit_code == 2 and "error: " in refused.stderr and "settings.extra_body" in refused.stderr
        assert len(server.bodies) == sent


def test_a_control_equal_to_the_paper_setting_is_no_departure() -> None:
    from noveval.benchmarks import BENCHMARKS
    from noveval.benchmarks._benchmark import EvalRun
    from noveval.benchmarks._suite import EvalSettings, paper_departures

    pairs = BENCHMARKS["novelty-pairs"]
    run = EvalRun("novelty-pairs", {"protocol": "paper"})
    same = EvalSettings(model="m", judge=None, protocol="paper", limit=None, data="sample", max_tokens=32,
                        temperature=0.0, timeout=5.0)
    assert paper_departures(pairs, run, same) is None
    other = EvalSettings(model="m", judge=None, protocol="paper", limit=None, data="sample", max_tokens=16)
    assert paper_departures(pairs, run, other) == "departs from the paper protocol: --max-tokens 16 (paper protocol: 32)"


def test_controls_hold_for_the_model_under_test_not_for_a_judge() -> None:
    from noveval.benchmarks import BENCHMARKS
    from noveval.models.chat import GenerationOverrides, GenerationParams
    from noveval.options import as_options

    cls = BENCHMARKS["rinobench"].options
    assert as_options(cls, {"max_tokens": 512}).generation() == {}  # rinobench's own budget: nothing to override
    o = as_options(cls, {"max_tokens": 100, "temperature": 0.7, "extra_body": '{"top_k": 5}'})
    # rinobench redeclares max_tokens (its answer budget, read by its own calls): not laid over every call
    assert o.generation() == {"temperature": 0.7, "extra_body": {"top_k": 5}}
    assert o.client_kwargs()["generation"] == o.generation() and "generation" not in o.client_kwargs(role="judge")
    over = GenerationOverrides(max_tokens=100, extra_body={"top_k": 5})
    p = over.apply(GenerationParams(max_tokens=8, temperature=0.3, extra_body={"top_k": 1, "min_p": 0.1}))
    assert (p.max_tokens, p.temperature, p.extra_body) == (100, 0.3, {"top_k": 5, "min_p": 0.1})
