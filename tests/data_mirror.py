"""A real HTTP server on 127.0.0.1 serving a folder as a mirror of public hosts, with faults.

``root/<host>/<path>`` answers ``GET /<host>/<path>`` (what ``noveval data get --mirror`` asks
for ``https://<host>/<path>``), with ``Range: bytes=N-`` support (206 and Content-Range), 404
for anything else. Faults, for the resume and checksum tests:

- ``cut[path] = n``: the next answer for ``path`` sends ``n`` bytes of the body and then closes
  the connection (once per entry: the entry is removed when used);
- ``ignore_range = True``: answer 200 with the whole file even when a range is asked;
- ``replace[path] = bytes``: serve these bytes instead of the file (a tampered mirror);
- ``status[path] = [503, ...]``: answer these statuses first (one per request, with
  ``Retry-After: 0``), then the file.

Every request is logged as ``(path, range header or None)`` in ``log``.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit


class MirrorServer:
    """``with MirrorServer(root) as m: ...``; ``m.url`` is the mirror address."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.cut: dict[str, int] = {}
        self.replace: dict[str, bytes] = {}
        self.status: dict[str, list[int]] = {}
        self.ignore_range = False
        self.log: list[tuple[str, str | None]] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def requests(self, suffix: str) -> list[str | None]:
        """The range headers of the requests whose path ends with ``suffix``."""
        return [r for p, r in self.log if p.endswith(suffix)]

    def __enter__(self) -> MirrorServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        mirror = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                path = unquote(urlsplit(self.path).path)
                rng = self.headers.get("Range")
                with mirror._lock:
                    mirror.log.append((path, rng))
                    cut = mirror.cut.pop(path, None)
                    body = mirror.replace.get(path)
                    status = mirror.status[path].pop(0) if mirror.status.get(path) else None
                if status is not None:
                    self.send_response(status)
                    self.send_header("Retry-After", "0")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                f = mirror.root / path.lstrip("/")
                if body is None:
                    if ".." in Path(path).parts or not f.is_file():
                        self.send_error(404)
                        return
                    body = f.read_bytes()
                start = 0
                if rng and not mirror.ignore_range and rng.startswith("bytes="):
                    start = int(rng[len("bytes="):].split("-")[0])
                    if start >= len(body):
                        self.send_response(416)
                        self.send_header("Content-Range", f"bytes */{len(body)}")
                        self.end_headers()
                        return
                    self.send_response(206)
                    self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
                else:
                    self.send_response(200)
                part = body[start:]
                self.send_header("Content-Length", str(len(part)))
                self.end_headers()
                if cut is not None:
                    self.wfile.write(part[:cut])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.wfile.write(part)

        return Handler
