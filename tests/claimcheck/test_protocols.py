"""The paper and noveval protocols (issue 13 items 5, 6, 7, 11), one failure rule for
every task (item 9) and per-chunk extraction progress (issue 20 item 8)."""

import asyncio
import json
import logging

import numpy as np
import pytest
from typer.testing import CliRunner

from noveval.benchmarks.claimcheck._common import PAPER_SEEDS
from noveval.benchmarks.claimcheck.data import (
    PaperText,
    ReviewAnnotation,
    load_annotations,
    load_papers_file,
    sample_dir,
)
from noveval.benchmarks.claimcheck.generate import arun_task, resolve_seeds
from noveval.benchmarks.claimcheck.options import ClaimcheckOptions, ClaimcheckScoreOptions
from noveval.benchmarks.claimcheck.scoring import farthest_label, score_predictions, score_run
from noveval.errors import InputError
from noveval.io import read_jsonl
from noveval.options import as_options

from .fake import REQUEST, FakeClient
from .test_related import CORPUS, FULLTEXT
from .test_tasks_offline import _app
from .test_tasks_offline import reply as base_reply

SAMPLE = sample_dir()
PAPERS = load_papers_file(SAMPLE / "papers.json")
ANNS = load_annotations(SAMPLE / "annotations.jsonl", papers=PAPERS)
INPUTS = {"papers_file": str(SAMPLE / "papers.json"), "annotations": str(SAMPLE / "annotations.jsonl")}

PAPER_WLE = {"objectivity_reasoning": "o", "objectivity": 4, "agreement_reasoning": "a", "agreement": 3,
             "types_reasoning": "t", "types": {"insufficient": True},
             "rewrite_reasoning": "r", "rewritten_weakness": "Sounder: one seed (Section 3) cannot carry the claim."}


def reply(prompt: str) -> dict:
    if "more sound" in prompt:
        return PAPER_WLE
    return base_reply(prompt)


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "corpus.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in CORPUS))
    return path


def _untargeted(anns: list[ReviewAnnotation]) -> list[ReviewAnnotation]:
    """The sample with ann1's w5 stripped of its target claim."""
    rec = anns[0]
    ws = [w.model_copy(update={"target_claims": []}) if w.id == "w5" else w for w in rec.weaknesses]
    return [rec.model_copy(update={"weaknesses": ws}), *anns[1:]]


def run(task, tmp_path, client, *, name=None, anns=None, papers=None, **options):
    opts = as_options(ClaimcheckOptions, {"task": task, **options})  # a bad value: InputError naming the option
    out = asyncio.run(arun_task(tmp_path / (name or task), opts, papers=papers or PAPERS,
                                annotations=None if task == "extract" else (anns or ANNS),
                                client=client, inputs=INPUTS))
    return out, read_jsonl(out / "predictions.jsonl")


def prompts(client, marker: str) -> int:
    return sum(1 for _, _, p in client.server.log if marker in p)


# ------------------------------------------------------------------------ item 5
def test_wl_paper_protocol_labels_only_weaknesses_with_targets(tmp_path, corpus):
    anns = _untargeted(ANNS)
    n_all = sum(len(r.weaknesses) for r in anns)
    untargeted = "sample-sea#0/ann1/w5"
    _, rows = run("wl", tmp_path, FakeClient(reply), name="nv", anns=anns)
    assert len(rows) == n_all and untargeted in {r["id"] for r in rows}
    client = FakeClient(reply)
    out, rows = run("wl", tmp_path, client, name="pp", anns=anns, corpus=corpus,
                    protocol="paper", seeds=[0])
    assert len(rows) == n_all - 1 and untargeted not in {r["id"] for r in rows}
    # the labels come from the paper's WLE call, not from a labeling prompt of its own
    assert prompts(client, "more sound") == n_all - 1 and prompts(client, "Label this weakness") == 0
    assert rows[0]["objectivity"] == 4 and rows[0]["types"] == ["insufficient"] and rows[0]["revised"]
    scores = score_run(out)
    assert scores["protocol"] == "paper" and scores["metrics"]["alpha_agreement"]["n"] == n_all - 1


