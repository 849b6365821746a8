"""Task plumbing, scoring, WLE blinding and the CLI with a scripted client (no model)."""

import asyncio
import csv
import json

import pytest
import typer
from typer.testing import CliRunner

from noveval.benchmarks.claimcheck import cli
from noveval.benchmarks.claimcheck.data import load_annotations, load_papers_file, sample_dir
from noveval.benchmarks.claimcheck.generate import arun_task
from noveval.benchmarks.claimcheck.options import ClaimcheckOptions, ClaimcheckScoreOptions
from noveval.benchmarks.claimcheck.scoring import score_run
from noveval.benchmarks.claimcheck.wle import (
    export_pairs_csv,
    import_human_choices,
    outcome_of,
    presentation_order,
)
from noveval.errors import InputError
from noveval.models.openai_compat import PROBE_PROMPT

from .fake import FakeClient

SAMPLE = sample_dir()
PAPERS = load_papers_file(SAMPLE / "papers.json")
ANNS = load_annotations(SAMPLE / "annotations.jsonl", papers=PAPERS)
REVIEW = PAPERS["sample-sea"].reviews[0]


def reply(prompt: str) -> dict | str:
    if prompt == PROBE_PROMPT:  # the endpoint check before the first real call
        return "OK"
    if "scientific claim" in prompt:
        return {"claims": ["SEA reduces memory use by 40% on documents of 16k tokens.",
                           "SEA is the best model ever."]}
    if "claim-related weaknesses" in prompt:
        return {"weaknesses": [
            {"text": "All results come from a single random seed, so the 2.1 point ROUGE-L "
                     "gain on arXiv may not be significant.", "groundedness": 4},
            {"text": "The  statement that salient-token reuse is the key factor is not supported",
             "groundedness": 5},
            {"text": "This sentence is not in the review.", "groundedness": 2}]}
    if "Choose the target claims" in prompt:
        return {"reasoning": "r", "target_claims": [4, 2, 99, 3], "custom_claim": None}
    if "Label this weakness" in prompt:
        return {"reasoning": "r", "objectivity": 5, "agreement": 4,
                "types": {"insufficient": True, "novelty": False}}
    if "Restate, in your own words" in prompt:
        return {"evidence": ["Table 1 reports ROUGE-L."], "weakness": "distilled"}
    if "This claim has at least one weakness" in prompt:
        return {"evidence": ["made up quote"], "weakness": "own",
                "types": {"insufficient": True}}
    if "Two weaknesses were written" in prompt:
        return {"reasoning": "r", "verdict": "similar"}
    if "Rewrite this weakness" in prompt:
        return {"reasoning": "r", "revised_weakness": "More specific: see Table 1, arXiv row."}
    if "Which version gives more specific" in prompt:
        return {"reasoning": "r", "preference": "A"}
    raise AssertionError(prompt[:200])


def run(task, tmp_path, client=None, **kw):
    client = client or FakeClient(reply)
    out = asyncio.run(arun_task(tmp_path / task, ClaimcheckOptions(task=task, **kw), papers=PAPERS,
                                annotations=None if task == "extract" else ANNS,
                                client=client, inputs={"papers_file": str(SAMPLE / "papers.json"),
                                "annotations": str(SAMPLE / "annotations.jsonl")}))
    rows = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
    return out, rows, client


def test_extract_verifies_and_records(tmp_path):
    out, rows, _ = run("extract", tmp_path)
    (row,) = rows
    assert [c["id"] for c in row["claims"]] == ["c1"]
    assert row["unverified"] and row["unverified"][0]["text"] == "SEA is the best model ever."
    scores = score_run(out)
    assert scores["metrics"]["verified_rate"]["mean"] == pytest.approx(0.5)


