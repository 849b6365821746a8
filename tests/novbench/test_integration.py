"""End to end with the bundled local model (SmolLM2-135M): generation, scoring, stages 1-3."""

import asyncio
import json
from importlib import resources
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytestmark = pytest.mark.integration

SAMPLES = Path(str(resources.files("noveval.samples").joinpath("novbench/records.json")))


@pytest.fixture(scope="module")
def client():
    from noveval.models import get_client

    return get_client("local", timeout_s=900)


@pytest.fixture(scope="module")
def cli():
    from noveval.cli.main import app

    return app


def test_cli_run_and_score_samples_rag(tmp_path, cli):
    out = tmp_path / "run"
    r = CliRunner().invoke(
        cli,
        ["run", "novbench", "--data", str(SAMPLES), "--out", str(out), "--prompting", "rag",
         "--limit", "2", "--max-tokens", "96", "--no-score"],
    )
    assert r.exit_code == 0, r.output
    rows = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
    assert [x["id"] for x in rows] == ["s1", "s2"]
    assert rows[0]["references"][0] == "Adapter Layers for Multilingual Models"
    r = CliRunner().invoke(
        cli, ["score", "novbench", "--predictions", str(out), "--data", str(SAMPLES), "--clarity", "reference"]
    )
    assert r.exit_code == 0, r.output
    scores = json.loads((out / "scores.json").read_text())
    assert set(scores["metrics"]) >= {"relevance", "coverage", "clarity_reference", "dist_acc"}
    assert scores["metrics"]["relevance"]["n"] == 2
    assert scores["extra"]["human"]["relevance"]["mean"] >= 1.0
    assert "Human" in r.output
    per_item = [json.loads(x) for x in (out / "per_item.jsonl").read_text().splitlines()]
    assert len(per_item) == 2 and all(0.0 <= x["clarity_reference"] <= 1.0 for x in per_item)
    # the run recorded its records file: scoring it needs nothing else (Python and CLI agree)
    import noveval

    same = noveval.score(out, options={"clarity": "reference"})
    for m in ("relevance", "coverage", "clarity_reference", "dist_acc"):
        assert same.metrics[m].mean == pytest.approx(scores["metrics"][m]["mean"]) and same.metrics[m].n == 2
    rj = CliRunner().invoke(cli, ["-q", "score", "novbench", str(out), "--clarity", "reference", "--json"])
    assert rj.exit_code == 0 and json.loads(rj.stdout)["metrics"] == scores["metrics"], rj.output
    # every table names its embedders and perplexity model; a local folder is accepted for
    # Relevance (the paper's SPICED would be passed the same way); here: MiniLM by path
    from noveval.models.embed import bundled_minilm_path

    assert "Models: Relevance embedder:" in r.output and "(paper: SPICED)" in r.output
    assert scores["extra"]["embedder"] == scores["extra"]["relevance_embedder"]
    # issue 35: NovBench's metrics default to MiniLM at its own 256 tokens, recorded as resolved
    assert scores["extra"]["embedder_resolved"]["max_tokens"] == 256 and "embedder_note" not in scores["extra"]
    assert scores["extra"]["perplexity_resolved"] is None  # --clarity reference: no perplexity LM
    folder = str(bundled_minilm_path())
    r = CliRunner().invoke(
        cli, ["score", "novbench", str(out), "--data", str(SAMPLES), "--clarity", "reference",  # positional run folder
              "--relevance-embedder", f"local:{folder}"]
    )
    assert r.exit_code == 0, r.output
    again = json.loads((out / "scores.json").read_text())
    name = Path(folder).name
    assert again["extra"]["relevance_embedder"] == f"local/{name}" != again["extra"]["embedder"]
    assert f"Relevance embedder: local/{name}" in r.output and "Coverage embedder:" in r.output
    # the default runs MiniLM in bf16 where the CPU computes bf16 natively (cosine to fp32 >= 0.9999);
    # by path it runs in fp32, so the two agree exactly only on CPUs without native bf16
    from noveval.models.embed import bf16_native

    tol = 5e-3 if bf16_native() else 1e-5
    assert again["metrics"]["relevance"]["mean"] == pytest.approx(scores["metrics"]["relevance"]["mean"], abs=tol)
    assert again["extra"]["clarity_comparable_to_paper"] is None  # no perplexity: paper Clarity not computed
    from noveval.benchmarks.novbench.views import novbench_tables
    from noveval.report.load import load_run

    [table], _ = novbench_tables([load_run(out)])
    assert f"Relevance embedder: local/{name}" in table.caption and "Eq. 7" in table.caption
    # re-running the finished run makes no new model call (resume + cache)
    r = CliRunner().invoke(
        cli,
        ["run", "novbench", "--data", str(SAMPLES), "--out", str(out), "--prompting", "rag",
         "--limit", "2", "--max-tokens", "96", "--no-score"],
    )
    assert r.exit_code == 0 and "model calls: 0, none failed" in r.output