# ------------------------------------------------------------------------ item 6
def test_wle_paper_is_one_call_that_labels_and_rewrites(tmp_path, corpus):
    n_targeted = sum(1 for r in ANNS for w in r.weaknesses if w.target_claims or w.custom_claim)
    client = FakeClient(reply, cache_path=tmp_path / "cache.sqlite")
    run("wl", tmp_path, client, name="pwl", corpus=corpus, protocol="paper", seeds=[0])
    after_wl = prompts(client, "more sound")
    distinct = {p for _, _, p in client.server.log if "more sound" in p}
    # one call per targeted weakness at most (ann1/ann2 share 3 identical requests, which the
    # cache answers unless they were in flight together)
    assert n_targeted - 3 == len(distinct) <= after_wl <= n_targeted
    out, rows = run("wle", tmp_path, client, name="pwle", corpus=corpus, protocol="paper", seeds=[0])
    # WL and WLE share the request: the WLE run makes no labelling-and-rewriting call of its own
    assert prompts(client, "more sound") == after_wl
    assert prompts(client, "Rewrite this weakness") == 0 and prompts(client, "Label this weakness") == 0
    assert 0 < prompts(client, "Which version gives more specific") <= len(rows) == n_targeted
    sent = next(p for _, _, p in client.server.log if "more sound" in p)
    assert "line numbers" not in sent and "specific" not in sent
    assert "One of the paper's reviews" in sent and ANNS[0].review_text.split("\n")[0] in sent
    assert rows[0]["revised"] == PAPER_WLE["rewritten_weakness"] and rows[0]["agreement"] == 3

    nv = FakeClient(reply)
    run("wl", tmp_path, nv, name="nwl")
    run("wle", tmp_path, nv, name="nwle")
    n_all = sum(len(r.weaknesses) for r in ANNS)
    assert prompts(nv, "Label this weakness") == n_all and prompts(nv, "Rewrite this weakness") == n_targeted
    rewrite = next(p for _, _, p in nv.server.log if "Rewrite this weakness" in p)
    assert "more specific" in rewrite and "line numbers or quotations" in rewrite


def test_every_wle_output_names_its_judge(tmp_path, corpus):
    client = FakeClient(reply)
    out, _ = run("wle", tmp_path, client, corpus=corpus, protocol="paper", seeds=[0])
    judged = read_jsonl(out / "judgments.jsonl")
    assert {j["judge"] for j in judged} == {client.model_id}
    scores = score_run(out, ClaimcheckScoreOptions(bertscore=False))
    assert scores["judge"] == client.model_id
    assert "model under test" in scores["judge_note"] and "person" in scores["judge_note"]
    assert {p["judge"] for p in read_jsonl(out / "per_item.jsonl")} == {client.model_id}
    # human choices: judge "human"
    from noveval.benchmarks.claimcheck.wle import export_pairs_csv, import_human_choices

    path, _ = export_pairs_csv(read_jsonl(out / "predictions.jsonl"), tmp_path / "pairs.csv")
    import csv

    with open(path, newline="") as fh:
        table = list(csv.DictReader(fh))
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(table[0]))
        w.writeheader()
        w.writerows([{**rec, "choice": "tie"} for rec in table])
    human = import_human_choices(path)
    assert len(human) == len(table) > 0
    scores = score_run(out, ClaimcheckScoreOptions(bertscore=False, judgments=_write(tmp_path / "h.jsonl", human)))
    assert scores["judge"] == "human" and "person" in scores["judge_note"]
    assert scores["metrics"]["tie"]["mean"] == 1.0


def _write(path, rows):
    from noveval.io import write_jsonl

    write_jsonl(path, rows)
    return path


def test_report_shows_protocol_and_judge(tmp_path, corpus):
    from noveval.benchmarks.claimcheck.views import claimcheck_tables

    out, _ = run("wle", tmp_path, FakeClient(reply), corpus=corpus, protocol="paper", seeds=[0, 42])
    score_run(out, ClaimcheckScoreOptions(bertscore=False))
    from noveval.report.build import load_run

    tables, _ = claimcheck_tables([load_run(out)])
    caption = next(t.caption for t in tables if "WLE" in t.title)
    assert "protocol paper" in caption and "seeds 0, 42 (mean over seeds)" in caption
    assert "the paper's judge was a person" in caption


