"""A real HTTP server on 127.0.0.1 speaking the OpenAI chat/embeddings protocol, with faults.

Used by tests to exercise the OpenAI-compatible backend against real sockets. Replies are
deterministic functions of the request, so runs can be compared byte for byte.

Fault plans: ``server.plan[prompt] = ["429:0.3", "500", "ok"]`` — the n-th request whose
last user message equals ``prompt`` gets the n-th action (the last one repeats):

- ``ok``: a normal completion ``"echo: <prompt>"``;
- ``429:<s>``: HTTP 429 with ``Retry-After: <s>``;
- ``500`` / ``400``: that status with an error body;
- ``slow:<s>``: sleep ``s`` seconds, then reply normally;
- ``malformed``: HTTP 200 with a body that is not JSON;
- ``nochoices``: HTTP 200 with ``choices: []``;
- ``drop``: close the connection without answering;
- ``die``: close the connection and shut the whole server down (later connections are
  refused): a server that dies in the middle of a run.

A ``responder(prompt) -> str | dict`` scripts the reply content of ``ok`` actions (a dict
is sent as JSON), for tests that need specific answers through the real HTTP path. While
it runs, ``REQUEST.body`` (module level, per thread) holds the JSON body of the request it
answers, so a reply can depend on the sampling ``seed`` or ``temperature``.

Every HTTP request is logged as ``(method, path)`` in ``http_log``; every chat request's JSON
body is kept in ``bodies``. The files and batches
endpoints answer 404 here (a server without a batch API); ``tests/fake_batches.py``
implements them.
``action_for(prompt) -> str | None`` picks an action by content (None: use the plan).

Endpoint faults that hold for every request: ``api_key`` (any other bearer token gets
HTTP 401), ``forbidden`` (HTTP 403 for all), ``models`` (a model name outside the set gets
HTTP 404 "model not found", as OpenAI and vLLM answer). ``port`` binds a given port (to
bring a dead server back on the same address).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

REQUEST = threading.local()
"""``REQUEST.body``: the body of the chat request the responder is answering (this thread)."""


class FakeOpenAIServer:
    """Start with ``with FakeOpenAIServer() as s: ...``; ``s.base_url`` ends in ``/v1``."""

    def __init__(
        self,
        *,
        delay_s: float = 0.0,
        responder: Callable[[str], str | dict[str, Any]] | None = None,
        action_for: Callable[[str], str | None] | None = None,
        api_key: str | None = None,
        forbidden: bool = False,
        models: set[str] | None = None,
        port: int = 0,
    ) -> None:
        self.plan: dict[str, list[str]] = {}
        self.responder = responder
        self.action_for = action_for
        self.api_key = api_key
        self.forbidden = forbidden
        self.models = models
        self.delay_s = delay_s
        self.counts: Counter[str] = Counter()
        self.log: list[tuple[float, str, str]] = []  # (time, path, prompt)
        self.auth_headers: list[str] = []
        self.http_log: list[tuple[str, str]] = []
        self.bodies: list[dict[str, Any]] = []  # every chat request's JSON body, in arrival order
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802
                with outer._lock:
                    outer.http_log.append(("GET", self.path))
                outer._get(self)

            def do_POST(self) -> None:  # noqa: N802
                n = int(self.headers.get("content-length", 0))
                raw = self.rfile.read(n)
                with outer._lock:
                    outer.http_log.append(("POST", self.path))
                if "/files" in self.path or "/batches" in self.path:
                    outer._batch_post(self, raw)
                    return
                body = json.loads(raw or b"{}")
                outer.auth_headers.append(self.headers.get("authorization", ""))
                with outer._lock:
                    outer.in_flight += 1
                    outer.max_in_flight = max(outer.max_in_flight, outer.in_flight)
                try:
                    if outer._endpoint_fault(self, body):
                        return
                    if self.path.endswith("/embeddings"):
                        outer._embeddings(self, body)
                    else:
                        outer._chat(self, body)
                finally:
                    with outer._lock:
                        outer.in_flight -= 1

        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> FakeOpenAIServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def _die(self) -> None:
        def stop() -> None:
            self.httpd.shutdown()
            self.httpd.server_close()

        threading.Thread(target=stop, daemon=True).start()

    def _endpoint_fault(self, h: BaseHTTPRequestHandler, body: dict[str, Any]) -> bool:
        """Answer 401 / 403 / 404 for the whole endpoint when configured so; True when answered."""
        if self.api_key is not None and h.headers.get("authorization", "") != f"Bearer {self.api_key}":
            self._send(h, 401, b'{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}')
            return True
        if self.forbidden:
            self._send(h, 403, b'{"error":{"message":"You are not allowed to use this model"}}')
            return True
        if self.models is not None and body.get("model") not in self.models:
            msg = json.dumps({"error": {"message": f"The model `{body.get('model')}` does not exist", "code": "model_not_found"}})
            self._send(h, 404, msg.encode())
            return True
        return False

    def _get(self, h: BaseHTTPRequestHandler) -> None:
        """GET requests (files and batches in a subclass): 404 here."""
        self._send(h, 404, b'{"error":{"message":"Not found"}}')

    def _batch_post(self, h: BaseHTTPRequestHandler, raw: bytes) -> None:
        """POST to /files or /batches: 404 here (no batch API)."""
        self._send(h, 404, b'{"error":{"message":"Not found"}}')

    @property
    def total(self) -> int:
        """Requests received so far."""
        return sum(self.counts.values())

    def _next_action(self, prompt: str) -> str:
        with self._lock:
            k = self.counts[prompt]
            self.counts[prompt] += 1
            self.log.append((time.time(), "chat", prompt))
        if self.action_for is not None:
            picked = self.action_for(prompt)
            if picked is not None:
                return picked
        plan = self.plan.get(prompt, ["ok"])
        return plan[min(k, len(plan) - 1)]

    @staticmethod
    def _send(h: BaseHTTPRequestHandler, status: int, payload: bytes, headers: dict[str, str] | None = None) -> None:
        h.send_response(status)
        h.send_header("content-type", "application/json")
        h.send_header("content-length", str(len(payload)))
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(payload)

    def _chat(self, h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        REQUEST.body = body
        with self._lock:
            self.bodies.append(body)
        msgs = body.get("messages", [])
        prompt = next((m["content"] for m in reversed(msgs) if m.get("role") == "user"), "")
        action = self._next_action(prompt)
        if self.delay_s:
            time.sleep(self.delay_s)
        if action.startswith("429"):
            ra = action.split(":", 1)[1] if ":" in action else "0"
            self._send(h, 429, b'{"error":{"message":"rate limited"}}', {"retry-after": ra})
            return
        if action in ("500", "400", "503"):
            self._send(h, int(action), b'{"error":{"message":"injected failure"}}')
            return
        if action.startswith("slow:"):
            time.sleep(float(action.split(":", 1)[1]))
        if action == "malformed":
            self._send(h, 200, b"this is not json {")
            return
        if action == "die":
            self._die()
            action = "drop"
        if action == "drop":
            h.close_connection = True
            try:
                h.connection.shutdown(2)
            except OSError:
                pass
            return
        self._send(h, 200, json.dumps(self.completion(body, prompt, choices=action != "nochoices")).encode())

    def completion(self, body: dict[str, Any], prompt: str, *, choices: bool = True) -> dict[str, Any]:
        """The chat.completion payload of an ``ok`` answer (usage: prompt words, 2 completion tokens)."""
        out: list[Any] = []
        if choices:
            content: Any = "echo: " + prompt
            if self.responder is not None:
                REQUEST.body = body  # also for a batch's lines, answered outside _chat
                content = self.responder(prompt)
                content = content if isinstance(content, str) else json.dumps(content)
            elif body.get("response_format"):
                content = json.dumps({"answer": prompt[:20]})
            out = [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}]
        return {
            "id": "cmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", "fake"),
            "choices": out,
            "usage": {"prompt_tokens": len(prompt.split()), "completion_tokens": 2, "total_tokens": len(prompt.split()) + 2},
        }

    def _embeddings(self, h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        inputs = body.get("input", [])
        inputs = [inputs] if isinstance(inputs, str) else inputs
        with self._lock:
            for t in inputs:
                self.counts["embed:" + t] += 1
        data = []
        for i, t in enumerate(inputs):
            digest = hashlib.sha256(t.encode()).digest()
            vec = [b / 255.0 - 0.5 for b in digest[:8]]
            data.append({"object": "embedding", "index": i, "embedding": vec})
        payload = {"object": "list", "data": data, "model": body.get("model"), "usage": {"prompt_tokens": 1, "total_tokens": 1}}
        self._send(h, 200, json.dumps(payload).encode())
