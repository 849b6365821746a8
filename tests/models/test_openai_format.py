"""The chat-completions body and logprob reader shared by the local and HTTP backends."""

from __future__ import annotations

from types import SimpleNamespace

from noveval.models.chat import ChatRequest, GenerationParams
from noveval.models.local import LocalBackend
from noveval.models.openai_compat import OpenAICompatBackend
from noveval.models.openai_format import chat_body, token_logprobs
from noveval.models.spec import parse_spec

MSGS = [{"role": "user", "content": "hi"}]


def test_minimal_body_has_only_the_required_fields() -> None:
    req = ChatRequest(messages=MSGS, params=GenerationParams(seed=None, max_tokens=7))
    assert chat_body(req) == {"messages": MSGS, "max_tokens": 7, "temperature": 0.0}


def test_full_body_in_wire_order() -> None:
    params = GenerationParams(temperature=0.5, max_tokens=9, seed=3, top_p=0.9, stop=("x",), logprobs=True)
    body = chat_body(ChatRequest(messages=MSGS, params=params), response_format={"type": "json_object"})
    assert list(body) == ["messages", "max_tokens", "temperature", "seed", "top_p", "stop", "response_format",
                          "logprobs", "top_logprobs"]
    assert body["stop"] == ["x"] and body["top_logprobs"] == 5 and body["seed"] == 3


def test_backends_ask_for_json_their_own_way() -> None:
    schema = {"type": "object"}
    req = ChatRequest(messages=MSGS, params=GenerationParams(json_schema=schema))
    http = OpenAICompatBackend(parse_spec("openai-compatible/m@http://127.0.0.1:9/v1"))
    body = http.request_body(req)
    assert list(body)[0] == "model" and body["model"] == "m"
    assert body["response_format"] == {"type": "json_schema",
                                       "json_schema": {"name": "output", "schema": schema, "strict": False}}
    http._schema_unsupported = True
    assert http.request_body(req)["response_format"] == {"type": "json_object"}
    local = LocalBackend()._payload(req)
    assert "model" not in local and local["response_format"] == {"type": "json_object", "schema": schema}


def test_token_logprobs_reads_dicts_and_objects_alike() -> None:
    as_dicts = [{"token": "A", "logprob": -0.5, "top_logprobs": [{"token": "A", "logprob": -0.5},
                                                                {"token": "B", "logprob": -1.25}]}]
    as_objects = [SimpleNamespace(token="A", logprob=-0.5, top_logprobs=[SimpleNamespace(token="A", logprob=-0.5),
                                                                          SimpleNamespace(token="B", logprob=-1.25)])]
    a, b = token_logprobs(as_dicts), token_logprobs(as_objects)
    assert a == b and a is not None
    assert (a[0].token, a[0].logprob, [(t.token, t.logprob) for t in a[0].top]) == ("A", -0.5, [("A", -0.5), ("B", -1.25)])
    assert token_logprobs(None) is None and token_logprobs([]) is None


def test_local_model_paths(tmp_path) -> None:
    import pytest

    from noveval.errors import ConfigError
    from noveval.models.spec import local_model

    f = tmp_path / "m.gguf"
    f.write_bytes(b"x")
    assert local_model(str(f), bundled=lambda: tmp_path, bundled_id="b", what="w", folder=False) == (str(f.resolve()), "local/m.gguf")
    assert local_model(None, bundled=lambda: tmp_path, bundled_id="b", what="w", folder=True) == (str(tmp_path), "b")
    with pytest.raises(ConfigError, match="local model folder not found"):
        local_model(str(f), bundled=lambda: tmp_path, bundled_id="b", what="local model folder", folder=True)


def test_prompt_cache_is_off_in_process_and_the_servers_own_over_http_unless_set(monkeypatch) -> None:
    """In-process answers never depend on earlier prompts; ``NOVEVAL_PROMPT_CACHE`` sets both backends alike."""
    import pytest

    from noveval.errors import ConfigError

    req = ChatRequest(messages=MSGS, params=GenerationParams())
    http = OpenAICompatBackend(parse_spec("openai-compatible/m@http://127.0.0.1:9/v1"))
    monkeypatch.delenv("NOVEVAL_PROMPT_CACHE", raising=False)
    assert LocalBackend()._payload(req)["cache_prompt"] is False
    assert "cache_prompt" not in http.request_body(req)  # OpenAI itself rejects fields it does not know
    for value, expected in (("0", False), ("off", False), ("1", True), (" TRUE ", True)):
        monkeypatch.setenv("NOVEVAL_PROMPT_CACHE", value)
        assert LocalBackend()._payload(req)["cache_prompt"] is expected
        assert http.request_body(req)["cache_prompt"] is expected
    monkeypatch.setenv("NOVEVAL_PROMPT_CACHE", "maybe")
    with pytest.raises(ConfigError, match="NOVEVAL_PROMPT_CACHE='maybe'"):
        http.request_body(req)
