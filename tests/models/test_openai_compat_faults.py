"""The OpenAI-compatible backend against a real HTTP server on 127.0.0.1 that injects faults."""

from __future__ import annotations

import asyncio
import time

import pytest

from fake_openai import FakeOpenAIServer
from noveval.models import ChatRequest, GenerationParams, ResponseCache, RetryPolicy, get_client
from noveval.models.openai_compat import parse_retry_after


def _req(prompt: str, **params: object) -> ChatRequest:
    return ChatRequest(messages=[{"role": "user", "content": prompt}], params=GenerationParams(max_tokens=8, **params))


def _client(server: FakeOpenAIServer, **kw: object):
    kw.setdefault("cache", None)
    kw.setdefault("retry", RetryPolicy(max_retries=3, base_s=0.01, cap_s=0.05, seed=1))
    return get_client(f"openai-compatible/fake@{server.base_url}", **kw)  # type: ignore[arg-type]


def test_every_fault_ends_completed_or_recorded_with_reason() -> None:
    plans = {
        "p429": ["429:0.3", "ok"],
        "p500": ["500", "500", "ok"],
        "pslow": ["slow:1.5", "ok"],
        "pmalformed": ["malformed", "ok"],
        "pnochoices": ["nochoices", "ok"],
        "pdrop": ["drop", "ok"],
        "palways500": ["500"],
        "p400": ["400"],
        "pok": ["ok"],
    }
    with FakeOpenAIServer() as server:
        server.plan.update(plans)
        client = _client(server, timeout_s=0.5, concurrency=4)
        t0 = time.perf_counter()
        out = client.complete_many([_req(p) for p in plans])
        elapsed = time.perf_counter() - t0
        counts = dict(server.counts)
    by = dict(zip(plans, out))
    for name in ["p429", "p500", "pslow", "pmalformed", "pnochoices", "pdrop", "pok"]:
        assert by[name].ok, (name, by[name].error)
        assert by[name].text == f"echo: {name}"
    # Request counts follow the plan: one failure each, two for p500.
    # (client attempts may exceed server counts when a stale keep-alive connection is retried)
    assert counts["p429"] == 2 and by["p429"].attempts >= 2
    assert counts["p500"] == 3 and by["p500"].attempts >= 3
    assert counts["pslow"] == 2 and counts["pmalformed"] == 2 and counts["pdrop"] == 2
    assert counts["pok"] == 1
    # Retried max_retries times, then recorded as failed with the reason.
    assert not by["palways500"].ok and counts["palways500"] == 4
    assert "HTTP 500" in by["palways500"].error and "4 attempts" in by["palways500"].error
    # A 4xx other than 429 is permanent: one request, no retries.
    assert not by["p400"].ok and counts["p400"] == 1 and "HTTP 400" in by["p400"].error
    # Retry-After: 0.3 s was honoured (the whole batch cannot finish sooner).
    assert elapsed >= 0.3
    s = client.stats
    assert s["failures"] == 2 and s["requests"] == len(plans)


def test_retry_after_is_waited_for() -> None:
    with FakeOpenAIServer() as server:
        server.plan["x"] = ["429:0.4", "ok"]
        client = _client(server)
        t0 = time.perf_counter()
        resp = client.complete_many([_req("x")])[0]
        assert resp.ok and time.perf_counter() - t0 >= 0.4
        t_first, t_second = [t for t, _, p in server.log if p == "x"]
        assert t_second - t_first >= 0.39


def test_parse_retry_after_forms() -> None:
    assert parse_retry_after("2") == 2.0
    assert parse_retry_after(None) is None
    assert parse_retry_after("garbage") is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # in the past


def test_second_identical_run_makes_zero_requests(tmp_path) -> None:
    with FakeOpenAIServer() as server:
        reqs = [_req(f"q{i}") for i in range(6)]
        c1 = _client(server, cache=ResponseCache(tmp_path / "c.sqlite"))
        first = c1.complete_many(reqs)
        assert server.total == 6
        c2 = _client(server, cache=ResponseCache(tmp_path / "c.sqlite"))
        second = c2.complete_many(reqs)
        assert server.total == 6, "the second run must be served from the cache"
        assert [r.text for r in first] == [r.text for r in second]
        assert all(r.cached for r in second) and c2.stats["cache_hits"] == 6
        # --refresh goes to the server again
        c3 = _client(server, cache=ResponseCache(tmp_path / "c.sqlite"), refresh=True)
        c3.complete_many(reqs[:2])
        assert server.total == 8


