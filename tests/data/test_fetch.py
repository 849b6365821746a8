"""Downloads: resumed with HTTP Range after a cut, checked, atomic; git ids agree with git itself."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import pytest

from data_mirror import MirrorServer
from noveval.data import fetch
from noveval.data.fetch import (
    ChecksumError,
    Fetcher,
    NetworkError,
    git_blob_sha1,
    git_tree_sha1,
    mirror_url,
)
from noveval.errors import InputError

URL = "https://files.example.org/release/v1/big.bin"
BODY = bytes(range(256)) * 4000  # 1,024,000 bytes


@pytest.fixture
def served(tmp_path: Path):
    root = tmp_path / "mirror"
    (root / "files.example.org" / "release" / "v1").mkdir(parents=True)
    (root / "files.example.org" / "release" / "v1" / "big.bin").write_bytes(BODY)
    with MirrorServer(root) as m:
        yield m


def _fetcher(tmp_path: Path, m: MirrorServer) -> Fetcher:
    return Fetcher(tmp_path / "downloads", mirror=m.url)


def test_mirror_url_keeps_host_path_and_query() -> None:
    assert mirror_url("https://api.github.com/repos/a/b/git/trees/x?recursive=1", "http://127.0.0.1:9/") == \
        "http://127.0.0.1:9/api.github.com/repos/a/b/git/trees/x?recursive=1"
    assert mirror_url(URL, None) == URL


def test_a_cut_download_resumes_from_where_it_stopped(tmp_path: Path, served: MirrorServer) -> None:
    served.cut["/files.example.org/release/v1/big.bin"] = 300_000
    f = _fetcher(tmp_path, served)
    path = f.fetch(URL, sha256=hashlib.sha256(BODY).hexdigest(), size=len(BODY))
    assert path.read_bytes() == BODY
    ranges = served.requests("big.bin")
    assert ranges[0] is None and len(ranges) == 2
    start = int(ranges[1].split("=")[1].rstrip("-"))  # the resume asked for what was missing, not everything
    assert 0 < start <= 300_000
    assert f.bytes == len(BODY) and not list(path.parent.glob("*.part"))
    assert f.fetch(URL, sha256=hashlib.sha256(BODY).hexdigest()) == path and len(served.requests("big.bin")) == 2


def test_a_server_that_ignores_the_range_gets_the_part_rewritten(tmp_path: Path, served: MirrorServer) -> None:
    served.ignore_range = True
    f = _fetcher(tmp_path, served)
    part = tmp_path / "downloads" / "files.example.org" / "release" / "v1" / "big.bin.part"
    part.parent.mkdir(parents=True)
    part.write_bytes(BODY[:1000])  # an earlier interrupted run
    path = f.fetch(URL, git_sha1=_git_hash(BODY, tmp_path))
    assert path.read_bytes() == BODY and served.requests("big.bin") == ["bytes=1000-"]


def test_a_wrong_checksum_keeps_nothing(tmp_path: Path, served: MirrorServer) -> None:
    served.replace["/files.example.org/release/v1/big.bin"] = b"tampered"
    f = _fetcher(tmp_path, served)
    with pytest.raises(ChecksumError, match="differs from the published one: sha256"):
        f.fetch(URL, sha256=hashlib.sha256(BODY).hexdigest())
    assert not list((tmp_path / "downloads").rglob("big.bin*"))
    with pytest.raises(ChecksumError, match="size 8 bytes, published 1024000"):
        f.fetch(URL, size=len(BODY))


def test_busy_servers_are_retried_then_given_up(tmp_path: Path, served: MirrorServer,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    path = "/files.example.org/release/v1/big.bin"
    served.status[path] = [503, 429]
    f = _fetcher(tmp_path, served)
    assert f.fetch(URL, size=len(BODY)).read_bytes() == BODY and len(served.requests("big.bin")) == 3
    monkeypatch.setattr(fetch, "RETRIES", 1)
    served.status[path] = [503, 503, 503]
    with pytest.raises(NetworkError, match="HTTP 503"):
        Fetcher(tmp_path / "d3", mirror=served.url).fetch(URL)


def test_http_errors_and_unreachable_servers(tmp_path: Path, served: MirrorServer, monkeypatch: pytest.MonkeyPatch) -> None:
    f = _fetcher(tmp_path, served)
    with pytest.raises(InputError, match="HTTP 404"):
        f.fetch("https://files.example.org/missing.bin")
    monkeypatch.setattr(fetch, "RETRIES", 1)
    dead = Fetcher(tmp_path / "d2", mirror="http://127.0.0.1:9")  # nothing listens on port 9
    with pytest.raises(NetworkError, match="cannot download"):
        dead.fetch(URL)


def _git_hash(data: bytes, tmp: Path) -> str:
    f = tmp / "blob"
    f.write_bytes(data)
    return subprocess.run(["git", "hash-object", str(f)], capture_output=True, text=True, check=True).stdout.strip()


def test_git_ids_are_gits_own(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    (repo / "d").mkdir(parents=True)
    (repo / "d" / "a.json").write_text('{"x": 1}\n')
    (repo / "d" / "b b.md").write_bytes("é\n".encode())
    (repo / "d" / "run.sh").write_text("echo\n")
    (repo / "d" / "run.sh").chmod(0o755)
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}

    def git(*a: str) -> str:
        return subprocess.run(["git", "-C", str(repo), *a], capture_output=True, text=True, check=True, env=env).stdout

    git("init", "-q")
    git("add", "-A")
    git("commit", "-q", "-m", "x")
    assert git_blob_sha1(repo / "d" / "a.json") == git("rev-parse", "HEAD:d/a.json").strip()
    entries = []
    for line in git("ls-tree", "HEAD:d").splitlines():
        meta, name = line.split("\t")
        mode, _, sha = meta.split()
        entries.append({"mode": mode, "path": name, "sha": sha})
    assert git_tree_sha1(entries) == git("rev-parse", "HEAD:d").strip()
    from noveval.data.inputs import _tree_of

    assert _tree_of(repo / "d") == git("rev-parse", "HEAD:d").strip()
