"""Downloads: resumable (HTTP ``Range``), checked (SHA-256 or git blob id), atomic.

A file is downloaded to ``<downloads>/<host>/<path>.part``; an interrupted download is
resumed from where it stopped (``Range: bytes=N-``; a server that ignores the range sends
the whole file and the part file is rewritten). Only a complete file whose checksum
matches is renamed to its final name, so a file under ``<downloads>`` is always whole and
verified, and a second ``data get`` finds it and downloads nothing.

``mirror`` (``--mirror`` / ``$NOVEVAL_DATA_MIRROR``) serves the same files from another
address: ``https://host/path`` is fetched as ``<mirror>/host/path`` (a plain folder of
files laid out by host and path behind any HTTP server).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from noveval.errors import InputError, NovevalError

__all__ = ["ChecksumError", "Fetcher", "NetworkError", "check_file", "git_blob_sha1", "git_tree_sha1",
           "local_path", "mirror_url", "sha256_file"]

log = logging.getLogger("noveval")

CHUNK = 1 << 16
RETRIES = 4
GITHUB_API = "https://api.github.com"
RAW = "https://raw.githubusercontent.com"


class NetworkError(NovevalError):
    """The server could not be reached (no network, a firewall, a mirror that is down)."""


class ChecksumError(InputError):
    """A file whose checksum is not the published one (names the file and both sums)."""


class _Busy(Exception):
    """HTTP 429 or 5xx: the server may answer later (retried like a dropped connection)."""

    def __init__(self, status: int, wait: float | None) -> None:
        super().__init__(f"HTTP {status}")
        self.wait = wait


def _check_status(r: Any, target: str) -> None:
    if r.status_code == 429 or r.status_code >= 500:
        after = r.headers.get("retry-after", "")
        raise _Busy(r.status_code, float(after) if after.replace(".", "", 1).isdigit() else None)
    if r.status_code >= 400:
        hint = ("; the GitHub API limits anonymous listings to 60 an hour: set GITHUB_TOKEN, or wait"
                if r.status_code == 403 and "api.github.com" in target else "")
        raise InputError(target, None, None, f"HTTP {r.status_code} {r.reason_phrase}".rstrip() + hint)


def _pause(attempt: int, wait: float | None = None) -> None:
    time.sleep(min(wait if wait is not None else 2.0 ** attempt * 0.2, 30.0))


def sha256_file(path: str | Path) -> str:
    """SHA-256 (hex) of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def git_blob_sha1(path: str | Path) -> str:
    """The git blob id of a file: SHA-1 of ``b"blob <size>\\0" + bytes`` (what GitHub lists)."""
    h = hashlib.sha1(f"blob {os.path.getsize(path)}\0".encode())  # noqa: S324 - git's object id, not security
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def git_tree_sha1(entries: Iterable[dict[str, Any]]) -> str:
    """The git tree id of a folder from its listing (``mode``, ``path``, ``sha`` per entry, git's order)."""
    body = b"".join(f"{str(e['mode']).lstrip('0')} {e['path']}\0".encode() + bytes.fromhex(str(e["sha"]))
                    for e in entries)
    return hashlib.sha1(f"tree {len(body)}\0".encode() + body).hexdigest()  # noqa: S324 - git's object id


def check_file(path: str | Path, *, sha256: str | None = None, git_sha1: str | None = None,
               size: int | None = None) -> str | None:
    """None when ``path`` has the published size and checksum, else what differs (one phrase)."""
    p = Path(path)
    if size is not None and p.stat().st_size != size:
        return f"size {p.stat().st_size} bytes, published {size}"
    if sha256 is not None:
        got = sha256_file(p)
        return None if got == sha256.lower() else f"sha256 {got}, published {sha256}"
    if git_sha1 is not None:
        got = git_blob_sha1(p)
        return None if got == git_sha1.lower() else f"git blob id {got}, published {git_sha1}"
    return None


def mirror_url(url: str, mirror: str | None) -> str:
    """``url`` as served by ``mirror`` (``<mirror>/<host>/<path>?<query>``), or ``url`` without one."""
    if not mirror:
        return url
    parts = urlsplit(url)
    tail = f"/{parts.netloc}{parts.path}" + (f"?{parts.query}" if parts.query else "")
    return mirror.rstrip("/") + tail


def local_path(downloads: Path, url: str) -> Path:
    """Where a download of ``url`` is kept: ``<downloads>/<host>/<path>`` (query dropped)."""
    parts = urlsplit(url)
    rel = [p for p in unquote(parts.path).split("/") if p not in ("", ".", "..")]
    return downloads.joinpath(parts.netloc, *rel)


