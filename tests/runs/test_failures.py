"""A run whose model calls failed is not a result: endpoint checks, counting, exit codes.

Every endpoint here is a real HTTP server on 127.0.0.1 (tests/fake_openai.py) or a real
closed port; the CLI runs in-process (CliRunner) so each test takes a second or two.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli_helpers import closed_port
from fake_openai import FakeOpenAIServer
from noveval.cli.main import app
from noveval.models.openai_compat import PROBE_PROMPT


def _prompts(tmp_path: Path, n: int = 3) -> Path:
    p = tmp_path / "prompts.jsonl"
    p.write_text("".join(json.dumps({"id": f"q{i}", "prompt": f"question {i}"}) + "\n" for i in range(n)))
    return p


def _cli(*args: str, env: dict[str, str] | None = None):
    return CliRunner(env=env).invoke(app, ["-q", *args])


def _rows(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()] if path.exists() else []


@pytest.fixture(autouse=True)
def _fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI's default backoff (0.5 s base, 5 retries) made small: same logic, less waiting."""
    from noveval.models.client import RetryPolicy

    monkeypatch.setitem(RetryPolicy.__init__.__kwdefaults__, "base_s", 0.01)
    monkeypatch.setitem(RetryPolicy.__init__.__kwdefaults__, "cap_s", 0.02)


# -- the endpoint check: one line, exit 2, nothing recorded -------------------------------


def test_unreachable_endpoint_stops_before_the_first_item(tmp_path: Path) -> None:
    port = closed_port()
    spec = f"openai-compatible/foo@http://127.0.0.1:{port}/v1"
    r = _cli("run", "chat", "-i", str(_prompts(tmp_path)), "-o", str(tmp_path / "r"), "-m", spec)
    assert r.exit_code == 2
    assert r.stderr.strip().splitlines() == [
        f"error: model {spec}: unreachable: connection refused (checked with one short call before the first item)"
    ]
    assert "Traceback" not in r.output
    assert _rows(tmp_path / "r" / "predictions.jsonl") == []  # no item recorded as failed


def test_rinobench_against_an_unreachable_endpoint_exits_2_with_one_line(tmp_path: Path) -> None:
    """The command of issue 20, verbatim but for the port: it used to exit 0 with macro-F1 0.0."""
    spec = f"openai-compatible/foo@http://127.0.0.1:{closed_port()}/v1"
    r = _cli("run", "rinobench", "-o", str(tmp_path / "x"), "-m", spec, "--limit", "2")
    assert r.exit_code == 2
    assert len(r.stderr.strip().splitlines()) == 1 and "unreachable: connection refused" in r.stderr
    assert r.stdout == "" and not (tmp_path / "x" / "scores.json").exists()
    assert _rows(tmp_path / "x" / "predictions.jsonl") == []


@pytest.mark.parametrize(
    ("server_kw", "env_key", "cause"),
    [
        ({"api_key": "right"}, "wrong", "API key refused: HTTP 401"),
        ({"forbidden": True}, None, "API key refused: HTTP 403"),
        ({"models": {"other"}}, None, "model not found: HTTP 404: no model 'fake'"),
    ],
    ids=["401", "403", "404-model"],
)
def test_key_and_model_errors_stop_with_the_cause(tmp_path: Path, server_kw: dict, env_key: str | None, cause: str) -> None:
    env = {"NOVEVAL_API_KEY": env_key} if env_key else None
    with FakeOpenAIServer(**server_kw) as server:
        spec = f"openai-compatible/fake@{server.base_url}"
        r = _cli("run", "chat", "-i", str(_prompts(tmp_path)), "-o", str(tmp_path / "r"), "-m", spec, env=env)
        assert server.total == 0 or set(server.counts) == {PROBE_PROMPT}
    assert r.exit_code == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: model {spec}: {cause}"), lines
    assert "wrong" not in r.output  # the key itself is never printed
    assert _rows(tmp_path / "r" / "predictions.jsonl") == []


