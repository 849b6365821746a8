"""``noveval eval -m local --limit 2`` on the shipped samples ends with the table (issue 29, done-when 1).

The bundled SmolLM2-135M runs for real; two systems keep it short (about a minute on two cores).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from noveval.benchmarks._yardsticks import INVENTED
from noveval.cli.main import app

pytestmark = pytest.mark.integration


def test_bundled_model_on_the_samples_ends_with_the_table(tmp_path: Path) -> None:
    out = tmp_path / "eval-local"
    res = CliRunner().invoke(app, ["-q", "eval", "-m", "local", "--sample", "--limit", "2", "--only",
                                   "rinobench,novelty-pairs", "-o", str(out)])
    assert res.exit_code == 0, res.output
    table = res.output[res.output.index("eval · SmolLM2-135M-Instruct-Q4_1 (local) · protocol noveval"):]
    lines = table.splitlines()
    assert lines[1].split() == ["run", "metric", "value", "95%", "CI", "n", "status"]
    runs = [line.split()[:2] for line in lines[2:] if line.startswith("  ") and not line.startswith("   ")]
    assert runs[:2] == [["rinobench", "f1_macro"], ["novelty-pairs", "accuracy"]]
    assert lines[3].startswith("      yardsticks: ")  # beside the run; on the samples no published row
    assert "published:" not in table and INVENTED in res.output
    assert lines[-1].startswith("eval folder: ")
    doc = json.loads((out / "eval.json").read_text(encoding="utf-8"))
    assert doc["model_id"] == "local/SmolLM2-135M-Instruct-Q4_1"
    for row in doc["rows"]:
        assert row["status"] == "complete" and row["n"] == 2, row  # 2 ideas; 2 pairs (each asked both ways)
        assert 0.0 <= row["mean"] <= 1.0
