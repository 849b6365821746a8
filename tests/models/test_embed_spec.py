"""The embedder spec grammar with length and precision, what a spec resolves to, and the paper-setting note (issue 35)."""

from __future__ import annotations

import pytest

from noveval.errors import ConfigError
from noveval.models.bundled import BUNDLED_EMBEDDER_ID, bf16_native
from noveval.models.embed import (
    embedder_departure,
    get_embedder,
    longer_embedder,
    resolved_embedder,
)
from noveval.models.spec import ModelSpec, parse_embedder_spec
from noveval.options import EMBEDDER_HELP, PAPER_EMBEDDER, paper_embedder


@pytest.mark.parametrize(("spec", "parsed"), [
    ("local", (ModelSpec("local", ""), None)),
    ("local@256", (ModelSpec("local", ""), 256)),
    ("local:bf16@256", (ModelSpec("local", "bf16"), 256)),
    ("local:fp32@512", (ModelSpec("local", "fp32"), 512)),
    ("local:fp32", (ModelSpec("local", "fp32"), None)),
    ("local:onnx", (ModelSpec("local", "onnx"), None)),
    ("local:static", (ModelSpec("local", "static"), None)),
    ("local:/models/st@v2", (ModelSpec("local", "/models/st@v2"), None)),  # an @ not followed by digits is a path
    ("local:/models/st@64", (ModelSpec("local", "/models/st"), 64)),
    ("openai/text-embedding-3-small", (ModelSpec("openai", "text-embedding-3-small"), None)),
    ("openai-compatible/bge-m3@http://127.0.0.1:8000/v1", (ModelSpec("openai-compatible", "bge-m3",
                                                                     "http://127.0.0.1:8000/v1"), None)),
])
def test_grammar(spec: str, parsed: tuple) -> None:
    assert parse_embedder_spec(spec) == parsed


@pytest.mark.parametrize(("spec", "needle"), [
    ("local:onnx@256", "fixed length"), ("local:static@128", "fixed length"), ("local@0", "1-8192"),
    ("local@", "unknown model spec"), ("locale@12", "unknown model spec"),
])
def test_bad_specs(spec: str, needle: str) -> None:
    with pytest.raises(ConfigError, match=needle):
        parse_embedder_spec(spec)


def test_bundled_model_has_512_positions() -> None:
    with pytest.raises(ConfigError, match="at most 512 tokens"):
        get_embedder("local:fp32@600", cache=False)


@pytest.mark.parametrize(("spec", "precision", "tokens", "model_id"), [
    ("local:bf16@256", "bf16", 256, BUNDLED_EMBEDDER_ID + "+bf16"),
    ("local:fp32@512", "fp32", 512, BUNDLED_EMBEDDER_ID + "@512"),
    ("local:fp32", "fp32", 256, BUNDLED_EMBEDDER_ID),
    ("local:fp32@256", "fp32", 256, BUNDLED_EMBEDDER_ID),  # the model's own length: the same id, shared vectors
    ("local:bf16", "bf16", 128, BUNDLED_EMBEDDER_ID + "+bf16@128"),
])
def test_resolved(spec: str, precision: str, tokens: int, model_id: str) -> None:
    r = resolved_embedder(get_embedder(spec, cache=False))
    assert r == {"id": model_id, "model": BUNDLED_EMBEDDER_ID, "precision": precision, "max_tokens": tokens}


def test_local_is_the_fast_everyday_setting() -> None:
    r = resolved_embedder(get_embedder("local", cache=False))
    assert r["max_tokens"] == 128 and r["precision"] == ("bf16" if bf16_native() else "fp32")
    assert resolved_embedder(get_embedder("local@256", cache=False))["max_tokens"] == 256


def test_departure_note_names_both_and_ignores_precision() -> None:
    fp32 = resolved_embedder(get_embedder("local:fp32", cache=False))
    fast = resolved_embedder(get_embedder("local", cache=False))
    assert embedder_departure(fp32, PAPER_EMBEDDER) is None  # bf16 and fp32 vectors agree to 1e-3 cosine
    note = embedder_departure(fast, PAPER_EMBEDDER)
    assert note is not None and "128 tokens" in note and "local:bf16@256" in note and "256 tokens" in note
    assert embedder_departure(fast, None) is None


def test_systems_declare_their_embedder_on_their_options() -> None:
    from noveval.benchmarks.axioms.options import AxiomsOptions
    from noveval.benchmarks.novbench.options import NovBenchOptions, NovBenchScoreOptions
    from noveval.benchmarks.validate.options import ValidateOptions

    for cls in (AxiomsOptions, ValidateOptions, NovBenchOptions, NovBenchScoreOptions):
        assert cls().embedder == PAPER_EMBEDDER and paper_embedder(cls) == PAPER_EMBEDDER, cls
    from noveval.options import EmbedderOption

    assert EmbedderOption().embedder == "local" and paper_embedder(EmbedderOption) is None
    for form in ("local@N", "local:bf16@N", "local:fp32@N", "local:/folder@N", "openai-compatible"):
        assert form in EMBEDDER_HELP


def test_longer_embedder_keeps_model_and_precision() -> None:
    emb = get_embedder("local:bf16@256", cache=False)
    long = longer_embedder(emb, 512)
    assert long is not None and resolved_embedder(long)["id"] == BUNDLED_EMBEDDER_ID + "+bf16@512"
    assert longer_embedder(get_embedder("local:fp32@512", cache=False), 512) is None  # already reads that many


@pytest.mark.slow
def test_bf16_256_reproduces_fp32_256_vectors() -> None:
    """The paper default's vectors equal the reference fp32 ones to 1e-3 cosine (docs/performance.md)."""
    import numpy as np

    texts = ["A study of graph neural networks for molecule property prediction. " * 12, "Short title."]
    a = get_embedder("local:bf16@256", cache=False).encode(texts)
    b = get_embedder("local:fp32@256", cache=False).encode(texts)
    assert np.min(np.sum(a * b, axis=1)) > 0.999


def test_a_demo_leaves_each_system_its_own_embedder() -> None:
    from noveval.benchmarks.validate.options import ValidateOptions
    from noveval.options import EmbedderOption, own_embedder

    assert own_embedder("local", ValidateOptions) == PAPER_EMBEDDER
    assert own_embedder("local:fp32", ValidateOptions) == "local:fp32"  # an explicit other -e is kept
    assert own_embedder("local", EmbedderOption) == "local"


def test_validate_records_a_departing_embedder() -> None:
    from noveval.benchmarks.validate.contract import embedder_records
    from noveval.benchmarks.validate.options import ValidateOptions

    fast = resolved_embedder(get_embedder("local", cache=False))
    got = embedder_records(ValidateOptions(embedder="local"), fast)
    assert got["embedder_resolved"] == fast and "departs from this system's paper setting" in got["embedder_note"]
    same = resolved_embedder(get_embedder(PAPER_EMBEDDER, cache=False))
    assert embedder_records(ValidateOptions(), same) == {"embedder_resolved": same}
