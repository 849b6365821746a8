"""compare and leaderboard refuse runs whose resolved embedders differ (issue 35)."""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import cli, one_line_exit_2
from noveval.compare import compare_runs


def _run(d: Path, embedder: dict | str | None, values: list[float]) -> Path:
    d.mkdir(parents=True)
    config: dict = {"benchmark": "validate"}
    if isinstance(embedder, dict):
        config["embedder_resolved"] = embedder
    elif embedder is not None:
        config["embedder"] = embedder
    scores = {"benchmark": "validate", "metrics": {"x": {"mean": sum(values) / len(values), "n": len(values)}}}
    (d / "config.json").write_text(json.dumps(config))
    (d / "scores.json").write_text(json.dumps(scores))
    (d / "per_item.jsonl").write_text("".join(json.dumps({"id": str(i), "x": v}) + "\n" for i, v in enumerate(values)))
    return d


BF16_256 = {"id": "local/all-MiniLM-L6-v2+bf16", "model": "local/all-MiniLM-L6-v2", "precision": "bf16", "max_tokens": 256}
BF16_128 = {"id": "local/all-MiniLM-L6-v2+bf16@128", "model": "local/all-MiniLM-L6-v2", "precision": "bf16",
            "max_tokens": 128}


def test_compare_refuses_different_resolved_embedders(tmp_path: Path) -> None:
    a = _run(tmp_path / "a", BF16_256, [0.1, 0.2, 0.3])
    b = _run(tmp_path / "b", BF16_128, [0.2, 0.2, 0.4])
    one_line_exit_2(cli("compare", str(a), str(b)), "embedded differently", "local/all-MiniLM-L6-v2+bf16;",
                    "local/all-MiniLM-L6-v2+bf16@128")


def test_a_run_that_recorded_only_a_spec_is_not_joined_with_a_resolved_one(tmp_path: Path) -> None:
    a = _run(tmp_path / "a", BF16_256, [0.1, 0.2, 0.3])
    old = _run(tmp_path / "old", "local", [0.2, 0.2, 0.4])
    one_line_exit_2(cli("compare", str(a), str(old)), "unresolved spec 'local'")


def test_same_resolved_embedder_compares(tmp_path: Path) -> None:
    a = _run(tmp_path / "a", BF16_256, [0.1, 0.2, 0.3])
    b = _run(tmp_path / "b", dict(BF16_256), [0.2, 0.2, 0.4])
    c = _run(tmp_path / "c", None, [0.2, 0.3, 0.4])  # records no embedder: nothing to clash with
    assert len(compare_runs([a, b]).common) == 3
    assert len(compare_runs([a, c]).common) == 3