def test_wi_offsets_and_score(tmp_path):
    out, rows, _ = run("wi", tmp_path)
    (row,) = rows
    assert len(row["weaknesses"]) == 2 and len(row["unverified"]) == 1
    for w in row["weaknesses"]:
        assert REVIEW[w["start"]:w["end"]] == w["text"]
    scores = score_run(out)
    m = scores["metrics"]
    # vs ann1 (5 gold) and ann2 (4 gold): one exact match each -> 2 / (4 pred, 9 gold)
    assert m["f1_exact"]["mean"] == pytest.approx(2 * (2 / 4) * (2 / 9) / (2 / 4 + 2 / 9))
    assert m["f1_exact"]["mean"] < m["f1_edit"]["mean"] < 1


def test_ca_limits_and_score(tmp_path):
    out, rows, _ = run("ca", tmp_path)
    first = rows[0]
    assert first["target_claims"] == ["c4", "c2", "c3"] and first["invalid"] == [99]
    scores = score_run(out)
    assert 0 < scores["metrics"]["f1_exact"]["mean"] < 1
    assert len(scores["metrics"]["f1_exact"]) == 4


def test_wl_alpha(tmp_path):
    out, rows, _ = run("wl", tmp_path)
    assert rows[0]["types"] == ["insufficient"]
    m = score_run(out)["metrics"]
    assert "alpha_agreement" in m and "alpha_novelty" in m


def test_cv_and_wle(tmp_path):
    out, rows, client = run("cv", tmp_path)
    assert rows[0]["reviewer_evidence_verified"] == [True]
    assert rows[0]["model_evidence_verified"] == [False]
    m = score_run(out)["metrics"]
    assert m["similar"]["mean"] == 1.0 and m["same"]["mean"] == 0.0
    out, rows, _ = run("wle", tmp_path)
    assert all(r["revised"] for r in rows)
    judg = [json.loads(x) for x in (out / "judgments.jsonl").read_text().splitlines()]
    for j in judg:
        assert j["outcome"] == ("win" if j["revised_is_a"] else "loss")
    m = score_run(out, ClaimcheckScoreOptions(bertscore=False))["metrics"]
    assert m["win"]["mean"] + m["loss"]["mean"] == pytest.approx(1.0)
    assert 0 < m["rouge1_f1"]["mean"] < 1


def test_resume_makes_no_new_calls(tmp_path):
    _, _, client = run("wl", tmp_path)
    seen = client.server.total
    assert seen > 0
    run("wl", tmp_path, client=client)
    assert client.server.total == seen


def test_presentation_order_is_seeded_and_mixed():
    ids = [f"item{i}" for i in range(200)]
    first = [presentation_order(i, 0) for i in ids]
    assert first == [presentation_order(i, 0) for i in ids]
    assert 60 < sum(first) < 140
    assert first != [presentation_order(i, 1) for i in ids]
    assert outcome_of("A", True) == "win" and outcome_of("b", True) == "loss"
    assert outcome_of("tie", False) == "tie"
    with pytest.raises(ValueError):
        outcome_of("C", True)


def test_wle_csv_roundtrip(tmp_path):
    rows = [{"id": f"w{i}", "original": f"orig {i}", "revised": f"rev {i}",
             "target_claims": ["claim"]} for i in range(6)]
    rows.append({"id": "w-none", "original": "o", "revised": None})
    path, key = export_pairs_csv(rows, tmp_path / "pairs.csv", seed=3)
    with open(path, newline="") as fh:
        table = list(csv.DictReader(fh))
    assert len(table) == 6 and "revised" not in "".join(table[0].keys())
    for rec in table:  # a judge who always prefers the revision
        rec["choice"] = "A" if rec["weakness_A"].startswith("rev") else "B"
    table[0]["choice"] = "tie"
    table[1]["choice"] = ""
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(table[0]))
        w.writeheader()
        w.writerows(table)
    got = import_human_choices(path)
    assert len(got) == 5
    assert [g["outcome"] for g in got] == ["tie", "win", "win", "win", "win"]
    table[2]["choice"] = "maybe"
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(table[0]))
        w.writeheader()
        w.writerows(table)
    with pytest.raises(InputError) as err:
        import_human_choices(path)
    assert err.value.line == 4 and err.value.field == "choice"