# ------------------------------------------------------------------------ item 7
def _rel_paper() -> tuple[dict[str, PaperText], list[ReviewAnnotation]]:
    paper = PaperText(id="p-rel", title="A Paper On Echo Attention", fulltext=FULLTEXT,
                      reviews=["The gain over [2] is within noise. Also the prose is long."])
    start = FULLTEXT.index("Echo attention beats")
    claim = "Echo attention beats sparse baselines [2]."
    rec = ReviewAnnotation.model_validate({
        "paper_id": "p-rel", "review_index": 0, "annotator": "A",
        "claims": [{"id": "c1", "start": start, "end": start + len(claim)}],
        "weaknesses": [{"id": "w1", "start": 0, "end": 34, "groundedness": 5, "target_claims": ["c1"],
                        "objectivity": 4, "agreement": 4, "types": ["insufficient"]}]})
    from noveval.benchmarks.claimcheck.data import resolve_annotations

    anns = resolve_annotations([(1, rec)], path=sample_dir(), papers={"p-rel": paper})
    return {"p-rel": paper}, anns


@pytest.mark.parametrize("task", ["ca", "cv", "wle"])
def test_paper_protocol_shows_cited_related_works(tmp_path, corpus, task):
    papers, anns = _rel_paper()
    client = FakeClient(reply)
    out, rows = run(task, tmp_path, client, papers=papers, anns=anns, corpus=corpus,
                    protocol="paper", seeds=[0])
    assert rows[0]["related_works"] == [{"number": 2, "corpus_id": "x2",
                                         "title": "Sparse Echo Attention Baselines Revisited Carefully"}]
    first = next(p for _, _, p in client.server.log if "Abstract two." in p)
    assert "[2] Sparse Echo Attention Baselines Revisited Carefully" in first
    assert "Abstract one." not in first  # [1] is in the reference list but not cited here
    assert read_jsonl(out / "related.jsonl") == [{"id": "p-rel", "n_references": 5, "n_matched": 3}]


def test_without_corpus_the_prompt_is_unchanged(tmp_path):
    papers, anns = _rel_paper()
    client = FakeClient(reply)
    _, rows = run("ca", tmp_path, client, papers=papers, anns=anns)
    assert rows[0]["related_works"] == []
    sent = client.server.log[0][2]
    assert 'Relevant parts of the paper:\n"""\n' in sent and '"""\n\nNumbered candidate claims' in sent


def test_paper_protocol_needs_a_corpus(tmp_path):
    with pytest.raises(InputError) as e:
        run("ca", tmp_path, FakeClient(reply), protocol="paper")
    assert e.value.field == "options.corpus" and not (tmp_path / "ca").exists()
    with pytest.raises(InputError):
        run("ca", tmp_path, FakeClient(reply), protocol="nope")


# ------------------------------------------------------------------------ item 11
def test_resolve_seeds():
    def seeds(**kw):
        return resolve_seeds(ClaimcheckOptions(**kw))

    assert seeds(protocol="paper", task="ca") == PAPER_SEEDS == (0, 42, 2025)
    assert seeds(protocol="paper", task="extract") == (0,)
    assert seeds(protocol="noveval", task="ca", seed=7) == (7,)
    assert seeds(protocol="noveval", task="ca", seeds=[1, 2]) == (1, 2)
    with pytest.raises(InputError):
        seeds(protocol="noveval", task="ca", seeds=[1, 1])


def seeded_reply(prompt: str) -> dict:
    """CA picks depend on the request's seed: seed 0 -> claim 2, 42 -> claims 2 and 4, 2025 -> none."""
    if "Choose the target claims" in prompt:
        picks = {0: [2], 42: [2, 4], 2025: []}[REQUEST.seed]
        return {"reasoning": "r", "target_claims": picks, "custom_claim": None}
    return reply(prompt)


@pytest.mark.slow
def test_paper_protocol_averages_three_seeds(tmp_path, corpus):
    out, rows = run("ca", tmp_path, FakeClient(seeded_reply), corpus=corpus, protocol="paper")
    n = sum(len(r.weaknesses) for r in ANNS)
    assert len(rows) == 3 * n and {r["seed"] for r in rows} == {0, 42, 2025}
    assert all(r["id"].endswith(f"@seed{r['seed']}") for r in rows)
    scores = score_run(out)
    assert scores["seeds"] == [0, 42, 2025] and json.loads((out / "config.json").read_text())["seeds"] == [0, 42, 2025]
    for name in ("f1_edit", "f1_exact"):
        m = scores["metrics"][name]
        each = []
        for s in (0, 42, 2025):  # each seed scored on its own
            _, single, _ = score_predictions("ca", [r for r in rows if r["seed"] == s], annotations=ANNS)
            each.append(single[name]["mean"])
            assert m["per_seed"][str(s)] == pytest.approx(single[name]["mean"])
        assert m["mean"] == pytest.approx(np.mean(each))
        assert m["seed_sd"] == pytest.approx(np.std(each)) and m["seed_sd"] > 0
        assert m["seed_min"] == min(each) and m["seed_max"] == max(each)
        assert m["ci_low"] <= m["mean"] <= m["ci_high"] and m["n"] == n
    assert scores["metrics"]["f1_exact"]["per_seed"]["2025"] == 0.0  # no picks


