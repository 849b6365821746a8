"""The bundled MiniLM's CPU paths: fp32 (reference), bf16, shorter inputs, ONNX fp32, static; batching order."""

from __future__ import annotations

import numpy as np
import pytest

from noveval.models.embed import (
    BUNDLED_EMBEDDER_ID,
    Embedder,
    SentenceTransformerBackend,
    VectorCache,
    _normalise,
    bf16_native,
    get_embedder,
)

TEXTS = [
    "Transformers for machine translation.",
    "Attention models translate text.",
    "Grasping objects with robot hands.",
    # > 256 word pieces, so truncation is part of what is compared
    "Graph neural networks for molecule property prediction. " * 40,
    "A short one.",
]


@pytest.fixture(scope="module")
def fp32() -> np.ndarray:
    return _normalise(SentenceTransformerBackend(None, precision="fp32").embed_batch(TEXTS))


def test_model_ids_name_what_changes_the_vectors() -> None:
    assert SentenceTransformerBackend(None, precision="fp32").model_id == BUNDLED_EMBEDDER_ID
    assert SentenceTransformerBackend(None, precision="bf16").model_id == BUNDLED_EMBEDDER_ID + "+bf16"
    assert SentenceTransformerBackend(None, precision="bf16", max_tokens=128).model_id == BUNDLED_EMBEDDER_ID + "+bf16@128"
    assert get_embedder("local:fp32", cache=False).model_id == BUNDLED_EMBEDDER_ID
    local = get_embedder("local", cache=False).model_id
    assert local.startswith(BUNDLED_EMBEDDER_ID) and ("+bf16" in local) == bf16_native() and local.endswith("@128")


def test_bf16_vectors_are_close_to_fp32_but_not_the_same(fp32: np.ndarray) -> None:
    b = _normalise(SentenceTransformerBackend(None, precision="bf16").embed_batch(TEXTS))
    cos = np.sum(b * fp32, axis=1)
    assert cos.min() > 0.999  # docs/performance.md: mean 0.99998 on 300 abstracts
    assert np.abs(b - fp32).max() > 1e-6  # different vectors, hence a different model id


def test_fewer_tokens_change_only_long_texts(fp32: np.ndarray) -> None:
    s = _normalise(SentenceTransformerBackend(None, precision="fp32", max_tokens=128).embed_batch(TEXTS))
    short = [0, 1, 2, 4]
    np.testing.assert_allclose(s[short], fp32[short], atol=1e-5)
    assert float(s[3] @ fp32[3]) < 0.9999


def test_onnx_fp32_equals_pytorch_fp32_to_1e5(fp32: np.ndarray, tmp_path, monkeypatch) -> None:
    pytest.importorskip("onnxruntime")
    monkeypatch.setenv("NOVEVAL_CACHE_DIR", str(tmp_path))
    e = get_embedder("local:onnx", cache=VectorCache(tmp_path / "v.sqlite"))
    assert (tmp_path / "models" / "all-MiniLM-L6-v2-onnx" / "model.onnx").is_file()
    # equal vectors, so it may share PyTorch fp32's model id (and its cached vectors)
    assert e.model_id == BUNDLED_EMBEDDER_ID
    np.testing.assert_allclose(e.encode(TEXTS), fp32, atol=1e-5)


def test_other_onnx_files_get_their_own_id(tmp_path, monkeypatch) -> None:
    pytest.importorskip("onnxruntime")
    from noveval.models.embed_onnx import OnnxBackend, bundled_onnx_path

    monkeypatch.setenv("NOVEVAL_CACHE_DIR", str(tmp_path / "c"))
    src = bundled_onnx_path().parent
    import shutil

    shutil.copytree(src, tmp_path / "mine")
    assert OnnxBackend(tmp_path / "mine" / "model.onnx").model_id == "local/mine/model.onnx"


class _Recorder:
    """A real deterministic backend (text length and vowel count) that records its batches."""

    model_id = "test/recorder"

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        self.batches.append(list(texts))
        return np.asarray([[len(t), sum(c in "aeiou" for c in t) + 1.0] for t in texts], dtype=np.float32)


def test_embedder_batches_by_length_and_returns_input_order() -> None:
    texts = ["aaaa aaaa", "b", "cc ee", "ddd d dd dd", "e", "ffffffff fff"]
    rec = _Recorder()
    v = Embedder(rec, cache=None, batch_size=2).encode(texts)
    assert [len(t) for b in rec.batches for t in b] == sorted(len(t) for t in texts)
    expect = _normalise(np.asarray([[len(t), sum(c in "aeiou" for c in t) + 1.0] for t in texts], dtype=np.float32))
    np.testing.assert_allclose(v, expect, atol=1e-7)


def test_static_backend_is_the_mean_of_token_rows(tmp_path) -> None:
    """A small hand-made model2vec model: each text's vector is the mean of its tokens' rows."""
    pytest.importorskip("model2vec")
    from model2vec import StaticModel
    from tokenizers import Tokenizer

    from noveval.models.embed import bundled_minilm_path
    from noveval.models.embed_static import StaticBackend

    tok = Tokenizer.from_file(str(bundled_minilm_path() / "tokenizer.json"))
    tok.no_padding()  # the bundled file pads to 128; model2vec strips padding itself
    rng = np.random.default_rng(0)
    rows = rng.normal(size=(tok.get_vocab_size(), 8)).astype(np.float32)
    StaticModel(vectors=rows, tokenizer=tok, normalize=False).save_pretrained(str(tmp_path / "m"))
    b = StaticBackend(tmp_path / "m")
    assert b.model_id.startswith("local/m-") and len(b.model_id) == len("local/m-") + 10
    texts = ["graph neural networks", "robot grasping of objects"]
    got = b.embed_batch(texts)
    for t, g in zip(texts, got):
        ids = tok.encode(t, add_special_tokens=False).ids
        np.testing.assert_allclose(g, rows[ids].mean(axis=0), rtol=1e-5, atol=1e-6)


@pytest.mark.slow
def test_static_distilled_from_minilm_ranks_like_minilm(tmp_path, monkeypatch) -> None:
    """The real distillation (~100 CPU-s): offline, from the bundled model, neighbours agree on easy pairs."""
    pytest.importorskip("model2vec")
    monkeypatch.setenv("NOVEVAL_CACHE_DIR", str(tmp_path))
    e = get_embedder("local:static", cache=False)
    assert e.model_id.startswith("local/all-MiniLM-L6-v2-static256-")
    v = e.encode(TEXTS[:3])
    assert v.shape == (3, 256)
    assert v[0] @ v[1] > v[0] @ v[2]
