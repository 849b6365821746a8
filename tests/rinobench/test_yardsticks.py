"""`noveval score rinobench` on a released prediction file writes and prints the yardsticks and Table 3 (issue 29).

The gold test.json is not in ../shared/data. The realdata test scores the released GPT-5
predictions against a gold vector reconstructed from Table 2's class counts and the
authors' released evaluation files (:func:`.test_realdata._reconstruct_gold`): the
published macro-F1 and MAE come out exactly, and the yardsticks are those of the test
set's class counts (15/60/87/81/34). Without the shared data the shipped sample's gold is
used instead (:func:`test_score_writes_yardsticks_on_the_shipped_sample`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from noveval.cli.main import app

from .conftest import SAMPLES, make_gold


def _cli(tmp_path: Path, *args: str):
    return CliRunner(env={"NOVEVAL_CACHE_DIR": str(tmp_path / "cache")}).invoke(app, ["-q", *args])


def test_score_writes_yardsticks_on_the_shipped_sample(tmp_path: Path) -> None:
    """Shipped sample gold (scores 2, 3, 4, 5): written to scores.json with the run folder."""
    preds = tmp_path / "p.json"
    preds.write_text(json.dumps([{"reasoning": "r", "novelty_score": s} for s in (3, 3, 4, 4)]), encoding="utf-8")
    r = _cli(tmp_path, "score", "rinobench", str(preds), "--gold", str(SAMPLES / "test.json"), "-o", str(tmp_path / "run"))
    assert r.exit_code == 0, r.output
    s = json.loads((tmp_path / "run" / "scores.json").read_text())
    names = [y["name"] for y in s["baselines"]["f1_macro"]]
    assert names == ["uniform random", "class-frequency random", "majority class (always 2)"]
    assert s["baselines"]["mean_absolute_error"][0] == {**s["baselines"]["mean_absolute_error"][0],
                                                         "name": "best constant answer (3)", "value": 1.0}
    assert len(s["published"]) == 7 * 7  # Table 3: F1 macro and 1-5, MAE (no judge: no justification rows)
    assert "vs uniform random" in r.stdout and "best constant answer (3) 1.000" in r.stdout


@pytest.mark.realdata
def test_released_gpt5_predictions_print_and_write_yardsticks_and_table_3(data_dir: Path, tmp_path: Path) -> None:
    from noveval.benchmarks.rinobench import load_predictions

    from .test_realdata import PUBLISHED, _reconstruct_gold

    folder = data_dir / "rinobench" / "predictions"
    preds = {m: [int(p.novelty_score) for p in load_predictions(folder / f"novelty_predictions-{m}.json")]  # type: ignore[arg-type]
             for m in PUBLISHED}
    items = make_gold(277, seed=0)
    for it, g in zip(items, _reconstruct_gold(preds), strict=True):
        it["novelty_score"] = g
    gold = tmp_path / "test.json"
    gold.write_text(json.dumps(items), encoding="utf-8")
    gpt5 = folder / "novelty_predictions-gpt-5-2025-08-07.json"
    r = _cli(tmp_path, "score", "rinobench", str(gpt5), "--gold", str(gold), "-o", str(tmp_path / "run"))
    assert r.exit_code == 0, r.output
    s = json.loads((tmp_path / "run" / "scores.json").read_text())
    assert s["metrics"]["f1_macro"]["mean"] == PUBLISHED["gpt-5-2025-08-07"][0]["macro"]  # 17.2 in Table 3
    mae = {y["name"]: y for y in s["baselines"]["mean_absolute_error"]}
    assert round(mae["best constant answer (3)"]["value"], 4) == 0.8628  # 239 / 277
    f1 = {y["name"]: y for y in s["baselines"]["f1_macro"]}
    assert round(f1["uniform random"]["value"], 3) == 0.185
    strat = f1["class-frequency random"]
    assert round(strat["value"], 3) == 0.199 and strat["ci_low"] < 0.172 < strat["ci_high"]  # GPT-5 inside chance
    table3 = {(row["model"], row["metric"]): row["value"] for row in s["published"]}
    assert table3[("GPT-5", "f1_macro")] == 0.172 and table3[("GPT-5", "mean_absolute_error")] == 0.93
    assert {m for m, _ in table3} == {"Llama-3.1-8B", "Llama-3.3-70B", "Llama-4-Scout", "GPT-OSS-120B",
                                      "DeepSeek-R1", "o3", "GPT-5"}
    out = r.stdout
    assert "f1_macro * 0.172 vs uniform random 0.185" in out and "class-frequency random 0.199 [" in out
    assert "best constant answer (3) 0.863" in out and "paper (Table 3): GPT-5 0.172" in out
