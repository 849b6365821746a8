"""End to end: ``noveval check`` on a tiny hand-written corpus with the bundled models."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli_helpers import closed_port
from noveval.check.judge import check_citations
from noveval.cli.main import app

CORPUS = [
    ("Sparse linear probes for locating syntax in language models",
     "We train L1-regularised linear probes on hidden states of pretrained language models and find that "
     "syntactic depth is encoded in a few dimensions.", 2021),
    ("Contrastive pretraining of sentence encoders",
     "Sentence encoders trained with in-batch negatives on paraphrase pairs give strong semantic similarity.", 2020),
    ("Probing classifiers: promises and shortcomings",
     "A survey of probing classifiers, their control tasks, and why probe accuracy does not imply use.", 2022),
    ("Graph neural networks for molecule property prediction",
     "Message passing networks predict quantum chemical properties of small molecules.", 2019),
    ("Amnesic probing: removing information to test its use",
     "We remove linguistic information from representations with iterative nullspace projection and "
     "measure the effect on language modelling.", 2021),
    ("Low-rank adapters for efficient fine-tuning",
     "Injecting trainable low-rank matrices into frozen transformers matches full fine-tuning.", 2022),
]

IDEA = """# Causal sparse probes

## Problem
Linear probes show that information is decodable from a language model, not that the model uses it.

## Objective
Find the few hidden dimensions that a language model actually uses for syntax.

## Approach
Train L1-sparse probes, then ablate the selected dimensions and measure the change in syntactic agreement accuracy.
"""


@pytest.mark.slow
def test_check_end_to_end(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("\n".join(json.dumps({"id": f"c{i}", "title": t, "abstract": a, "year": y})
                                for i, (t, a, y) in enumerate(CORPUS)) + "\n", encoding="utf-8")
    idea = tmp_path / "idea.md"
    idea.write_text(IDEA, encoding="utf-8")
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["check", str(idea), "--corpus", str(corpus), "--top-k", "3", "-o", str(out),
                                   "--before-year", "2023"])
    assert res.exit_code == 0, res.output
    r = json.loads((out / "check.json").read_text())
    assert r["input"]["kind"] == "idea" and r["input"]["title"] == "Causal sparse probes"
    assert len(r["neighbours"]) == 3 and r["neighbours"][0]["similarity"] >= r["neighbours"][1]["similarity"]
    assert "Molecule" not in r["neighbours"][0]["title"]
    # six papers cannot support a judgment: the tool says so, metrics are not invented
    assert r["verdict"]["supported"] is False and any("only 6 papers" in x for x in r["verdict"]["reasons"])
    assert all(m["percentile"] is None and "not computed" in m["note"] for m in r["metrics"])
    assert "rubric" in r and "evaluation" in r and r["model"]
    assert r["rubric"]["score"] in (1, 2, 3, 4, 5) or r["rubric"]["parse_status"] != "json"
    shown = {n["rank"] for n in r["neighbours"]} | {w["rank"] for e in r["evidence"]["contributions"] for w in e["works"]}
    for sec in ("positive", "neutral", "negative"):
        for p in r["evaluation"][sec]:
            assert set(p["cites"]) <= shown and (p["flag"] is None) == p["grounded"]
            if p["grounded"]:  # grounded = cites a work and quotes a sentence of it
                assert p["cites"] and p["quote_work"] in p["cites"]
                assert any(p["quote"] in a for _t, a, _y in CORPUS)  # verbatim from a corpus abstract
    n = r["evaluation"]["n_points"]
    assert r["evaluation"]["n_grounded"] + r["evaluation"]["n_ungrounded"] == n
    md = (out / "check.md").read_text()
    assert md.startswith("# Novelty check") and "Cannot judge" in md and "## Closest prior work" in md
    assert "## Input" in md and "| contribution (1) |" in md and "## Evidence per contribution" in md
    assert r["bundled_model"] is True and "only shows that the pipeline runs" in md
    assert f"{r['evaluation']['n_grounded']} of {n} points are grounded" in md
    html = (out / "check.html").read_text()
    assert html.startswith("<!doctype html>") and "Corpus novelty metrics" in html and "<script src" not in html


def test_citation_flags_and_grounding() -> None:
    assert check_citations([1, 2], "text", 3) == ([1, 2], [], None)
    assert check_citations([], "as in [2]", 3)[2] is None
    valid, invalid, flag = check_citations([7], "no support", 3)
    assert valid == [] and invalid == [7] and flag and "cites no retrieved work" in flag
    assert check_citations([], "nothing", 3)[2] == "cites no retrieved work"
    from noveval.check.evidence import Work, ground_point, idf_from_texts

    works = {i + 1: Work(i + 1, t, a, y, 0.5) for i, (t, a, y) in enumerate(CORPUS)}
    idf = idf_from_texts([w.abstract for w in works.values()])
    # the "1 [1]": a point with no content counts as ungrounded even though it cites a work
    g = ground_point("1 [1]", [1], None, works, idf)
    assert g["grounded"] is False and g["why"].startswith("no content")
    # content that the cited abstract shares: grounded, and the quote is the sentence of the cited work
    g = ground_point("L1-regularised linear probes find that syntactic depth sits in a few dimensions.", [1], None,
                     works, idf)
    assert g["grounded"] and g["work"] == 1 and g["quote"] in CORPUS[0][1]
    # the same point citing an unrelated work: nothing of [4] overlaps it
    g = ground_point("L1-regularised linear probes find that syntactic depth sits in a few dimensions.", [4], None,
                     works, idf)
    assert g["grounded"] is False and "overlaps" in g["why"]
    # a quote the model copied from the cited work grounds a short point
    g = ground_point("Nullspace projection removes linguistic information before.", [5],
                     "We remove linguistic information from representations with iterative nullspace projection and "
                     "measure the effect on language modelling.", works, idf)
    assert g["grounded"] and g["why"] == "its quote is a sentence of the cited work"
    # a point that cites nothing shown
    assert ground_point("Sparse probes on hidden states are new.", [], None, works, idf)["why"] == \
        "cites no work it was shown"



@pytest.mark.parametrize("with_index", [False, True], ids=["corpus", "corpus+index"])
def test_a_dead_judge_stops_the_check_before_any_corpus_or_index_work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                      with_index: bool) -> None:
    """Issue 36: a dead judge used to be found after the corpus was embedded and the metrics computed."""
    import time

    monkeypatch.setenv("NOVEVAL_CACHE_DIR", str(tmp_path / "cache"))
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"id": f"p{i}", "title": f"{t} {i}", "abstract": a, "year": y}) + "\n"
                              for i in range(40) for t, a, y in CORPUS[i % len(CORPUS):][:1]), encoding="utf-8")
    idea = tmp_path / "idea.md"
    idea.write_text(IDEA, encoding="utf-8")
    spec = f"openai-compatible/judge@http://127.0.0.1:{closed_port()}/v1"
    extra = ["--index", str(tmp_path / "idx")] if with_index else []
    t0 = time.perf_counter()
    r = CliRunner().invoke(app, ["-q", "check", str(idea), "--corpus", str(corpus), *extra, "-m", spec,
                                 "-o", str(tmp_path / "out")])
    took = time.perf_counter() - t0
    assert r.exit_code == 2, r.output
    assert f"error: model {spec}: unreachable" in r.stderr
    assert took < 10, took
    assert not (tmp_path / "cache" / "vectors.sqlite").exists()  # nothing was embedded
    assert not (tmp_path / "idx").exists() and not (tmp_path / "out").exists()  # no index built, nothing written
