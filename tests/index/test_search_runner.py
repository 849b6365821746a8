"""``noveval index search --rerank`` goes through the runner (issue 38): the reranker's endpoint is
checked first, unusable rankings are exit 3, and a good ranking reorders the hits; ``index build
--ann`` and ``--retrieval`` take only their declared values.

A real client over HTTP to a local server (tests/fake_openai.py) plays the reranker.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("bm25s")

from cli_helpers import cli, closed_port, one_line_exit_2  # noqa: E402
from fake_openai import FakeOpenAIServer  # noqa: E402
from index_helpers import PAPERS  # noqa: E402
from index_helpers import write_jsonl as _write  # noqa: E402
from schema_reply import PROBE  # noqa: E402


@pytest.fixture
def idx(tmp_path: Path) -> Path:
    r = cli("index", "build", str(_write(tmp_path / "c.jsonl", PAPERS)), "-o", str(tmp_path / "idx"), "--no-dense")
    assert r.exit_code == 0, r.output
    return tmp_path / "idx"


def _search(idx: Path, *more: str):
    return cli("index", "search", str(idx), "graph", "--retrieval", "bm25", *more)


def _titles(out: str) -> list[str]:
    return [ln.split(None, 3)[-1] for ln in out.splitlines() if ln.strip()]


def test_a_good_ranking_reorders_the_hits(idx: Path, tmp_path: Path) -> None:
    assert _titles(_search(idx).stdout) == ["Graph networks", "Robot graph planning"]  # BM25: 'graph' x3 vs x2
    with FakeOpenAIServer(responder=lambda p: "ok" if p == PROBE else '{"ranking": [2, 1]}') as server:
        r = _search(idx, "--rerank", f"openai-compatible/m@{server.base_url}", "-o", str(tmp_path / "hits.json"))
        asked = server.total
    assert r.exit_code == 0, r.output
    assert _titles(r.stdout) == ["Robot graph planning", "Graph networks"] and asked == 2  # the check + one ranking
    got = json.loads((tmp_path / "hits.json").read_text())
    assert [h["id"] for h in got["hits"]] == ["d", "a"] and got["rerank"]["mentioned"] == 2


def test_a_refused_reranker_is_exit_2_and_writes_nothing(idx: Path, tmp_path: Path) -> None:
    r = _search(idx, "--rerank", f"openai-compatible/m@http://127.0.0.1:{closed_port()}/v1",
                "-o", str(tmp_path / "hits.json"))
    assert r.exit_code == 2, r.output
    assert "127.0.0.1" in r.stderr and not (tmp_path / "hits.json").exists() and r.stdout == ""


def test_an_unusable_ranking_is_exit_3(idx: Path) -> None:
    with FakeOpenAIServer(responder=lambda p: "ok" if p == PROBE else "The first one, I think.") as server:
        spec = f"openai-compatible/m@{server.base_url}"
        r = _search(idx, "--rerank", spec)
        assert r.exit_code == 3, r.output
        assert f"reranker {spec}: 1 of 1" in r.stderr and "not a result" in r.stderr
        ok = _search(idx, "--rerank", spec, "--allow-unparseable")
    assert ok.exit_code == 0, ok.output
    assert _titles(ok.stdout) == ["Graph networks", "Robot graph planning"]  # the retrieval order kept, and said
    assert "kept the bm25 order" in ok.stderr


@pytest.mark.parametrize(("args", "flag"), [(["search", "{idx}", "graph", "--retrieval", "sparse"], "--retrieval"),
                                            (["search", "{idx}", "graph", "--limit", "2"], "--limit"),
                                            (["build", "{corpus}", "-o", "{new}", "--ann", "fast"], "--ann")])
def test_bad_values_are_one_line_naming_the_flag(args: list[str], flag: str, idx: Path, tmp_path: Path) -> None:
    paths = {"idx": str(idx), "corpus": str(tmp_path / "c.jsonl"), "new": str(tmp_path / "new")}
    one_line_exit_2(cli("index", *[a.format(**paths) for a in args]), flag)
    assert not (tmp_path / "new").exists()


def test_retrieval_modes_are_declared_once() -> None:
    import typing

    from noveval.index.search import MODES
    from noveval.options import RetrievalMode

    assert typing.get_args(RetrievalMode) == MODES