def test_noveval_protocol_one_seed_and_cli_seeds(tmp_path):
    client = FakeClient(seeded_reply)
    out, rows = run("ca", tmp_path, client)
    assert {r["seed"] for r in rows} == {0} and "@" not in rows[0]["id"]
    assert "per_seed" not in score_run(out)["metrics"]["f1_edit"]
    res = CliRunner().invoke(_app(), [
        "run", "--task", "ca", "-o", str(tmp_path / "cli"), "--papers", str(SAMPLE / "papers.json"),
        "-a", str(SAMPLE / "annotations.jsonl"), "-m", f"openai-compatible/scripted@{client.server.base_url}",
        "--seeds", "0", "--seeds", "42", "--no-cache", "--limit-items", "2"])
    assert res.exit_code == 0, res.output
    cfg = json.loads((tmp_path / "cli" / "config.json").read_text())
    assert cfg["seeds"] == [0, 42] and cfg["protocol"] == "noveval"
    assert len(read_jsonl(tmp_path / "cli" / "predictions.jsonl")) == 4


# ------------------------------------------------------------------------ item 9
def test_failure_rule_in_every_task(tmp_path, corpus):
    from noveval.metrics.spans import f1_edit

    def faults(prompt: str) -> str | None:
        if "Here is a peer review" in prompt or "Restate, in your own words" in prompt:
            return "500"  # the call fails for good (after the client's retry)
        return None

    def bad(prompt: str):
        if prompt.startswith("That reply could not be used"):
            return "still no json"  # the re-ask
        if "Chunk:" in prompt and "SEA keeps a buffer" in prompt:
            return "no json here"
        w1 = ANNS[0].weaknesses[0].text[:40]
        if w1 in prompt and ("Choose the target claims" in prompt or "Label this weakness" in prompt
                             or "Rewrite this weakness" in prompt):
            return "no json here"  # unparseable, also after the re-ask
        return reply(prompt)

    client = FakeClient(bad, faults=faults)
    opts = {"chunk_chars": 400}
    first = f"{ANNS[0].key}/ann1/w1"

    out, _ = run("extract", tmp_path, client, **opts)
    s = score_run(out)
    assert s["failures"]["unit"] == "chunks" and s["failures"]["n_failed"] == s["failures"]["unparseable"] == 1
    assert s["metrics"]["failed"]["mean"] == pytest.approx(1 / s["failures"]["n"])

    out, (row,) = run("wi", tmp_path, client)
    assert row["failure"] == "call" and row["weaknesses"] == []
    s = score_run(out)
    assert s["metrics"]["f1_edit"]["mean"] == 0.0 and s["metrics"]["failed"]["mean"] == 1.0
    assert s["failures"]["call"] == 2 and "model call failed" in s["failures"]["first_error"]  # 2 gold annotators

    out, rows = run("ca", tmp_path, client)
    failed = [r for r in rows if r["failure"]]
    assert [r["id"] for r in failed] == [first] and failed[0]["failure"] == "unparseable"
    s = score_run(out)
    from noveval.benchmarks.claimcheck.items import weakness_items

    items = weakness_items(ANNS)
    by_id = {r["id"]: r for r in rows}
    gold = [it.gold_targets for it in items]
    pred = [[] if it.id == first else by_id[it.id]["target_texts"] for it in items]
    assert s["metrics"]["f1_edit"]["mean"] == pytest.approx(f1_edit(gold, pred))  # failed = empty answer
    assert s["metrics"]["failed"]["mean"] == pytest.approx(1 / len(items))

    out, rows = run("wl", tmp_path, client)
    s = score_run(out)
    per = {p["id"]: p for p in read_jsonl(out / "per_item.jsonl")}
    assert per[first]["failed"] == 1.0 and per[first]["agreement_exact"] == 0.0
    from noveval.metrics.agreement import krippendorff_alpha

    g = [it.gold_labels["agreement"] for it in items]
    p = [farthest_label(gv) if it.id == first else by_id_wl(rows)[it.id]["agreement"] for it, gv in zip(items, g)]
    assert s["metrics"]["alpha_agreement"]["mean"] == pytest.approx(
        krippendorff_alpha(np.array([g, p], dtype=float), level="ordinal"))
    assert s["metrics"]["alpha_agreement"]["n"] == len(items)  # nobody left out

    out, rows = run("cv", tmp_path, client)
    s = score_run(out)
    assert all(r["failure"] == "call" for r in rows)  # every distil call failed
    assert s["metrics"]["failed"]["mean"] == 1.0 and s["metrics"]["same"]["mean"] == 0.0
    assert s["metrics"]["failed"]["n"] == len(rows)

    out, rows = run("wle", tmp_path, client)
    s = score_run(out, ClaimcheckScoreOptions(bertscore=False))
    per = {p["id"]: p for p in read_jsonl(out / "per_item.jsonl")}
    assert per[first]["outcome"] == "failed" and per[first]["rouge1_f1"] == 0.0 and per[first]["failed"] == 1.0
    total = sum(s["metrics"][k]["mean"] for k in ("win", "tie", "loss", "failed"))
    assert total == pytest.approx(1.0) and s["metrics"]["win"]["n"] == len(rows)
    assert s["failures"]["unparseable"] == 1 and "empty answer" in s["failures"]["rule"]