def test_failures_are_not_cached(tmp_path) -> None:
    with FakeOpenAIServer() as server:
        server.plan["bad"] = ["500", "500", "ok"]
        cache = ResponseCache(tmp_path / "c.sqlite")
        c = _client(server, cache=cache, retry=RetryPolicy(max_retries=1, base_s=0.01, cap_s=0.01))
        assert not c.complete_many([_req("bad")])[0].ok
        c2 = _client(server, cache=cache, retry=RetryPolicy(max_retries=1, base_s=0.01, cap_s=0.01))
        assert c2.complete_many([_req("bad")])[0].ok
        assert server.counts["bad"] == 3


def test_api_key_sent_but_never_in_cache(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("NOVEVAL_API_KEY", "sk-secret-123")
    with FakeOpenAIServer() as server:
        cache = ResponseCache(tmp_path / "c.sqlite")
        c = _client(server, cache=cache)
        c.complete_many([_req("hello")])
        assert server.auth_headers[-1] == "Bearer sk-secret-123"
    cache.close()
    for f in tmp_path.iterdir():
        assert b"sk-secret-123" not in f.read_bytes()
    assert "sk-secret" not in str(c.describe())


def test_concurrency_is_bounded() -> None:
    with FakeOpenAIServer(delay_s=0.2) as server:
        c = _client(server, concurrency=2)
        t0 = time.perf_counter()
        out = c.complete_many([_req(f"c{i}") for i in range(4)])
        elapsed = time.perf_counter() - t0
        assert all(r.ok for r in out)
        starts = sorted(t for t, _, _ in server.log)
        # at most two requests may start within the first delay window
        assert sum(1 for t in starts if t - starts[0] < 0.15) <= 2
        assert elapsed >= 0.4


def test_json_schema_request_and_structured_parse() -> None:
    from pydantic import BaseModel

    from noveval.models import complete_structured_many

    class Answer(BaseModel):
        answer: str

    with FakeOpenAIServer() as server:
        c = _client(server)
        [res] = complete_structured_many(c, [_req("structured please")], Answer)
        assert res.ok and res.value.answer == "structured please"[:20]


def test_embeddings_backend_against_server(tmp_path) -> None:
    import numpy as np

    from noveval.models.embed import VectorCache, get_embedder

    with FakeOpenAIServer() as server:
        emb = get_embedder(f"openai-compatible/fake-emb@{server.base_url}", cache=VectorCache(tmp_path / "v.sqlite"))
        v1 = emb.encode(["alpha", "beta", "alpha"])
        assert v1.shape == (3, 8)
        np.testing.assert_allclose(np.linalg.norm(v1, axis=1), 1.0, rtol=1e-5)
        np.testing.assert_array_equal(v1[0], v1[2])
        assert server.counts["embed:alpha"] == 1  # duplicates are embedded once
        emb.encode(["alpha", "beta"])
        assert server.counts["embed:alpha"] == 1 and server.counts["embed:beta"] == 1


def test_client_never_raises_inside_event_loop() -> None:
    with FakeOpenAIServer() as server:
        server.plan["z"] = ["drop"]
        c = _client(server, retry=RetryPolicy(max_retries=2, base_s=0.01, cap_s=0.01))

        async def main():
            return await c.acomplete_many([_req("z"), _req("ok")])

        out = asyncio.run(main())
        assert not out[0].ok and "connection" in out[0].error.lower()
        assert out[1].ok


@pytest.mark.parametrize("spec", ["openai-compatible/x", "openai-compatible/x@ftp://h", "nope/x", "local:"])
def test_bad_specs_are_config_errors(spec: str) -> None:
    from noveval.errors import ConfigError
    from noveval.models.spec import parse_spec

    with pytest.raises(ConfigError):
        parse_spec(spec)


def test_client_reusable_across_event_loops() -> None:
    """Benchmarks call complete_many several times; each asyncio.run has a new loop."""
    with FakeOpenAIServer() as server:
        c = _client(server)
        for i in range(3):
            assert c.complete_many([_req(f"loop {i}")])[0].ok
