"""Embeddings from a real OpenAI-compatible ``/embeddings`` server, with bounded concurrency.

The server is a real HTTP server on 127.0.0.1 that runs the bundled all-MiniLM-L6-v2 (the
same model as ``-e local``) and counts requests in flight.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytestmark = pytest.mark.integration


class MiniLMServer:
    """``POST /v1/embeddings`` answered by the bundled MiniLM (one model, a lock around it)."""

    def __init__(self, delay_s: float = 0.05) -> None:
        from sentence_transformers import SentenceTransformer

        from noveval.models.embed import bundled_minilm_path

        self.model = SentenceTransformer(str(bundled_minilm_path()), device="cpu")
        self.delay_s = delay_s
        self.in_flight = self.max_in_flight = self.requests = 0
        self._lock = threading.Lock()
        self._model_lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                with outer._lock:
                    outer.requests += 1
                    outer.in_flight += 1
                    outer.max_in_flight = max(outer.max_in_flight, outer.in_flight)
                try:
                    time.sleep(outer.delay_s)  # a server that takes time, so requests overlap
                    inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
                    with outer._model_lock:
                        vecs = outer.model.encode(inputs, convert_to_numpy=True, show_progress_bar=False)
                    data = [{"object": "embedding", "index": i, "embedding": v.tolist()} for i, v in enumerate(vecs)]
                    payload = json.dumps({"object": "list", "data": data[::-1], "model": body.get("model"),
                                          "usage": {"prompt_tokens": 1, "total_tokens": 1}}).encode()
                    self.send_response(200)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                finally:
                    with outer._lock:
                        outer.in_flight -= 1

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> MiniLMServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def server():
    with MiniLMServer() as s:
        yield s


def test_server_embeddings_equal_local_and_concurrency_is_bounded(server, tmp_path: Path):
    from noveval.models.embed import get_embedder

    texts = [f"paper {i} about {'graphs' if i % 2 else 'robots'} and learning" for i in range(40)]
    spec = f"openai-compatible/all-MiniLM-L6-v2@{server.base_url}"
    emb = get_embedder(spec, cache=str(tmp_path / "v.sqlite"), batch_size=4, concurrency=3)
    server.max_in_flight = 0
    got = emb.encode(texts)
    assert server.requests >= 10
    assert server.max_in_flight == 3  # ten batches, at most three in flight, and overlap did happen
    local = get_embedder("local:fp32", cache=False).encode(texts)
    assert np.allclose(got, local, atol=1e-5)  # same model, order kept despite reversed 'data'
    before = server.requests
    assert np.array_equal(emb.encode(texts), got) and server.requests == before  # cached: no request


def test_index_built_through_the_server(server, tmp_path: Path):
    pytest.importorskip("bm25s")
    from index_helpers import PAPERS, write_jsonl
    from noveval.index import BM25Params, build_index, search
    from noveval.models.embed import get_embedder

    spec = f"openai-compatible/all-MiniLM-L6-v2@{server.base_url}"
    emb = get_embedder(spec, cache=str(tmp_path / "v.sqlite"), batch_size=2, concurrency=2)
    idx = build_index(write_jsonl(tmp_path / "c.jsonl", PAPERS), tmp_path / "idx", embedder=emb,
                      bm25=BM25Params(stem=False), embed_missing=True)
    assert idx.embedder_id == emb.model_id == f"openai-compatible/all-MiniLM-L6-v2@{server.base_url}"
    assert idx.dense_coverage() == (5, 5)
    res = search(idx, "Robot grasping\n\ngrasping objects with a robot hand", mode="dense", k=1, embedder=emb)
    assert res.rows() == [1] and res.hits[0].similarity == pytest.approx(1.0, abs=1e-5)


@pytest.mark.slow
def test_onnx_export_matches_the_pytorch_model(tmp_path: Path):
    pytest.importorskip("onnxruntime")
    from noveval.models.embed import get_embedder
    from noveval.models.embed_onnx import export_onnx

    q = export_onnx(tmp_path / "onnx", int8=True)
    texts = ["Graph neural networks for molecules", "A robot hand grasps unknown objects\n\nWe learn grasps."]
    ref = get_embedder("local:fp32", cache=False).encode(texts)
    fp32 = get_embedder(f"local:{tmp_path / 'onnx' / 'model.onnx'}", cache=False)
    int8 = get_embedder(f"local:{q}", cache=False)
    assert fp32.model_id.endswith("onnx/model.onnx") and int8.model_id != fp32.model_id
    assert np.allclose(fp32.encode(texts), ref, atol=1e-4)  # same graph, same pooling
    # quantised weights: close, not equal (measured cosine 0.965 and 0.969 against PyTorch)
    assert (np.sum(int8.encode(texts) * ref, axis=1) > 0.93).all()
