"""``noveval run claimcheck --task wl --samples N``: weakness labels voted over N samples (issue 18).

The model is a real client against a local HTTP server (tests/claimcheck/fake.py) whose
labels depend on the request's seed, so the samples disagree in a known way.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from noveval.benchmarks.claimcheck.generate import arun_task
from noveval.benchmarks.claimcheck.options import ClaimcheckOptions
from noveval.benchmarks.claimcheck.scoring import score_run
from noveval.benchmarks.claimcheck.wl import combine_samples
from noveval.errors import InputError
from noveval.io import read_jsonl

from .fake import REQUEST, FakeClient
from .test_protocols import ANNS, INPUTS, PAPERS, SAMPLE
from .test_tasks_offline import _app
from .test_tasks_offline import reply as base_reply


def _labels(objectivity: int, agreement: int, *types: str) -> dict[str, Any]:
    return {"reasoning": f"seed {REQUEST.seed}", "objectivity": objectivity, "agreement": agreement,
            "types": {t: True for t in types}}


def seeded_labels(prompt: str) -> dict[str, Any] | str:
    """WL labels by seed: 0 (2, 3, clarity), 1 (4, 3, novelty), 2 not JSON, 3 (3, 1, novelty)."""
    if "Label this weakness" not in prompt and "could not be used" not in prompt:  # a task prompt or a re-ask
        return base_reply(prompt)
    return {0: _labels(2, 3, "clarity"), 1: _labels(4, 3, "novelty"), 2: "no labels from me",
            3: _labels(3, 1, "novelty")}[REQUEST.seed % 4]


def run_wl(tmp_path: Path, client: Any, name: str, **options: Any) -> tuple[Path, list[dict]]:
    out = asyncio.run(arun_task(tmp_path / name, ClaimcheckOptions(task="wl", **options), papers=PAPERS,
                                annotations=ANNS, client=client, inputs=INPUTS))
    return out, read_jsonl(out / "predictions.jsonl")


def test_four_samples_vote_by_hand_and_a_second_run_asks_only_the_unusable(tmp_path: Path) -> None:
    client = FakeClient(seeded_labels, cache_path=tmp_path / "cache.sqlite")
    out, rows = run_wl(tmp_path, client, "x4", samples=4)
    assert rows
    for r in rows:
        assert [s["seed"] for s in r["samples"]] == [0, 1, 2, 3]
        assert [s["failure"] for s in r["samples"]] == [None, None, "unparseable", None]
        # objectivity 2, 4, -, 3: a three-way tie, the mean 3 is one of them -> 3, 1 of 4 samples
        assert r["objectivity"] == 3 and r["self_consistency_objectivity"] == pytest.approx(0.25)
        # agreement 3, 3, -, 1 -> 3, 2 of 4
        assert r["agreement"] == 3 and r["self_consistency_agreement"] == pytest.approx(0.5)
        # types {clarity}, {novelty}, -, {novelty} -> {novelty}, 2 of 4
        assert r["types"] == ["novelty"] and r["self_consistency_types"] == pytest.approx(0.5)
        assert r["self_consistency"] == pytest.approx((0.25 + 0.5 + 0.5) / 3)
        # no sample gave all three voted labels: the row is the first parsed sample's (its reasoning)
        assert r["reasoning"] == "seed 0" and r["failure"] is None and r["error"] is None and r["no_type"] is False
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["options"]["samples"] == 4
    scores = score_run(out)
    m = scores["metrics"]["self_consistency"]
    scored = read_jsonl(out / "per_item.jsonl")
    assert m["mean"] == pytest.approx(1.25 / 3) and m["n"] == len(scored)
    sc = scores["extra"]["self_consistency"]
    assert sc["samples"] == 4 and sc["n"] == len(rows) and sc["unanimous"] == 0.0
    assert (sc["objectivity"], sc["agreement"], sc["types"]) == (pytest.approx(0.25), pytest.approx(0.5),
                                                                  pytest.approx(0.5))
    # the report's WL table shows it beside the alphas
    from noveval.report.build import build_report

    (cc,) = build_report([out]).benchmarks
    wl = next(t for t in cc.tables if t.title.startswith("Table 5"))
    assert wl.rows[0][1][wl.header.index("Self-consistency")].value == pytest.approx(1.25 / 3)
    # every good sample (different seeds, different cache keys) is in the cache; seed 2's unparseable answer and
    # its re-ask are never served from it (issue 34): a fresh run folder asks exactly those two calls per item
    calls = client.server.total
    _, again = run_wl(tmp_path, client, "x4-again", samples=4)
    assert client.server.total == calls + 2 * len(rows)
    assert [r["samples"] for r in again] == [r["samples"] for r in rows]


def test_one_sample_writes_what_it_always_did(tmp_path: Path) -> None:
    bodies: list[int] = []

    def reply(prompt: str) -> dict[str, Any] | str:
        if "Label this weakness" in prompt:
            bodies.append(REQUEST.seed)
        return seeded_labels(prompt)

    out, rows = run_wl(tmp_path, FakeClient(reply), "x1")
    assert set(bodies) == {0}
    assert "samples" not in json.loads((out / "config.json").read_text())["options"]
    assert all(not {"samples", "self_consistency"} & set(r) for r in rows)
    assert all((r["objectivity"], r["agreement"], r["types"]) == (2, 3, ["clarity"]) for r in rows)
    scores = score_run(out)
    assert "self_consistency" not in scores["metrics"] and "self_consistency" not in scores["extra"]


def test_combine_samples_fails_the_item_on_a_failed_call() -> None:
    ok = {"id": "w", "objectivity": 4, "agreement": 2, "types": ["other"], "no_type": False, "reasoning": "r",
          "error": None, "failure": None}
    bad = {**ok, "objectivity": None, "agreement": None, "types": [], "no_type": None, "reasoning": None,
           "error": "model call failed: HTTP 500", "failure": "call"}
    row = combine_samples([ok, bad, ok], [0, 1, 2])
    assert row["failure"] == "call" and row["error"] == "model call failed: HTTP 500"
    assert row["objectivity"] is None and row["self_consistency"] is None
    assert [s["failure"] for s in row["samples"]] == [None, "call", None]
    unparsed = {**bad, "error": "not JSON", "failure": "unparseable"}
    row = combine_samples([unparsed, unparsed], [0, 1])
    assert row["failure"] == "unparseable" and row["self_consistency"] is None


@pytest.mark.parametrize(("task", "options", "field"), [
    ("wl", {"samples": 3, "temperature": 0.0}, "options.samples"),
    ("ca", {"samples": 2}, "options.samples"),
])
def test_refused_before_anything_is_written(tmp_path: Path, task: str, options: dict, field: str) -> None:
    with pytest.raises(InputError) as err:
        asyncio.run(arun_task(tmp_path / "x", ClaimcheckOptions(task=task, **options),  # type: ignore[arg-type]
                              papers=PAPERS, annotations=ANNS, client=FakeClient(seeded_labels)))
    assert err.value.field == field
    assert not (tmp_path / "x").exists()


def test_seeds_closer_than_the_samples_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="overlap"):
        asyncio.run(arun_task(tmp_path / "x", ClaimcheckOptions(task="wl", samples=3, seeds=[0, 2]),
                              papers=PAPERS, annotations=ANNS, client=FakeClient(seeded_labels)))
    assert not (tmp_path / "x").exists()


def test_cli_refuses_samples_at_temperature_zero(tmp_path: Path) -> None:
    out = tmp_path / "x"
    res = CliRunner().invoke(_app(), ["run", "--task", "wl", "-o", str(out), "--papers", str(SAMPLE / "papers.json"),
                                      "-a", str(SAMPLE / "annotations.jsonl"), "--samples", "3", "--temperature", "0"])
    assert res.exit_code == 2
    assert "--samples" in res.output and "temperature 0" in res.output
    assert not out.exists()


@pytest.mark.integration
def test_bundled_model_three_samples(tmp_path: Path) -> None:
    """``-m local``: one weakness labelled three times; the row is the vote of its samples."""
    from noveval.cli.main import app

    out = tmp_path / "wl3"
    args = ["-q", "run", "claimcheck", "--task", "wl", "-o", str(out), "--papers", str(SAMPLE / "papers.json"),
            "-a", str(SAMPLE / "annotations.jsonl"), "--limit-items", "1", "--max-tokens", "200",
            "--context-chars", "1500", "--samples", "3", "--allow-failures", "--timeout", "600"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    (row,) = read_jsonl(out / "predictions.jsonl")
    assert [s["seed"] for s in row["samples"]] == [0, 1, 2]
    assert combine_samples([{**s, "id": row["id"], "no_type": None, "reasoning": None,
                             "error": None if s["failure"] is None else "x"} for s in row["samples"]],
                           [0, 1, 2])["objectivity"] == row["objectivity"]
    assert json.loads((out / "config.json").read_text())["options"]["samples"] == 3
    res = CliRunner().invoke(app, args)  # the same command again: all done, all cached
    assert res.exit_code == 0 and "model calls: 0" in res.stdout, res.output
    assert CliRunner().invoke(app, ["-q", "score", "claimcheck", str(out)]).exit_code == 0
    scores = json.loads((out / "scores.json").read_text())
    assert scores["metrics"]["self_consistency"]["mean"] == pytest.approx(row["self_consistency"])
