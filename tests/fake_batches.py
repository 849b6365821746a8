"""A real HTTP server on 127.0.0.1 with OpenAI's files and batches API, for batch tests.

:class:`FakeBatchServer` extends ``FakeOpenAIServer`` (chat completions, faults) with:

- ``POST /v1/files`` (multipart: ``file``, ``purpose``) -> a file object; the bytes are kept;
- ``GET /v1/files/{id}/content`` -> the file's bytes (input, output and error files);
- ``POST /v1/batches`` (``input_file_id``, ``endpoint``, ``completion_window``) -> a batch;
- ``GET /v1/batches/{id}`` -> the batch, advancing it: ``validating`` -> ``in_progress``
  -> its planned end after ``polls`` status requests;
- ``POST /v1/batches/{id}/cancel`` -> ``cancelling``, then ``cancelled``.

Each new batch takes the next entry of ``batch_plan`` (the last one repeats):

- ``complete``: every request answered as the chat endpoint would answer it (same
  ``responder``, same usage), except prompts whose chat ``plan`` starts with ``400``: those
  get a per-request 400 in the error file;
- ``fail``: the batch fails validation (``errors``), no output;
- ``expire:K``: the first K requests answered, the rest in the error file with
  ``batch_expired``, status ``expired``;
- ``hold``: stays ``in_progress`` until :meth:`release` (then as ``complete``) or a cancel.

Requests answered through a batch are counted in ``counts`` and logged in ``log`` with
the path ``batch`` (live chat calls have ``chat``), so tests can tell them apart.
"""

from __future__ import annotations

import email.parser
import email.policy
import itertools
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

from fake_openai import FakeOpenAIServer


