"""`--protocol paper`: the released predict_novelty.py set-up, recorded in config and scores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from noveval.benchmarks.rinobench import load_items
from noveval.benchmarks.rinobench.data import DEFAULT_RUBRIC
from noveval.benchmarks.rinobench.generate import build_request, protocol_params


def test_protocol_params() -> None:
    assert protocol_params("noveval") == {"protocol": "noveval", "prompt": "judge_novelty", "temperature": 0.0, "structured": True}
    assert protocol_params("noveval", structured=False)["structured"] is False
    # the released script samples at temperature 1 and reads JSON from free text
    assert protocol_params("paper") == {"protocol": "paper", "prompt": "judge_novelty_paper", "temperature": 1.0, "structured": False}
    assert protocol_params("paper", structured=True)["structured"] is False
    with pytest.raises(ValueError, match="protocol"):
        protocol_params("released")


def test_paper_request_asks_for_two_to_four_sentences(sample_gold: Path) -> None:
    item = load_items(sample_gold)[0]
    p = protocol_params("paper")
    req = build_request(item, DEFAULT_RUBRIC, structured=p["structured"], temperature=p["temperature"], prompt=p["prompt"])
    system, user = req.messages[0]["content"], req.messages[1]["content"]
    assert "researcher" in system
    assert "2-4 sentences" in user and '"novelty_score"' in user
    assert DEFAULT_RUBRIC[5] in user and item.related_works[0].title.strip() in user
    assert req.params.temperature == 1.0 and req.params.json_schema is None
    ours = build_request(item, DEFAULT_RUBRIC)
    assert ours.params.temperature == 0.0 and ours.params.json_schema is not None
    assert "2-4 sentences" not in ours.messages[1]["content"]


@pytest.mark.integration
def test_cli_run_protocol_paper_is_recorded(tmp_path: Path, sample_gold: Path) -> None:
    from noveval.cli.main import app

    out = tmp_path / "run"
    res = CliRunner().invoke(
        app, ["run", "rinobench", "--out", str(out), "--items", str(sample_gold), "-n", "1", "--protocol", "paper", "--max-tokens", "96",
              "--allow-unparseable"]  # whether the 135M model's free text parses differs between CPUs
    )
    assert res.exit_code == 0, res.output
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["protocol"] == "paper"
    assert cfg["params"]["temperature"] == 1.0 and cfg["params"]["structured"] is False
    assert cfg["params"]["prompt"] == "judge_novelty_paper" and "judge_novelty_paper" in cfg["prompts"]
    s = json.loads((out / "scores.json").read_text())
    assert s["extra"]["protocol"] == "paper"
    assert "protocol: paper" in res.output
    # re-scoring the run's predictions finds the protocol in the run's config
    from noveval.benchmarks import rinobench

    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps(json.loads(sample_gold.read_text())[:1]))
    again = rinobench.score_predictions(out / "predictions.jsonl", gold, n_resamples=20)
    assert again["extra"]["protocol"] == "paper"


def test_bad_protocol_is_input_error(tmp_path: Path, sample_gold: Path) -> None:
    from noveval.cli.main import app

    out = tmp_path / "run"
    res = CliRunner().invoke(app, ["run", "rinobench", "--out", str(out), "--items", str(sample_gold), "--protocol", "released"])
    assert res.exit_code == 2 and "--protocol" in res.output
    assert not out.exists()