def _app() -> typer.Typer:
    """``noveval run claimcheck`` (generated from the options), ``score claimcheck`` and the extra commands."""
    from noveval.benchmarks.claimcheck import BENCHMARK
    from noveval.cli.generate import make_run_command

    app = typer.Typer()
    app.command("run")(make_run_command(BENCHMARK))
    app.command("score")(cli.score)
    app.add_typer(cli.app, name="claimcheck")
    return app


def test_cli_agreement_and_errors(tmp_path):
    runner = CliRunner()
    res = runner.invoke(_app(), ["claimcheck", "agreement", str(SAMPLE / "annotations.jsonl"),
                                 "--papers", str(SAMPLE / "papers.json"), "-o", str(tmp_path / "a.json")])
    assert res.exit_code == 0, res.output
    report = json.loads((tmp_path / "a.json").read_text())
    assert report["wi"]["exact"]["humans_only"]["mean"] == pytest.approx(2 / 3)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"paper_id": "sample-sea"}\n')
    res = runner.invoke(_app(), ["claimcheck", "agreement", str(bad), "--papers",
                                 str(SAMPLE / "papers.json")])
    assert res.exit_code == 2
    res = runner.invoke(_app(), ["run", "--task", "nope", "--out", str(tmp_path / "x")])
    assert res.exit_code == 2 and not (tmp_path / "x").exists()


def test_model_as_extra_annotator(tmp_path):
    from noveval.benchmarks.claimcheck.agreement import agreement_report
    from noveval.benchmarks.claimcheck.generate import predictions_to_annotations, wi_to_annotations
    from noveval.io import write_jsonl

    _, ca_rows, _ = run("ca", tmp_path)
    _, wl_rows, _ = run("wl", tmp_path)
    _, wi_rows, _ = run("wi", tmp_path)
    recs = predictions_to_annotations(ANNS[:1], annotator="fake", ca_rows=ca_rows, wl_rows=wl_rows)
    write_jsonl(tmp_path / "m.jsonl", recs)
    model = load_annotations(tmp_path / "m.jsonl", papers=PAPERS)
    report = agreement_report(ANNS, model_records=model)
    assert report["ca"]["exact"]["with_model"]["per_annotator"]["fake"] == report["ca"]["exact"]["model_individual"]
    assert report["wl"]["with_model"]["insufficient"] is not None
    write_jsonl(tmp_path / "wi.jsonl", wi_to_annotations(wi_rows, annotator="fake"))
    wi_model = load_annotations(tmp_path / "wi.jsonl", papers=PAPERS)
    rep = agreement_report(ANNS, model_records=wi_model)
    assert rep["wi"]["exact"]["humans_only"]["mean"] == pytest.approx(2 / 3)
    assert 0 < rep["wi"]["edit"]["model_individual"] < rep["wi"]["edit"]["humans_only"]["mean"]


def test_python_api_takes_a_client_and_scores_from_the_run_folder(tmp_path):
    """``noveval.run`` with a ready client (not only a spec): the sample and its annotations by default;
    the run records its inputs, so ``noveval.score`` needs nothing else."""
    import noveval

    client = FakeClient(reply)
    run = noveval.run("claimcheck", client, tmp_path / "wl", options={"task": "wl", "limit_items": 2})
    assert run.complete
    cfg = json.loads((run.path / "config.json").read_text())
    assert cfg["model"] == client.model_id
    assert cfg["inputs"]["papers_file"].endswith("papers.json") and cfg["inputs"]["annotations"].endswith(
        "annotations.jsonl")
    written = json.loads((run.path / "scores.json").read_text())
    again = noveval.score(run.path)
    assert again.primary_metric == written["primary_metric"] == "alpha_agreement"
    # the scripted model answers agreement 4 for every weakness: exact where the gold says 4
    expected = sum(g["agreement"] == 4 for g in _gold_labels(2)) / 2
    assert again.metrics["agreement_exact"].mean == written["metrics"]["agreement_exact"]["mean"] == expected
    with pytest.raises(InputError) as err:
        noveval.run("claimcheck", client, tmp_path / "x", options={"task": "wl", "samples": 2, "temperature": 0})
    assert err.value.field == "options.samples" and not (tmp_path / "x").exists()