def by_id_wl(rows):
    return {r["id"]: r for r in rows}


def test_farthest_label():
    assert [farthest_label(g) for g in (1, 2, 3, 4, 5)] == [5, 5, 1, 1, 1]


# ------------------------------------------------------------------ issue 20 item 8
def test_extraction_reports_progress_per_chunk(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="noveval")
    run("extract", tmp_path, FakeClient(reply), chunk_chars=400)
    lines = [r.getMessage() for r in caplog.records if "sample-sea: chunks" in r.getMessage()]
    assert lines[0].startswith("claimcheck extract sample-sea: chunks: 1/4")  # one line per finished chunk
    assert lines[-1].startswith("claimcheck extract sample-sea: chunks: 4/4")


def test_unjudged_wle_rewrites_are_not_failures():
    rows = [{"id": "a", "original": "The claim in line 12 lacks a baseline.", "revised": "Line 12 lacks a baseline."},
            {"id": "b", "original": "o", "revised": None, "error": "model call failed: boom", "failure": "call"}]
    per, m, extra = score_predictions("wle", rows, bertscore=False)
    assert m["win"]["mean"] is None and m["failed"]["mean"] == 0.5
    assert per[0]["anchors_kept"] == 1.0 and per[1]["rouge1_f1"] == 0.0
    assert extra["failures"]["call"] == 1 and extra["failures"]["n"] == 2


def test_n_counts_items_with_a_value():
    rows = [{"id": "a", "original": "See line 12.", "revised": "See line 12 again."},
            {"id": "b", "original": "No anchor here at all.", "revised": "Still none."}]
    _, m, _ = score_predictions("wle", rows, bertscore=False)
    assert m["anchors_kept"]["mean"] == 1.0 and m["anchors_kept"]["n"] == 1
    assert m["rouge1_f1"]["n"] == 2


def test_counts_add_up_over_seeds(tmp_path, corpus):
    def reply_custom(prompt: str) -> dict:
        if "Choose the target claims" in prompt:
            return {"reasoning": "r", "target_claims": [], "custom_claim": "..." if REQUEST.seed == 42 else None}
        return reply(prompt)

    out, rows = run("ca", tmp_path, FakeClient(reply_custom), corpus=corpus, protocol="paper")
    n = sum(len(r.weaknesses) for r in ANNS)
    assert sum(bool(r["custom_rejected"]) for r in rows) == n  # every item of seed 42
    assert score_run(out)["extra"]["custom_rejected"] == n
    out, _ = run("extract", tmp_path, FakeClient(reply), chunk_chars=400, seeds=[0, 1])
    assert score_run(out)["failures"]["n"] == 8  # 4 chunks x 2 seeds