def test_a_server_that_does_not_answer_in_time_stops_the_run(tmp_path: Path) -> None:
    with FakeOpenAIServer(delay_s=3.0) as server:
        spec = f"openai-compatible/fake@{server.base_url}"
        r = _cli("run", "chat", "-i", str(_prompts(tmp_path)), "-o", str(tmp_path / "r"), "-m", spec, "--timeout", "0.5")
    assert r.exit_code == 2
    assert "timed out: no reply within 0.5 s" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_the_judge_is_checked_before_the_first_item(tmp_path: Path) -> None:
    """A dead judge stops the run before the model judges anything (not after generation)."""
    dead = f"openai-compatible/judge@http://127.0.0.1:{closed_port()}/v1"
    with FakeOpenAIServer(responder=lambda p: {"reasoning": "fine", "novelty_score": 3}) as server:
        spec = f"openai-compatible/m@{server.base_url}"
        r = _cli("run", "rinobench", "-o", str(tmp_path / "x"), "-m", spec, "-j", dead, "--limit", "2")
        assert dict(server.counts) == {PROBE_PROMPT: 1}  # the model was checked, no item was sent
    assert r.exit_code == 2 and f"error: model {dead}: unreachable" in r.stderr


def test_an_unreachable_embedder_is_an_endpoint_error() -> None:
    from noveval.models.calls import EndpointError, ledger_scope
    from noveval.models.embed import get_embedder

    spec = f"openai-compatible/e@http://127.0.0.1:{closed_port()}/v1"
    with ledger_scope(), pytest.raises(EndpointError) as e:
        get_embedder(spec, cache=False).encode(["a text"])
    assert e.value.role == "embedder" and e.value.kind == "unreachable" and not e.value.midrun
    assert str(e.value).startswith(f"embedder {spec}: unreachable: connection refused")


