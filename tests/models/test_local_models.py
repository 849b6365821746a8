"""The bundled models run for real: SmolLM2 chat (in-process and over HTTP), MiniLM, perplexity."""

from __future__ import annotations

import math

import numpy as np
import pytest
from pydantic import BaseModel, Field

from noveval.models import (
    ChatRequest,
    GenerationParams,
    ResponseCache,
    complete_structured_many,
    get_client,
)

pytestmark = pytest.mark.integration


def _req(prompt: str, **kw: object) -> ChatRequest:
    kw.setdefault("max_tokens", 24)
    return ChatRequest(messages=[{"role": "user", "content": prompt}], params=GenerationParams(**kw))


def test_bundled_chat_model_generates_and_caches(tmp_path) -> None:
    c = get_client("local", cache=ResponseCache(tmp_path / "c.sqlite"))
    [r] = c.complete_many([_req("Name one planet of the solar system.")])
    assert r.ok and r.text.strip() and r.completion_tokens > 0 and r.prompt_tokens > 0
    assert r.finish_reason in {"stop", "length"}
    # greedy decoding is reproducible, and the repeat is a cache hit with no backend attempt
    c2 = get_client("local", cache=ResponseCache(tmp_path / "c.sqlite"))
    [r2] = c2.complete_many([_req("Name one planet of the solar system.")])
    assert r2.cached and r2.text == r.text and c2.stats["attempts"] == 0
    c3 = get_client("local", cache=None)
    assert c3.complete_many([_req("Name one planet of the solar system.")])[0].text == r.text


def test_bundled_model_follows_a_json_schema() -> None:
    class Verdict(BaseModel):
        score: int = Field(ge=1, le=5)
        reason: str

    c = get_client("local", cache=None)
    res = complete_structured_many(c, [_req("Rate the novelty of using attention for translation from 1 to 5.", max_tokens=80)], Verdict)
    assert res[0].ok, res[0].error
    assert 1 <= res[0].value.score <= 5


def test_bundled_model_returns_logprobs() -> None:
    c = get_client("local", cache=None)
    [r] = c.complete_many([_req("Answer with a digit from 1 to 5:", logprobs=True, top_logprobs=5, max_tokens=3)])
    assert r.ok and r.logprobs
    first = r.logprobs[0]
    assert len(first.top) == 5 and all(t.logprob <= 0 for t in first.top)
    assert sum(math.exp(t.logprob) for t in first.top) <= 1 + 1e-3  # top-5 of one distribution
    assert first.logprob >= min(t.logprob for t in first.top) - 1e-3  # chosen token is among the likely ones


def test_prompt_longer_than_context_is_a_recorded_failure() -> None:
    c = get_client("local", cache=None)
    [r] = c.complete_many([_req("word " * 9000)])
    assert not r.ok and "context" in r.error and r.attempts == 1


def test_openai_compatible_backend_against_real_llama_server() -> None:
    """xllamacpp serves the bundled model on 127.0.0.1: a real OpenAI-compatible server."""
    from noveval.models.local import local_server_address

    url = local_server_address().rstrip("/") + "/v1"
    remote = get_client(f"openai-compatible/smollm2@{url}", cache=None)
    local = get_client("local", cache=None)
    prompt = _req("Say the word hello.")
    [rr] = remote.complete_many([prompt])
    [lr] = local.complete_many([prompt])
    assert rr.ok, rr.error
    assert rr.text == lr.text  # same weights, greedy: identical through HTTP and in-process

    class Out(BaseModel):
        word: str

    [res] = complete_structured_many(remote, [_req("Give a JSON object with one key 'word'.", max_tokens=30)], Out)
    assert res.ok, res.error


def test_bundled_embedder_is_normalised_and_cached(tmp_path) -> None:
    from noveval.models.embed import VectorCache, get_embedder

    e = get_embedder("local", cache=VectorCache(tmp_path / "v.sqlite"))
    texts = ["Transformers for machine translation.", "Attention models translate text.", "Grasping objects with robot hands."]
    v = e.encode(texts)
    assert v.shape == (3, 384) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, rtol=1e-5)
    sims = v @ v.T
    assert sims[0, 1] > sims[0, 2]
    # cross-check against sentence-transformers directly, in the backend's precision
    import contextlib

    import torch

    bf16 = e.backend.precision == "bf16"
    with torch.autocast("cpu", dtype=torch.bfloat16) if bf16 else contextlib.nullcontext():
        raw = e.backend.model.encode(texts, normalize_embeddings=True)
    np.testing.assert_allclose(v, raw, atol=1e-5)
    e2 = get_embedder("local", cache=VectorCache(tmp_path / "v.sqlite"))
    np.testing.assert_array_equal(e2.encode(texts), v)
    assert e2.stats["encoded"] == 0 and e2.stats["cache_hits"] == 3


@pytest.mark.slow
def test_perplexity_matches_manual_computation() -> None:
    import torch

    from noveval.models.perplexity import PerplexityScorer

    s = PerplexityScorer(cache=False)
    fluent, shuffled = "The results show that the method works well.", "well works method the that show results The."
    p = s.perplexity([fluent, shuffled, ""])
    assert p[0] < p[1] and math.isnan(p[2])
    # manual, one text at a time: exp of the mean NLL of tokens 2..N given their prefix
    ids = s._tok(fluent, return_tensors="pt")["input_ids"]
    if int(ids[0, 0]) != s._tok.bos_token_id:
        ids = torch.cat([torch.tensor([[s._tok.bos_token_id]]), ids], dim=1)
    with torch.no_grad():
        logits = s._model(ids).logits[0, :-1]
    logp = torch.log_softmax(logits, dim=-1).gather(1, ids[0, 1:, None])[:, 0]
    # batched (padded) scoring equals one-at-a-time scoring
    many = [fluent, "Short one.", shuffled + " " + fluent, "x"]
    batched = PerplexityScorer(cache=False, batch_size=3).perplexity(many)
    single = [PerplexityScorer(cache=False, batch_size=1).perplexity([t])[0] for t in many]
    for b, one in zip(batched, single):
        assert (math.isnan(b) and math.isnan(one)) or math.isclose(b, one, rel_tol=1e-3)
    assert math.isclose(p[0], math.exp(-float(logp.mean())), rel_tol=1e-3)  # float32, masked vs unmasked attention


def test_timed_out_local_call_does_not_hold_the_process() -> None:
    """A generation abandoned after a timeout runs on a daemon thread: nothing waits for it."""
    import threading

    from noveval.models import RetryPolicy

    c = get_client("local", cache=None, timeout_s=0.05, retry=RetryPolicy(max_retries=0))
    r = c.complete("Write a very long story about a dragon who learns mathematics.", max_tokens=600)
    assert not r.ok and "timed out" in r.error
    # complete() (an asyncio.run) has returned while the generation is still going on,
    # on a daemon thread, which interpreter exit does not wait for
    busy = [t for t in threading.enumerate() if t.name == "noveval-local-model" and t.is_alive()]
    assert busy and all(t.daemon for t in busy)
