"""Every chat request a run makes for an item is kept in ``transcripts.jsonl`` (issue 37 item 8).

Real runs of RINoBench on its shipped sample against a real OpenAI-compatible server on 127.0.0.1
(tests/fake_openai.py) that records the body of every request it answers: the transcript rows must
be exactly the requests the server saw (messages and parameters), attributed to the right item,
with no trace of the API key; a resumed, retried or refreshed run replaces an item's rows instead
of adding to them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fake_openai import REQUEST, FakeOpenAIServer
from noveval.cli.main import app
from noveval.models.calls import TRANSCRIPTS_FILE, transcript_row
from noveval.models.chat import ChatRequest, ChatResponse, GenerationParams
from schema_reply import PROBE, schema_reply

MARKER = "sk-transcript-secret-7f3a9c"


def _rows(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / TRANSCRIPTS_FILE).read_text(encoding="utf-8").splitlines()]


def _run(*args: str) -> Any:
    return CliRunner().invoke(app, ["-q", "run", "rinobench", *args])


@pytest.fixture
def keyed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A marker API key (the server demands it) and a cache of the test's own."""
    monkeypatch.setenv("NOVEVAL_API_KEY", MARKER)
    monkeypatch.setenv("NOVEVAL_CACHE_DIR", str(tmp_path / "cache"))


def test_a_run_records_what_was_sent_for_each_item_and_no_secret(tmp_path: Path, keyed: None) -> None:
    bodies: list[dict[str, Any]] = []

    def responder(prompt: str) -> str:
        if prompt != PROBE:
            bodies.append(dict(REQUEST.body))
        return schema_reply(prompt)

    out = tmp_path / "run"
    with FakeOpenAIServer(responder=responder, api_key=MARKER) as server:
        model, judge = (f"openai-compatible/{n}@{server.base_url}" for n in ("good", "judge"))
        r = _run("-n", "2", "-m", model, "-j", judge, "-o", str(out))
    assert r.exit_code == 0, r.output
    rows = _rows(out)
    fresh = [x for x in rows if not x["cached"]]
    assert len(fresh) == len(bodies) > 4  # every request the server answered, once
    hits = [x for x in rows if x["cached"]]  # a request asked again (the same judge question for two items)
    assert {x["key"] for x in hits} <= {x["key"] for x in fresh}
    preds = [x for x in rows if x["stage"] == "predictions"]
    assert sorted(x["item"] for x in preds) == ["0", "1"] and {x["model"] for x in preds} == {model}
    assert {x["item"] for x in rows if x["stage"] == "judgments"} == {"0", "1"}
    for x in rows:
        sent = [b for b in bodies if b["messages"] == x["messages"] and b["model"] == x["model"].split("/")[1].split("@")[0]]
        assert sent, f"transcript row of item {x['item']} matches no request the server received"
        assert x["params"]["max_tokens"] == sent[0]["max_tokens"] and x["params"]["temperature"] == sent[0]["temperature"]
        assert x["error"] is None and x["reply"] and x["prompt_tokens"] > 0
    for x in preds:  # the model's prompt for item k holds item k's idea, and the row says which item
        assert x["tag"] == f"rinobench:{x['item']}" and x["messages"][0]["role"] == "system"
        assert "Judge the novelty of the research idea below." in x["messages"][-1]["content"]
    assert preds[0]["messages"][-1]["content"] != preds[1]["messages"][-1]["content"]
    answers = json.loads((out / "calls.json").read_text())["answers"]  # the report joins verdicts by key
    assert {x["key"] for x in preds} <= set(answers["model"][model]["keys"])
    for f in out.iterdir():
        assert MARKER not in f.read_text(encoding="utf-8", errors="replace"), f.name


def test_a_resumed_retried_or_refreshed_run_replaces_an_items_rows(tmp_path: Path, keyed: None) -> None:
    out = tmp_path / "run"
    with FakeOpenAIServer(responder=schema_reply, api_key=MARKER) as server:
        args = ["-n", "2", "-m", f"openai-compatible/good@{server.base_url}", "-o", str(out)]
        assert _run(*args).exit_code == 0
        first = (out / TRANSCRIPTS_FILE).read_text(encoding="utf-8")
        assert sorted(x["item"] for x in _rows(out)) == ["0", "1"]
        assert _run(*args).exit_code == 0  # finished: nothing asked, nothing added
        assert (out / TRANSCRIPTS_FILE).read_text(encoding="utf-8") == first
        # killed after item 0 was saved, while item 1's row was being written
        kept = [line for line in (out / "predictions.jsonl").read_text().splitlines() if json.loads(line)["id"] == "0"]
        (out / "predictions.jsonl").write_text(kept[0] + "\n")
        with open(out / TRANSCRIPTS_FILE, "a", encoding="utf-8") as fh:
            fh.write('{"item": "1", "stage": "predictions", "mes')
        sent = server.total
        assert _run(*args).exit_code == 0
        rows = _rows(out)  # every line parses: the torn one is gone
        assert sorted(x["item"] for x in rows) == ["0", "1"]
        assert next(x for x in rows if x["item"] == "1")["cached"] is True  # served from the cache, recorded all the same
        assert next(x for x in rows if x["item"] == "0")["cached"] is False  # item 0's row untouched
        assert server.total == sent  # nothing reached the model
        assert _run(*args, "--refresh").exit_code == 0
        rows = _rows(out)
        assert sorted(x["item"] for x in rows) == ["0", "1"] and not any(x["cached"] for x in rows)
        assert server.total == sent + 3  # the endpoint check, then both items asked again


def test_a_transcript_row_names_the_schema_and_keeps_extra_settings() -> None:
    schema = {"title": "Verdict", "type": "object", "properties": {"score": {"type": "integer"}}}
    req = ChatRequest(messages=[{"role": "system", "content": "S"}, {"role": "user", "content": "U <b>x</b>"}],
                      params=GenerationParams(max_tokens=7, temperature=0.5, json_schema=schema, stop=("END",)),
                      tag="t:1")
    resp = ChatResponse(text="4", finish_reason="length", prompt_tokens=11, completion_tokens=7, logprobs=[])
    row = transcript_row(req, resp, item="1", stage="judgments", model="openai-compatible/m@http://h/v1",
                         key="k1", cached=True)
    assert row["messages"] == req.messages and row["reply"] == "4" and row["finish_reason"] == "length"
    assert row["params"]["max_tokens"] == 7 and row["params"]["temperature"] == 0.5 and row["params"]["stop"] == ["END"]
    assert row["params"]["json_schema"]["title"] == "Verdict" and len(row["params"]["json_schema"]["sha"]) == 12
    assert "properties" not in json.dumps(row) and "logprobs" not in {k for k in row if k != "params"}
    assert (row["item"], row["stage"], row["cached"], row["prompt_tokens"], row["completion_tokens"]) == ("1", "judgments", True, 11, 7)
    failed = transcript_row(req, None, item="1", stage="predictions", model="m", key=None, cached=False, error="HTTP 500")
    assert failed["error"] == "HTTP 500" and failed["reply"] is None