def test_cli_bad_input_exit_2_and_no_output(tmp_path, cli):
    bad = tmp_path / "bad.json"
    bad.write_text('[{"id": "1", "paper_novelty": []}]', encoding="utf-8")
    out = tmp_path / "never"
    r = CliRunner().invoke(cli, ["run", "novbench", "--data", str(bad), "--out", str(out)])
    assert r.exit_code == 2 and "paper_novelty" in r.output
    assert not out.exists()


def test_stage1_all_strategies_and_stage2_stage3(client, tmp_path):
    from noveval.benchmarks.novbench.data import IntroSentence, ReviewSentence
    from noveval.benchmarks.novbench.pipeline import (
        aextract_descriptions,
        aextract_evaluations,
        astructure,
        classification_metrics,
    )
    from noveval.models import get_embedder

    sents = [
        IntroSentence(paper_id="p", index=0, sentence="Parsing is a core NLP task.", label=0),
        IntroSentence(paper_id="p", index=1, sentence="We propose a new graph rewriting parser.", label=1),
    ]
    for strategy in ("zero-shot", "few-shot", "step-by-step", "context"):
        rows = asyncio.run(aextract_descriptions(client, sents, strategy=strategy, progress=None))
        assert len(rows) == 2 and all(r["pred"] in (0, 1) for r in rows)
        assert classification_metrics(rows)["n"] == 2
    review = [ReviewSentence(id="r1", sentence="The idea is not novel.", label=1)]
    pool = ["The approach is novel.", "Limited novelty.", "The idea is not novel."]
    rows = asyncio.run(
        aextract_evaluations(client, review, strategy="rag", pool=pool, embedder=get_embedder("local"), k=2, progress=None)
    )
    assert rows[0]["examples"] == ["The approach is novel.", "Limited novelty."] or len(rows[0]["examples"]) == 2
    assert "The idea is not novel." not in rows[0]["examples"]
    res = asyncio.run(astructure(client, {"x": ["A new idea.", "Not very new."], "y": []}, max_tokens=96, progress=None))
    assert set(res) == {"x", "y"} and res["y"][1] is None


def test_paper_clarity_with_real_perplexity_and_embedder():
    from noveval.benchmarks.novbench.data import load_records
    from noveval.benchmarks.novbench.scoring import score_human, score_outputs
    from noveval.models import get_embedder
    from noveval.models.perplexity import PerplexityScorer

    recs = load_records(SAMPLES)[:2]
    emb, ppl = get_embedder("local"), PerplexityScorer()
    outputs = {r.id: r.output_format for r in recs}
    rows = score_outputs(recs, outputs, embedder=emb, perplexity=ppl)
    for row in rows:
        assert 0.0 < row["fluency"] < 0.5
        assert row["clarity"] == pytest.approx((row["kc_token"] + row["length_score"] + row["fluency"]) / 3)
        assert row["coverage"] == 1.0 and row["dist_acc"] == 1.0  # gold vs itself
        assert 1.0 <= row["relevance"] <= 5.0
    human = score_human(recs, embedder=emb, perplexity=ppl)
    assert [h["relevance"] for h in human] == pytest.approx([r["relevance"] for r in rows])
