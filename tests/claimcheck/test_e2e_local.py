"""End to end with the bundled local model on one real paper and its reviews.

Small on purpose: one extraction chunk, one review, one weakness per task. Every
stage must produce well-formed rows or recorded failures, and be scoreable.
"""

from pathlib import Path

import pytest

from noveval.benchmarks.claimcheck.cv import VERDICTS
from noveval.benchmarks.claimcheck.data import load_fulltext_papers
from noveval.benchmarks.claimcheck.generate import run_task
from noveval.benchmarks.claimcheck.options import ClaimcheckOptions, ClaimcheckScoreOptions
from noveval.benchmarks.claimcheck.scoring import score_run
from noveval.io import read_jsonl

pytestmark = [pytest.mark.integration, pytest.mark.realdata]

GOLD = Path(__file__).parents[1] / "fixtures" / "claimcheck" / "gold_01hPO0uJhS.jsonl"
PAPER_ID = "01hPO0uJhS"
OPTIONS = {"max_tokens": 80, "chunk_chars": 1000, "max_chunks": 1, "context_chars": 800, "timeout": 1500}


@pytest.fixture(scope="module")
def paper(data_dir):
    (p,) = load_fulltext_papers(data_dir, ids=[PAPER_ID])
    return p


def _run(task, tmp_path, data_dir, **kw):
    out = run_task("local", tmp_path / task, ClaimcheckOptions(task=task, data_dir=data_dir, **OPTIONS, **kw))
    rows = read_jsonl(out / "predictions.jsonl")
    assert rows, task
    return out, rows


def test_all_stages_on_a_real_paper(tmp_path, data_dir, paper):
    out, (row,) = _run("extract", tmp_path, data_dir, paper_id=[PAPER_ID])
    assert row["n_chunks"] == 1 and row["n_chunks_total"] > 1
    for c in row["claims"]:
        assert paper.fulltext[c["start"]:c["end"]] == c["text"]
    assert isinstance(row["unverified"], list) and isinstance(row["failures"], list)
    assert score_run(out)["metrics"]["n_claims"]["n"] == 1

    out, (row,) = _run("wi", tmp_path, data_dir, annotations=GOLD, limit_items=1)
    review = paper.reviews[row["review_index"]]
    for w in row["weaknesses"]:
        assert review[w["start"]:w["end"]] == w["text"] and 1 <= w["groundedness"] <= 5
    assert row["error"] is None or not row["weaknesses"]
    assert score_run(out)["metrics"]["f1_edit"]["n"] >= 1

    out, (row,) = _run("ca", tmp_path, data_dir, annotations=GOLD, limit_items=1)
    assert set(row["target_claims"]) <= {f"c{i}" for i in range(1, 8)}
    assert len(row["target_texts"]) <= 3
    assert "f1_exact" in score_run(out)["metrics"]

    out, (row,) = _run("wl", tmp_path, data_dir, annotations=GOLD, limit_items=1)
    if row["objectivity"] is not None:
        assert 1 <= row["objectivity"] <= 5 and 1 <= row["agreement"] <= 5
    else:
        assert row["error"]
    assert "alpha_agreement" in score_run(out)["metrics"]

    out, (row,) = _run("cv", tmp_path, data_dir, annotations=GOLD, limit_items=1)
    (judg,) = read_jsonl(out / "judgments.jsonl")
    assert judg["verdict"] in VERDICTS or judg["error"]
    assert sum((score_run(out)["metrics"][v]["mean"] or 0) for v in VERDICTS) in (0, 1)

    out, (row,) = _run("wle", tmp_path, data_dir, annotations=GOLD, limit_items=1)
    (judg,) = read_jsonl(out / "judgments.jsonl")
    assert (row["revised"] and judg["outcome"] in ("win", "tie", "loss")) or row["error"] or judg["error"]
    m = score_run(out)["metrics"]
    if row["revised"]:
        assert 0 <= m["rouge1_f1"]["mean"] <= 1 and 0 < m["bertscore_f1"]["mean"] <= 1.0001


def test_paper_protocol_with_the_bundled_model(tmp_path, data_dir, paper):
    """WL and WLE under the paper protocol: one shared call per weakness and seed, labels
    and a rewrite from it, related works from the shared corpus, two seeds averaged."""
    kw = dict(max_tokens=200, context_chars=1200, protocol="paper", data_dir=data_dir, annotations=GOLD,
              timeout=1500, limit_items=1, seeds=[0, 42], corpus=data_dir / "corpus" / "papers.jsonl.gz")
    out = run_task("local", tmp_path / "wl", ClaimcheckOptions(task="wl", **kw))
    rows = read_jsonl(out / "predictions.jsonl")
    assert [r["seed"] for r in rows] == [0, 42]
    for r in rows:
        assert (r["failure"] is None and 1 <= r["agreement"] <= 5 and r["revised"]) or r["failure"]
    wl = score_run(out)
    assert wl["protocol"] == "paper" and wl["seeds"] == [0, 42] and "per_seed" in wl["metrics"]["failed"]
    out = run_task("local", tmp_path / "wle", ClaimcheckOptions(task="wle", **kw))
    wle_rows = read_jsonl(out / "predictions.jsonl")
    # the same requests as WL: answered by the cache, identical rewrites
    assert [r.get("revised") for r in wle_rows] == [r.get("revised") for r in rows]
    scores = score_run(out, ClaimcheckScoreOptions(bertscore=False))
    assert scores["judge"] == scores["model"] and "model under test" in scores["judge_note"] and "person" in scores["judge_note"]
    total = sum(scores["metrics"][k]["mean"] for k in ("win", "tie", "loss", "failed"))
    assert abs(total - 1.0) < 1e-9