class Fetcher:
    """Downloads files into one downloads folder (``<data folder>/.downloads``).

    Args:
        downloads: The folder that keeps verified downloads (created on first use).
        mirror: Another address serving the same files (see :func:`mirror_url`).
        timeout_s: Seconds to wait for a server before retrying.
    """

    def __init__(self, downloads: Path, *, mirror: str | None = None, timeout_s: float = 60.0) -> None:
        import httpx

        self.downloads = downloads
        self.mirror = mirror or os.environ.get("NOVEVAL_DATA_MIRROR") or None
        headers = {"User-Agent": "noveval-data"}
        token = os.environ.get("GITHUB_TOKEN")
        self._api_headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._client = httpx.Client(timeout=timeout_s, follow_redirects=True, headers=headers)
        self.downloaded = 0  # files fetched over the network in this session
        self.bytes = 0

    def close(self) -> None:
        """Close the HTTP connections."""
        self._client.close()

    def fetch(self, url: str, *, sha256: str | None = None, git_sha1: str | None = None,
              size: int | None = None) -> Path:
        """The verified local copy of ``url`` (downloaded, or resumed, when not there yet).

        Raises:
            NetworkError: the server cannot be reached after retries.
            ChecksumError: the downloaded bytes are not the published ones (nothing is kept).
            InputError: the server answers an HTTP error (404: not at that address).
        """
        dest = local_path(self.downloads, url)
        if dest.is_file() and check_file(dest, sha256=sha256, git_sha1=git_sha1, size=size) is None:
            return dest
        dest.parent.mkdir(parents=True, exist_ok=True)
        part = dest.with_name(dest.name + ".part")
        self._download(url, part)
        why = check_file(part, sha256=sha256, git_sha1=git_sha1, size=size)
        if why is not None:
            part.unlink(missing_ok=True)
            raise ChecksumError(url, None, None, f"downloaded file differs from the published one: {why}")
        os.replace(part, dest)
        self.downloaded += 1
        return dest

    def _download(self, url: str, part: Path) -> None:
        """Write ``url`` into ``part``, resuming what is already there; retry transport errors."""
        import httpx

        target = mirror_url(url, self.mirror)
        for attempt in range(RETRIES + 1):
            have = part.stat().st_size if part.exists() else 0
            try:
                self._stream(target, part, have)
                return
            except (httpx.TransportError, _Busy) as e:
                if attempt == RETRIES:
                    raise NetworkError(f"{target}: cannot download ({type(e).__name__}: {e or 'no answer'}); "
                                       "run the same command again to resume") from None
                log.info("%s: %s; resuming (%d/%d)", target, type(e).__name__, attempt + 1, RETRIES)
                _pause(attempt, getattr(e, "wait", None))

    def _stream(self, target: str, part: Path, have: int) -> None:
        headers = {"Range": f"bytes={have}-"} if have else {}
        with self._client.stream("GET", target, headers=headers) as r:
            if r.status_code == 416 and have:  # the part file is already whole: let the checksum decide
                return
            _check_status(r, target)
            resumed = r.status_code == 206 and have and r.headers.get("content-range", "").startswith(f"bytes {have}-")
            with open(part, "ab" if resumed else "wb") as f:
                for chunk in r.iter_bytes(CHUNK):
                    f.write(chunk)
                    self.bytes += len(chunk)

    def tree(self, repo: str, sha: str) -> list[dict[str, Any]]:
        """The entries of the git tree (or commit) ``sha`` of ``repo`` from the GitHub API (cached).

        A listing fetched by its tree id is checked against it.

        Raises:
            ChecksumError: the listing does not hash to ``sha`` (or was truncated).
        """
        url = f"{GITHUB_API}/repos/{repo}/git/trees/{sha}"
        cache = local_path(self.downloads, url).with_suffix(".json")
        if not cache.is_file():
            r = self._get(url, self._api_headers)
            cache.parent.mkdir(parents=True, exist_ok=True)
            tmp = cache.with_name(cache.name + ".part")
            tmp.write_bytes(r)
            os.replace(tmp, cache)
        doc = json.loads(cache.read_text(encoding="utf-8"))
        entries: list[dict[str, Any]] = list(doc.get("tree") or [])
        if doc.get("truncated") or (doc.get("sha") == sha and git_tree_sha1(entries) != sha):
            cache.unlink(missing_ok=True)
            raise ChecksumError(url, None, None, "the listing does not match its git tree id")
        return entries

    def _get(self, url: str, headers: dict[str, str]) -> bytes:
        import httpx

        target = mirror_url(url, self.mirror)
        for attempt in range(RETRIES + 1):
            try:
                r = self._client.get(target, headers=headers)
                _check_status(r, target)
                return r.content
            except (httpx.TransportError, _Busy) as e:
                if attempt == RETRIES:
                    raise NetworkError(f"{target}: cannot reach ({type(e).__name__}: {e})") from None
                _pause(attempt, getattr(e, "wait", None))
        raise AssertionError("unreachable")