def _gold_labels(n: int) -> list[dict]:
    from noveval.benchmarks.claimcheck.items import weakness_items

    return [it.gold_labels for it in weakness_items(ANNS)[:n]]


def test_demo_runs_every_task_on_the_sample(tmp_path, monkeypatch):
    import noveval.models.client
    from noveval.benchmarks import BENCHMARKS, load
    from noveval.benchmarks._runner import run_benchmark

    monkeypatch.setattr(noveval.models.client, "get_client", lambda *a, **k: FakeClient(reply))
    bench = BENCHMARKS["claimcheck"]
    assert bench.demo is not None
    todo = load(bench.demo)(model="local", embedder="none", real=False, data_dir=None)
    assert [d.folder for d in todo] == [f"claimcheck-{t}" for t in ("extract", "wi", "ca", "wl", "cv", "wle")]
    for d in todo:  # what `noveval demo` does with each: the runner
        run = run_benchmark(bench, "local", tmp_path / d.folder, options=d.options)
        assert run.complete and (run.path / "predictions.jsonl").exists() and (run.path / "scores.json").exists()


def test_wi_salvages_a_truncated_reply():
    from noveval.benchmarks.claimcheck.wi import identify_weaknesses

    cut = ('{"weaknesses": [{"groundedness": 4, "text": "All results come from a single random '
           'seed"}, {"groundedness": 2, "te')
    row = asyncio.run(identify_weaknesses(FakeClient(lambda p: cut), paper_id="p", review_index=0,
                                          review_text=REVIEW, title="t", options=ClaimcheckOptions()))
    assert row["salvaged"] and len(row["weaknesses"]) == 1 and row["error"] is None


def test_batch_runs_both_wle_steps_through_the_batch_api(tmp_path):
    """``--batch`` (from the shared run options): the rewrites, then the judgments of them, go to the
    provider's batch API (one batch per step); the run equals a run without it."""
    from fake_batches import FakeBatchServer
    from noveval.cli.main import app

    env = {"NOVEVAL_CACHE_DIR": str(tmp_path / "cache"), "NOVEVAL_BATCH_POLL_S": "0.02"}
    args = ["-q", "run", "claimcheck", "--task", "wle", "--limit-items", "2", "--no-bertscore"]
    with FakeBatchServer(responder=reply) as server:
        spec = f"openai-compatible/scripted@{server.base_url}"
        res = CliRunner(env=env).invoke(app, [*args, "-m", spec, "-o", str(tmp_path / "b"), "--batch"])
        assert res.exit_code == 0, res.output
        assert server.live_chat_calls == 0 and server.batch_creates == 2  # rewrites, then their judgments
        plain = CliRunner(env={"NOVEVAL_CACHE_DIR": str(tmp_path / "cache2")}).invoke(
            app, [*args, "-m", spec, "-o", str(tmp_path / "p")])
        assert plain.exit_code == 0, plain.output
    batches = json.loads((tmp_path / "b" / "batches.json").read_text())["batches"]
    assert [b["requests"] for b in batches] == [2, 2]
    for name in ("predictions.jsonl", "judgments.jsonl"):
        rows = [sorted((tmp_path / d / name).read_text().splitlines()) for d in ("b", "p")]
        assert rows[0] == rows[1] and len(rows[0]) == 2
    metrics = [json.loads((tmp_path / d / "scores.json").read_text())["metrics"] for d in ("b", "p")]
    assert metrics[0] == metrics[1] and metrics[0]["win"]["n"] == 2
