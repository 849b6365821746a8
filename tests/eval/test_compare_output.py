"""``noveval compare`` leads with its table, names runs by their model, and keeps the settings compact (issue 29 item 4)."""

from __future__ import annotations

import json
from pathlib import Path

from noveval.benchmarks import rinobench
from noveval.compare import compare_runs, format_comparison

GOLD = [1, 2, 3, 4, 5, 3]


def _run(tmp: Path, name: str, model: str, preds: list[int], settings: dict) -> Path:
    """A run folder scored by the real RINoBench scorer, its config.json given a model and settings."""
    gold = tmp / "gold.json"
    if not gold.exists():
        idea = {"objective": "O.", "problem_statement": "P.", "solution_approach": "S."}
        gold.write_text(json.dumps([{"source": f"s{i}", "venueid": "v", "research_idea": idea, "novelty_score": g,
                                     "novelty_reasoning": "r", "related_works": []} for i, g in enumerate(GOLD)]))
    p = tmp / f"{name}.json"
    p.write_text(json.dumps([{"reasoning": "r", "novelty_score": s} for s in preds]))
    out = tmp / name
    rinobench.score_predictions(p, gold, out=out, n_resamples=20)
    for f in ("config.json", "scores.json"):
        doc = json.loads((out / f).read_text())
        doc["model"] = model
        if f == "config.json":
            doc.update(settings)
        (out / f).write_text(json.dumps(doc))
    return out


def test_eight_runs_table_first_model_names_and_one_line_per_setting(tmp_path: Path) -> None:
    specs = [f"openai-compatible/Qwen2.5-{k}B-Instruct@http://gpu{k % 2}:8000/v1" for k in range(8)]
    runs = [_run(tmp_path, f"r{k}", spec, [1 + (i + k) % 5 for i in range(6)],
                 {f"setting_{j}": f"value {k} " + "x" * 60 for j in range(12)} | {"seed": k})
            for k, spec in enumerate(specs)]
    text = format_comparison(compare_runs(runs, n_resamples=200, n_permutations=200))
    lines = text.splitlines()
    assert lines[0].startswith("compare · rinobench · 8 runs")
    assert lines[1].startswith("leaderboard: f1_macro")  # the table comes first
    assert text.index("leaderboard:") < text.index("runs:") < text.index("settings that differ:")
    assert "Qwen2.5-0B-Instruct = " in text and "v1 =" not in text  # named by the model, not the URL's tail
    block = lines[lines.index("settings that differ:") + 1:]
    block = block[:next(i for i, x in enumerate(block) if not x.startswith("  "))]
    # 15 settings differ (predictions, model, setting_0..11, seed): 8 lines and one that says how many more
    assert len(block) == 9 and block[-1] == "  … and 7 more (--json lists them all)"
    assert all(len(x) <= 160 for x in block)