class FakeBatchServer(FakeOpenAIServer):
    """``with FakeBatchServer(batch_plan=["complete"]) as s: ...``; see the module docstring."""

    def __init__(self, *, batch_plan: list[str] | None = None, polls: int = 2, **kw: Any) -> None:
        super().__init__(**kw)
        self.batch_plan = list(batch_plan or ["complete"])
        self.polls = polls
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self._ids = itertools.count(1)
        self._released: set[str] = set()
        self._batch_lock = threading.Lock()

    # -- helpers ---------------------------------------------------------------------------
    def _new_id(self, prefix: str) -> str:
        return f"{prefix}-{next(self._ids)}"

    def release(self, batch_id: str) -> None:
        """Let a ``hold`` batch finish (as ``complete``) at its next status request."""
        self._released.add(batch_id)

    @property
    def batch_creates(self) -> int:
        """``POST /v1/batches`` requests received."""
        return sum(1 for m, p in self.http_log if m == "POST" and re.fullmatch(r"/v1/batches/?", p))

    @property
    def uploads(self) -> int:
        """``POST /v1/files`` requests received."""
        return sum(1 for m, p in self.http_log if m == "POST" and p.rstrip("/").endswith("/files"))

    @property
    def live_chat_calls(self) -> int:
        """Chat completions requested directly (not through a batch)."""
        return sum(1 for _, path, _ in self.log if path == "chat")

    def _json(self, h: BaseHTTPRequestHandler, status: int, obj: Any) -> None:
        self._send(h, status, json.dumps(obj).encode())

    # -- routes ----------------------------------------------------------------------------
    def _batch_post(self, h: BaseHTTPRequestHandler, raw: bytes) -> None:
        path = h.path.rstrip("/")
        if path.endswith("/files"):
            self._upload(h, raw)
            return
        m = re.fullmatch(r".*/batches/([^/]+)/cancel", path)
        if m:
            b = self.batches.get(m.group(1))
            if b is None:
                self._json(h, 404, {"error": {"message": "no such batch"}})
                return
            if b["status"] not in ("completed", "failed", "expired", "cancelled"):
                b["status"] = "cancelling"
                b["cancelling_at"] = int(time.time())
            self._json(h, 200, b)
            return
        if path.endswith("/batches"):
            self._create(h, json.loads(raw or b"{}"))
            return
        self._json(h, 404, {"error": {"message": "Not found"}})

    def _get(self, h: BaseHTTPRequestHandler) -> None:
        path = h.path.split("?")[0].rstrip("/")
        m = re.fullmatch(r".*/files/([^/]+)/content", path)
        if m and m.group(1) in self.files:
            data = self.files[m.group(1)]
            h.send_response(200)
            h.send_header("content-type", "application/octet-stream")
            h.send_header("content-length", str(len(data)))
            h.end_headers()
            h.wfile.write(data)
            return
        m = re.fullmatch(r".*/batches/([^/]+)", path)
        if m and m.group(1) in self.batches:
            self._json(h, 200, self._advance(m.group(1)))
            return
        self._json(h, 404, {"error": {"message": "Not found"}})

    def _upload(self, h: BaseHTTPRequestHandler, raw: bytes) -> None:
        ctype = h.headers.get("content-type", "")
        msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            f"content-type: {ctype}\r\n\r\n".encode() + raw
        )
        parts = {p.get_param("name", header="content-disposition"): p for p in msg.iter_parts()}
        if "file" not in parts or parts.get("purpose") is None:
            self._json(h, 400, {"error": {"message": "file and purpose are required"}})
            return
        data = parts["file"].get_payload(decode=True) or b""
        fid = self._new_id("file")
        self.files[fid] = data
        self._json(h, 200, {"id": fid, "object": "file", "bytes": len(data), "created_at": int(time.time()),
                            "filename": parts["file"].get_filename() or "batch.jsonl", "purpose": "batch",
                            "status": "processed"})

    def _create(self, h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        fid = body.get("input_file_id")
        if fid not in self.files:
            self._json(h, 400, {"error": {"message": f"no file {fid}"}})
            return
        with self._batch_lock:
            n = len(self.batches)
            plan = self.batch_plan[min(n, len(self.batch_plan) - 1)]
            bid = self._new_id("batch")
            lines = [json.loads(x) for x in self.files[fid].decode().splitlines() if x.strip()]
            self.batches[bid] = {
                "id": bid, "object": "batch", "endpoint": body.get("endpoint"), "errors": None,
                "input_file_id": fid, "completion_window": body.get("completion_window", "24h"),
                "status": "validating", "output_file_id": None, "error_file_id": None,
                "created_at": int(time.time()), "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
                "metadata": body.get("metadata"), "_plan": plan, "_lines": lines, "_polls": 0,
            }
        self._json(h, 200, self._public(self.batches[bid]))

    # -- the batch's life ------------------------------------------------------------------
    @staticmethod
    def _public(b: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in b.items() if not k.startswith("_")}

    def _advance(self, bid: str) -> dict[str, Any]:
        with self._batch_lock:
            b = self.batches[bid]
            if b["status"] in ("completed", "failed", "expired", "cancelled"):
                return self._public(b)
            b["_polls"] += 1
            if b["status"] == "cancelling":
                self._finish(b, "cancelled", answer=0)
            elif b["status"] == "validating":
                if b["_plan"] == "fail":
                    b["status"] = "failed"
                    b["failed_at"] = int(time.time())
                    b["errors"] = {"object": "list", "data": [
                        {"code": "invalid_request", "message": "injected: the batch failed validation", "line": None,
                         "param": None}]}
                else:
                    b["status"] = "in_progress"
                    b["in_progress_at"] = int(time.time())
            elif b["status"] == "in_progress" and b["_polls"] >= self.polls:
                plan = b["_plan"]
                if plan == "hold" and bid not in self._released:
                    pass
                elif plan.startswith("expire:"):
                    self._finish(b, "expired", answer=int(plan.split(":", 1)[1]))
                else:
                    self._finish(b, "completed", answer=len(b["_lines"]))
            return self._public(b)

    def _finish(self, b: dict[str, Any], status: str, *, answer: int) -> None:
        out, err = [], []
        for i, line in enumerate(b["_lines"]):
            body = line.get("body") or {}
            msgs = body.get("messages", [])
            prompt = next((m["content"] for m in reversed(msgs) if m.get("role") == "user"), "")
            rid = f"batch_req_{b['id']}_{i}"
            if i >= answer:
                code, message = (("batch_expired", "This request could not be executed before the completion window "
                                  "expired.") if status == "expired" else ("batch_cancelled", "The batch was cancelled."))
                err.append({"id": rid, "custom_id": line.get("custom_id"), "response": None,
                            "error": {"code": code, "message": message}})
                continue
            with self._lock:
                self.counts[prompt] += 1
                self.log.append((time.time(), "batch", prompt))
            if (self.plan.get(prompt) or ["ok"])[0].startswith("400"):
                err.append({"id": rid, "custom_id": line.get("custom_id"), "error": None,
                            "response": {"status_code": 400, "request_id": rid,
                                         "body": {"error": {"message": "injected per-request failure"}}}})
                continue
            out.append({"id": rid, "custom_id": line.get("custom_id"), "error": None,
                        "response": {"status_code": 200, "request_id": rid, "body": self.completion(body, prompt)}})
        for kind, rows in (("output_file_id", out), ("error_file_id", err)):
            if rows:
                fid = self._new_id("file")
                self.files[fid] = "".join(json.dumps(r) + "\n" for r in rows).encode()
                b[kind] = fid
        b["status"] = status
        b[f"{status}_at" if status != "completed" else "completed_at"] = int(time.time())
        b["request_counts"] = {"total": len(b["_lines"]), "completed": len(out), "failed": len(err)}
