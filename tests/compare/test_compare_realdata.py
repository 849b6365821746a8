"""`noveval compare` on two released RINoBench prediction files, scored against the reconstructed gold."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from noveval.benchmarks import rinobench
from noveval.benchmarks.rinobench import load_predictions
from noveval.compare import compare_runs
from rinobench.conftest import make_gold  # tests/ is on pythonpath
from rinobench.test_realdata import PUBLISHED, _reconstruct_gold


@pytest.mark.realdata
def test_released_predictions_compare(data_dir: Path, tmp_path: Path) -> None:
    """The paired difference is the published one (any feasible gold reproduces every published
    F1/MAE); the test finds gpt-5 above Llama-3.3-70B and gpt-5 indistinguishable from o3."""
    folder = data_dir / "rinobench" / "predictions"
    files = {m: folder / f"novelty_predictions-{m}.json" for m in PUBLISHED}
    preds = {m: [int(p.novelty_score) for p in load_predictions(f)] for m, f in files.items()}  # type: ignore[arg-type]
    items = make_gold(277, seed=0)
    for it, g in zip(items, _reconstruct_gold(preds), strict=True):
        it["novelty_score"] = g
    gold = tmp_path / "test.json"
    gold.write_text(json.dumps(items), encoding="utf-8")
    runs = {}
    for m in ("Llama-3.3-70B-Instruct", "o3-2025-04-16", "gpt-5-2025-08-07"):
        runs[m] = tmp_path / m
        rinobench.score_predictions(files[m], gold, out=runs[m], n_resamples=20)
    low, mid, top = (runs[m] for m in ("Llama-3.3-70B-Instruct", "o3-2025-04-16", "gpt-5-2025-08-07"))

    c = compare_runs([low, top], n_resamples=2000, n_permutations=2000)
    m = {x.name: x.result for x in c.metrics}
    pub_low, pub_top = PUBLISHED["Llama-3.3-70B-Instruct"], PUBLISHED["gpt-5-2025-08-07"]
    assert m["f1_macro"].difference == pytest.approx(pub_top[0]["macro"] - pub_low[0]["macro"], abs=1e-12)
    assert m["mean_absolute_error"].difference == pytest.approx(pub_top[1] - pub_low[1], abs=1e-12)
    assert m["f1_macro"].n == 277 and m["f1_macro"].p_value < 0.01 and m["f1_macro"].ci_low > 0

    c3 = compare_runs([low, mid, top], n_resamples=2000, n_permutations=2000)
    lb = c3.leaderboards[0]
    assert [r.label for r in lb.rows] == [f"novelty_predictions-{m}" for m in ("gpt-5-2025-08-07", "o3-2025-04-16",
                                                                          "Llama-3.3-70B-Instruct")]
    assert not lb.rows[1].significant and lb.rows[1].p_holm > 0.2  # o3: within noise of gpt-5
    assert lb.rows[2].significant  # Llama-3.3-70B: below it after Holm