def test_a_fully_cached_rerun_makes_no_call_not_even_a_check(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        spec = f"openai-compatible/fake@{server.base_url}"
        args = ("run", "chat", "-i", str(_prompts(tmp_path)), "-o", str(tmp_path / "r"), "-m", spec)
        assert _cli(*args).exit_code == 0
        assert server.total == 4 and server.counts[PROBE_PROMPT] == 1  # one check + 3 items
        r = _cli(*args)
        assert r.exit_code == 0 and server.total == 4
    assert r.stdout.startswith("chat · model openai-compatible/fake@")
    assert "items: 3 (0 answered unparseably, 0 failed)" in r.stdout and "model calls: 0, none failed" in r.stdout


# -- failures during a run: counted, incomplete, exit 3 -------------------------------------


def _rino_responder(prompt: str) -> dict:
    return {"reasoning": "Compared with the related works the idea is incremental.", "novelty_score": 3}


def test_calls_that_fail_for_good_make_the_run_incomplete(tmp_path: Path) -> None:
    """One item's calls always get HTTP 500: counted, named, complete=false, exit 3 (0 when allowed)."""

    def action(prompt: str) -> str | None:
        return "500" if "warmup" in prompt.lower() else None  # the first shipped sample idea

    with FakeOpenAIServer(responder=_rino_responder, action_for=action) as server:
        spec = f"openai-compatible/m@{server.base_url}"
        out = tmp_path / "x"
        r = _cli("run", "rinobench", "-o", str(out), "-m", spec, "--limit", "2")
        assert r.exit_code == 3, r.output
        scores = json.loads((out / "scores.json").read_text())
        assert scores["complete"] is False
        assert scores["calls"]["requests"] == 2 and scores["calls"]["failed"] == 1
        assert "HTTP 500" in scores["calls"]["first_error"] and "6 attempts" in scores["calls"]["first_error"]
        assert "model calls: 1 of 2 failed (first: openai-compatible/m@" in r.stdout
        assert "INCOMPLETE" in r.stdout and f"run folder: {out.resolve()}" in r.stdout
        assert json.loads((out / "calls.json").read_text())["unresolved"]  # kept for the next invocation

        # --allow-failures: exit 0, still marked incomplete
        r = _cli("run", "rinobench", "-o", str(out), "-m", spec, "--limit", "2", "--allow-failures")
        assert r.exit_code == 0 and json.loads((out / "scores.json").read_text())["complete"] is False

        # the server recovers: a re-run redoes only the failed item and the run is complete
        server.action_for = None
        before = dict(server.counts)
        r = _cli("run", "rinobench", "-o", str(out), "-m", spec, "--limit", "2")
        assert r.exit_code == 0, r.output
        new = {k: v - before.get(k, 0) for k, v in server.counts.items() if v - before.get(k, 0)}
        assert sum(new.values()) == 2 and new.get(PROBE_PROMPT) == 1  # one check + the failed item
    scores = json.loads((out / "scores.json").read_text())
    assert scores["complete"] is True and scores["calls"]["failed"] == 0
    assert json.loads((out / "calls.json").read_text())["unresolved"] == {}


def test_an_unparseable_reply_is_an_answer_not_a_failure(tmp_path: Path) -> None:
    """Every answer unparseable: not a failed call; accepted as the model's answers when asked to
    (without --allow-unparseable more than half unusable means exit 3: the tests below)."""
    with FakeOpenAIServer(responder=lambda p: "I would rather not say.") as server:
        spec = f"openai-compatible/m@{server.base_url}"
        r = _cli("run", "rinobench", "-o", str(tmp_path / "x"), "-m", spec, "--limit", "2", "--free-text",
                 "--allow-unparseable")
    assert r.exit_code == 0, r.output
    assert "items: 2 (2 answered unparseably, 0 failed)" in r.stdout
    assert "model calls: 2, none failed" in r.stdout
    assert json.loads((tmp_path / "x" / "scores.json").read_text())["complete"] is True


def test_a_server_that_dies_midway_stops_the_run_and_a_rerun_finishes_it(tmp_path: Path) -> None:
    prompts = _prompts(tmp_path, 6)
    out = tmp_path / "r"

    def action(prompt: str) -> str | None:
        return "die" if prompt == "question 3" else None

    with FakeOpenAIServer(action_for=action) as server:
        spec = f"openai-compatible/fake@{server.base_url}"
        r = _cli("run", "chat", "-i", str(prompts), "-o", str(out), "-m", spec, "-c", "1")
        port = server.port
    assert r.exit_code == 3, r.output
    assert "stopped working during the run" in r.stderr and "run the same command again to resume" in r.stderr
    rows = {x["id"]: x for x in _rows(out / "predictions.jsonl")}
    assert [i for i in ("q0", "q1", "q2") if rows.get(i, {}).get("output")] == ["q0", "q1", "q2"]
    assert rows["q3"]["error"] and "q4" not in rows and "q5" not in rows  # stopped, not 3 more failures
    assert json.loads((out / "calls.json").read_text())["last"]["complete"] is False

    with FakeOpenAIServer(port=port) as server:  # the server is back on the same address
        r = _cli("run", "chat", "-i", str(prompts), "-o", str(out), "-m", spec, "-c", "1")
        assert sorted(server.counts) == sorted([PROBE_PROMPT, "question 3", "question 4", "question 5"])
    assert r.exit_code == 0, r.output
    assert all(x["output"] for x in _rows(out / "predictions.jsonl"))
    assert json.loads((out / "calls.json").read_text())["unresolved"] == {}


# -- backend classification -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("server_kw", "kind"),
    [({"api_key": "k"}, "auth"), ({"forbidden": True}, "auth"), ({"models": {"x"}}, "not_found")],
)
def test_backend_classifies_endpoint_errors(server_kw: dict, kind: str) -> None:
    from noveval.models import ChatRequest, GenerationParams, RetryPolicy, get_client

    with FakeOpenAIServer(**server_kw) as server:
        c = get_client(f"openai-compatible/fake@{server.base_url}", cache=None, retry=RetryPolicy(max_retries=2, base_s=0.01))
        resp = c.complete_many([ChatRequest(messages=[{"role": "user", "content": "hi"}], params=GenerationParams(max_tokens=4))])[0]
        assert len(server.auth_headers) == 1  # every POST, faults included: permanent, not retried
    assert not resp.ok and resp.error_kind == kind


def test_backend_classifies_refused_connections() -> None:
    from noveval.models import RetryPolicy, get_client

    c = get_client(f"openai-compatible/fake@http://127.0.0.1:{closed_port()}/v1", cache=None,
                   retry=RetryPolicy(max_retries=1, base_s=0.01))
    resp = c.complete("hi", max_tokens=2)
    assert resp.error_kind == "unreachable" and resp.error.startswith("connection refused")


def test_one_check_per_endpoint_not_per_client() -> None:
    """Pipelines that make a new client per step (axioms' paraphraser) check the endpoint once."""
    from noveval.models import RetryPolicy, get_client
    from noveval.models.calls import ledger_scope

    with FakeOpenAIServer() as server, ledger_scope() as ledger:
        spec = f"openai-compatible/fake@{server.base_url}"
        for i in range(3):
            c = get_client(spec, cache=None, retry=RetryPolicy(max_retries=0))
            assert c.complete(f"q{i}", max_tokens=2).ok
        assert server.counts[PROBE_PROMPT] == 1 and server.total == 4
        assert ledger.totals()["requests"] == 3 and ledger.totals()["failed"] == 0


