"""The bundled GGUF answers the same in-process and through xllamacpp's real HTTP server (issue 34).

Over HTTP the claimcheck sample once scored f1_edit 0.000 against 0.329 in-process. The schema
reached the server and was decoded under its grammar both ways; the difference was llama.cpp's
prompt cache: a prompt whose prefix was cached by an earlier request is evaluated in other
batches, its logits differ in the last bits, and the tiny model's decoding takes another path
(``noveval.models.openai_format``). The in-process backend never reuses prefixes, and
``NOVEVAL_PROMPT_CACHE=0`` asks a llama.cpp server for the same; then both agree item for item.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from noveval.benchmarks.claimcheck.data import sample_dir
from noveval.benchmarks.claimcheck.generate import run_task
from noveval.benchmarks.claimcheck.options import ClaimcheckOptions
from noveval.io import read_jsonl
from noveval.models import ChatRequest, GenerationParams, get_client
from noveval.models.local import local_server_address

pytestmark = pytest.mark.integration


def _ca(model: str, out: Path, temperature: float) -> list[dict[str, Any]]:
    """Claim association on the first weakness of the shipped sample, short replies, no cache."""
    sample = sample_dir()
    options = ClaimcheckOptions(task="ca", papers=sample / "papers.json", annotations=sample / "annotations.jsonl",
                                limit_items=1, max_tokens=48, context_chars=600, temperature=temperature,
                                no_cache=True, allow_unparseable=True, concurrency=1)
    return read_jsonl(run_task(model, out, options) / "predictions.jsonl")


@pytest.mark.slow
@pytest.mark.parametrize("temperature", [0.0, 0.9])
def test_claimcheck_sample_gives_the_same_predictions_over_http_and_in_process(tmp_path, monkeypatch,
                                                                              temperature) -> None:
    monkeypatch.setenv("NOVEVAL_PROMPT_CACHE", "0")  # the switch: llama.cpp's cache_prompt false over HTTP too
    # The HTTP server is the in-process one listening on 127.0.0.1: both ways share one llama.cpp
    # context, so each run starts from the other's cached prompts (the history that used to split them).
    url = local_server_address().rstrip("/") + "/v1"
    local = _ca("local", tmp_path / "local", temperature)
    http = _ca(f"openai-compatible/smollm2@{url}", tmp_path / "http", temperature)
    assert len(local) == 1 and all(r["reasoning"] for r in local)  # answers the parser read, not failures
    assert http == local  # reasoning, targets, custom claim, failures: item for item


def test_the_switch_reaches_the_server_and_the_in_process_model_never_reuses_a_prefix(monkeypatch) -> None:
    """The same request twice: with ``NOVEVAL_PROMPT_CACHE=0`` neither server reuses the first one's
    prompt and the replies agree; with ``1`` both do (the faster, history-dependent way)."""
    url = local_server_address().rstrip("/") + "/v1"
    request = ChatRequest(messages=[{"role": "user", "content": "Name three colours of the rainbow, in order."}],
                          params=GenerationParams(max_tokens=6))

    def twice(spec: str) -> list[tuple[str | None, int]]:
        client = get_client(spec, cache=None)
        replies = [r for _ in range(2) for r in client.complete_many([request])]
        assert all(r.ok for r in replies), [r.error for r in replies]
        return [(r.text, r.cached_prompt_tokens) for r in replies]

    monkeypatch.delenv("NOVEVAL_PROMPT_CACHE", raising=False)
    (text, cached), again = twice("local")  # in-process default: off
    assert again == (text, 0) and cached == 0
    monkeypatch.setenv("NOVEVAL_PROMPT_CACHE", "0")
    assert twice(f"openai-compatible/smollm2@{url}") == [(text, 0), (text, 0)]
    monkeypatch.setenv("NOVEVAL_PROMPT_CACHE", "1")
    for spec in ("local", f"openai-compatible/smollm2@{url}"):
        assert twice(spec)[1][1] > 0  # the second request reused the first one's prompt
