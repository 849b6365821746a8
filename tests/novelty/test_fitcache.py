import multiprocessing as mp

import pytest

from noveval.novelty.fitcache import FitCache


def _writer(path: str, start: int) -> None:
    c = FitCache(path)
    for i in range(start, start + 50):
        c[f"k{i}"] = i / 7


def test_roundtrip_persists_and_misses_raise(tmp_path):
    p = tmp_path / "fits.sqlite"
    c = FitCache(p)
    assert "a" not in c and c.get("a") is None and len(c) == 0
    with pytest.raises(KeyError):
        c["a"]
    c["a"] = 1.25
    c["a"] = 2.5  # replace, not duplicate
    c.close()
    again = FitCache(p)
    assert again["a"] == 2.5 and "a" in again and len(again) == 1
    assert 3 not in again  # non-string keys are never present


def test_two_processes_share_one_file(tmp_path):
    p = str(tmp_path / "fits.sqlite")
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(p, s)) for s in (0, 50)]
    for pr in procs:
        pr.start()
    for pr in procs:
        pr.join(60)
        assert pr.exitcode == 0
    c = FitCache(p)
    assert len(c) == 100
    assert c["k77"] == pytest.approx(77 / 7, rel=0, abs=0)
