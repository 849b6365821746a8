"""End to end with the bundled local model on 3 NeurIPS 2024 papers (realdata + integration)."""

import json

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.realdata, pytest.mark.slow]


def test_focus_end_to_end(data_dir, tmp_path):
    from noveval.benchmarks.focus import run_focus, score_run

    papers = data_dir / "reviews" / "neurips-2024.jsonl.gz"
    out = tmp_path / "run"
    scores = run_focus(papers, out, model="local", limit=3, max_reviews=1, max_tokens=200,
                       max_input_tokens=600)
    for name in ("config.json", "predictions.jsonl", "judgments.jsonl", "per_item.jsonl",
                 "scores.json", "focus.png"):
        assert (out / name).exists(), name
    assert scores["primary_metric"] == "kl_mean" and scores["greater_is_better"] is False
    preds = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
    assert len(preds) == 3 and all("rule" in p["truncation"] for p in preds)
    judg = [json.loads(x) for x in (out / "judgments.jsonl").read_text().splitlines()]
    assert any(j["source"] == "human" for j in judg)
    # labels are always from the label set or a recorded failure
    for j in judg:
        assert (j["target"] is not None and j["aspect"] is not None) or j["error"]
    extra = scores["extra"]
    for side in ("human", "model"):
        for dist in extra["distributions"][side].values():
            assert sum(dist) == pytest.approx(1.0) or sum(dist) == 0
    assert 0 <= scores["metrics"]["kl_mean"]["mean"] < 50
    # re-scoring makes no model calls and gives the same numbers
    again = score_run(out)
    assert again["metrics"]["f1_overall"] == scores["metrics"]["f1_overall"]
    # resuming the same run makes zero model calls (everything cached / done)
    run_focus(papers, out, model="local", limit=3, max_reviews=1, max_tokens=200,
              max_input_tokens=600)