# -- empty or unusable answers (issue 27 item 2) ----------------------------------------------


def _empty(prompt: str) -> str:
    return "OK" if prompt == PROBE_PROMPT else ""  # passes its check, then answers nothing


@pytest.mark.parametrize("name", ["rinobench", "chat", "novelty-pairs"])
def test_an_endpoint_answering_empty_content_is_not_a_result(name: str, tmp_path: Path) -> None:
    extra = ["-i", str(_prompts(tmp_path))] if name == "chat" else []
    with FakeOpenAIServer(responder=_empty) as server:
        spec = f"openai-compatible/empty@{server.base_url}"
        r = _cli("run", name, *extra, "-o", str(tmp_path / "r"), "-m", spec, "-n", "2")
        assert r.exit_code == 3, r.output
        err = [line for line in r.stderr.splitlines() if line.startswith("error:")]
        assert len(err) == 1 and f"model {spec}: " in err[0] and "answers empty or unparseable (100%; first: '')" in err[0]
        assert "run the same command on the same folder again" in err[0] and "--refresh" in err[0]
        assert "UNUSABLE ANSWERS" in r.stdout and "INCOMPLETE" in r.stdout
        calls = json.loads((tmp_path / "r" / "calls.json").read_text())["last"]
        u = calls["unusable"]["model"]
        assert calls["complete"] is False and u["model"] == spec and u["unusable"] == u["answers"]
        asked = server.total
        ok = _cli("run", name, *extra, "-o", str(tmp_path / "r"), "-m", spec, "-n", "2", "--allow-unparseable")
        assert ok.exit_code == 0, ok.output  # asked again (an unusable answer is never final), then accepted
        assert server.total - asked == u["answers"] + 1  # the endpoint check and every unusable answer
        assert "accepted with --allow-unparseable" in ok.stdout


def test_a_few_unparseable_answers_stay_a_result(tmp_path: Path) -> None:
    """Below the threshold the unparseable rate is the model's: reported, exit 0."""
    answers = iter(["", "yes", "yes", "yes"])
    with FakeOpenAIServer(responder=lambda p: "OK" if p == PROBE_PROMPT else next(answers)) as server:
        spec = f"openai-compatible/some@{server.base_url}"
        r = _cli("run", "chat", "-i", str(_prompts(tmp_path, 4)), "-o", str(tmp_path / "r"), "-m", spec, "-c", "1")
        assert r.exit_code == 0, r.output
        assert json.loads((tmp_path / "r" / "calls.json").read_text())["last"]["unusable"] is None


# -- nothing left behind (issue 27 item 4) ------------------------------------------------------


def test_a_run_that_stops_before_its_first_item_leaves_nothing_and_the_fixed_command_works(tmp_path: Path) -> None:
    """A dead endpoint, a budget of 0 and bad input each leave no folder; an existing folder stays as it was."""
    out = tmp_path / "r"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    r = _cli("run", "rinobench", "-o", str(out), "-m", f"openai-compatible/m@http://127.0.0.1:{port}/v1", "-n", "2")
    assert r.exit_code == 2 and not out.exists(), r.output
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"source": "t", "as_of": "2026-01", "models": {"openai-compatible/m": {"input": 1, "output": 1}}}))
    with FakeOpenAIServer() as server:
        spec = f"openai-compatible/m@{server.base_url}"
        r = _cli("run", "rinobench", "-o", str(out), "-m", spec, "-n", "2", "--max-cost", "0",
                 env={"NOVEVAL_PRICES": str(prices)})
        assert r.exit_code == 4 and not out.exists(), r.output  # nothing affordable: nothing written
        r = _cli("run", "rinobench", "-o", str(out), "-m", spec, "-n", "2", "--free-text", "--allow-unparseable")
        assert r.exit_code == 0 and (out / "predictions.jsonl").is_file(), r.output  # the fixed command works
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    bad = tmp_path / "bad.json"
    bad.write_text("[1]")
    r = _cli("run", "rinobench", "-o", str(out), "-i", str(bad), "-n", "2")
    assert r.exit_code == 2
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before  # the folder as it was
