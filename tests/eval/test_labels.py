"""One labelling rule (issue 29 item 4): runs are named by the model's own name, plus only what tells them apart."""

from __future__ import annotations

from pathlib import Path

import pytest

from noveval.labels import model_host, model_labels, model_name


@pytest.mark.parametrize(("spec", "name", "host"), [
    ("openai-compatible/Qwen2.5-7B-Instruct@http://gpu1:8000/v1", "Qwen2.5-7B-Instruct", "gpu1:8000"),
    ("openai-compatible/meta-llama/Llama-3.1-8B@https://api.together.xyz/v1", "meta-llama/Llama-3.1-8B", "api.together.xyz"),
    ("openai/gpt-4o-mini", "gpt-4o-mini", "openai"),
    ("local", "local", "local"),
    ("local/SmolLM2-135M-Instruct-Q4_1", "SmolLM2-135M-Instruct-Q4_1", "local"),
    ("local:/models/qwen2.5-0.5b-instruct-q4.gguf", "qwen2.5-0.5b-instruct-q4", "local"),
    ("novelty_predictions-o3-2025-04-16", "novelty_predictions-o3-2025-04-16", None),
    (None, "model not recorded", None),
])
def test_model_name_and_host(spec: str | None, name: str, host: str | None) -> None:
    assert model_name(spec) == name
    assert model_host(spec) == host


def test_the_old_report_label_was_the_url_tail() -> None:
    """The report used the spec's last path segment: 'v1' for every OpenAI-compatible server."""
    spec = "openai-compatible/Qwen2.5-7B-Instruct@http://127.0.0.1:8000/v1"
    assert spec.split("/")[-1] == "v1" and model_labels([spec]) == ["Qwen2.5-7B-Instruct"]


def test_host_only_when_two_runs_share_a_name_on_different_hosts() -> None:
    specs = ["openai-compatible/Qwen@http://a:8000/v1", "openai-compatible/Qwen@http://b:8000/v1",
             "openai/gpt-4o", "openai-compatible/Llama@http://a:8000/v1"]
    assert model_labels(specs) == ["Qwen @a:8000", "Qwen @b:8000", "gpt-4o", "Llama"]


def test_details_then_folders_then_numbers() -> None:
    models = ["local/SmolLM2", "local/SmolLM2", "local/SmolLM2", "local/SmolLM2"]
    details = [["zero-shot"], ["rag"], ["rag"], ["rag"]]
    folders = [Path("x/zs"), Path("x/rag"), Path("y/rag"), Path("y/rag")]
    assert model_labels(models, details=details, folders=folders) == [
        "SmolLM2 · zero-shot", "SmolLM2 · rag (x/rag)", "SmolLM2 · rag (y/rag)", "SmolLM2 · rag (y/rag) #2"]
    # a generic folder name takes its parent; distinct names are enough on their own
    assert model_labels(["m", "m"], folders=[Path("a/run"), Path("b/run")]) == ["m (a/run)", "m (b/run)"]
    assert model_labels(["m", "m"], folders=[Path("a/seed0"), Path("a/seed1")]) == ["m (seed0)", "m (seed1)"]
    assert model_labels(["m", "n"], folders=[Path("a"), Path("a")]) == ["m", "n"]
