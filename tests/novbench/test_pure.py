"""Pure parts of the NovBench pipeline, generation, agreement and analyses."""

import json
import math

import numpy as np
import pytest

from noveval.benchmarks.novbench.agreement import agreement_report, load_preferences
from noveval.benchmarks.novbench.analyses import delete_sentences, parse_paper_type, render_table
from noveval.benchmarks.novbench.data import IntroSentence, NovBenchRecord
from noveval.benchmarks.novbench.generate import build_prompt, few_shot_examples
from noveval.benchmarks.novbench.pipeline import (
    classification_metrics,
    context_window,
    parse_yes_no,
)
from noveval.benchmarks.novbench.scoring import score_human, score_outputs
from noveval.errors import InputError


def test_parse_yes_no():
    assert parse_yes_no("Yes.") == 1
    assert parse_yes_no('{"answer": "No"}') == 0
    assert parse_yes_no("Answer: yes, it proposes a method") == 1
    assert parse_yes_no("Nobody knows; notably") is None
    assert parse_yes_no(None) is None


def test_context_window_boundaries():
    sents = [IntroSentence(paper_id="p", index=i, sentence=f"s{i}") for i in range(5)]
    sents.append(IntroSentence(paper_id="q", index=0, sentence="only"))
    ctx = context_window(sents)
    assert ctx[("p", 0)] == ["s1", "s2"]  # first: following context only
    assert ctx[("p", 2)] == ["s0", "s1", "s3", "s4"]
    assert ctx[("p", 4)] == ["s2", "s3"]  # last: preceding context only
    assert ctx[("q", 0)] == []


def test_classification_metrics_hand_computed():
    rows = [
        {"label": 1, "pred": 1, "parsed": True},
        {"label": 1, "pred": 0, "parsed": False},
        {"label": 0, "pred": 0, "parsed": True},
        {"label": 0, "pred": 1, "parsed": True},
        {"label": None, "pred": 1},
    ]
    m = classification_metrics(rows)
    assert m["n"] == 4 and m["accuracy"] == 0.5 and m["macro_f1"] == pytest.approx(0.5)
    assert m["n_unparsed"] == 1
    assert classification_metrics([{"label": None, "pred": 0}]) is None


def _rec(i, gold="Positive Novelty Evaluations\n- A genuinely new idea is proposed here.\n"):
    return NovBenchRecord(id=str(i), paper_novelty=[f"We propose method number {i}."], output_format=gold)


def test_few_shot_examples_exclude_self_and_are_stable():
    recs = [_rec(i) for i in range(6)]
    for r in recs:
        ex = few_shot_examples(recs, r, seed=1)
        assert len(ex) == 2 and r.id not in {e.id for e in ex}
        assert [e.id for e in few_shot_examples(list(reversed(recs)), r, seed=1)] == [e.id for e in ex]
    with pytest.raises(ValueError):
        few_shot_examples(recs[:2], recs[0])
    prompt = build_prompt(recs[0], "few-shot", examples=few_shot_examples(recs, recs[0]))
    assert prompt.count("A genuinely new idea is proposed here.") == 2
    with pytest.raises(ValueError):
        build_prompt(recs[0], "rag")


class _BagOfWords:
    """A deterministic toy embedder (tests the scoring plumbing, not a model)."""

    model_id = "bow"

    def encode(self, texts, progress=None):
        vocab = {}
        for t in texts:
            for w in t.lower().split():
                vocab.setdefault(w, len(vocab))
        self._v = vocab
        out = np.zeros((len(texts), 512))
        for i, t in enumerate(texts):
            for w in t.lower().split():
                out[i, hash(w) % 512] += 1
        n = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(n, 1e-12)


def test_score_outputs_empty_output_scores_zero_and_human_row():
    rec = NovBenchRecord(
        id="1",
        paper_novelty=["We propose a graph rewriting parser."],
        output_format="Positive Novelty Evaluations\n- The graph rewriting parser is new.\n\n"
        "Negative Novelty Evaluations\n- Rule induction is old news here.\n",
    )
    outputs = {"1": "Sorry, I cannot help."}
    [row] = score_outputs([rec], outputs, embedder=_BagOfWords())
    for k in ("relevance", "coverage", "clarity_reference", "dist_acc"):
        assert row[k] == 0.0
    same = {"1": rec.output_format}
    [row] = score_outputs([rec], same, embedder=_BagOfWords())
    assert row["coverage"] == 1.0 and row["dist_acc"] == 1.0
    assert 1.0 <= row["relevance"] <= 5.0 and row["clarity"] is None
    [h] = score_human([rec], embedder=_BagOfWords())
    assert h["coverage"] is None and h["dist_acc"] is None
    assert h["relevance"] == pytest.approx(row["relevance"])


def test_delete_sentences():
    s = [f"s{i}" for i in range(10)]
    kept = delete_sentences(s, fraction=0.3, seed=0, key="a")
    assert len(kept) == 7 and kept == [x for x in s if x in kept]
    assert delete_sentences(["only"], fraction=0.9) == ["only"]
    assert delete_sentences(s, fraction=0.3, key="a") == kept


def test_parse_paper_type():
    assert parse_paper_type("Resource.") == "resource"
    assert parse_paper_type("methods") == "method"
    assert parse_paper_type("unclear") is None


def test_agreement_report_hand_computed(tmp_path):
    rows = [
        {"id": 1, "annotators": ["A", "A", "A", "B"], "metric": "A"},
        {"id": 2, "annotators": ["B", "B", "B", "B"], "metric_a": 0.2, "metric_b": 0.5},
        {"id": 3, "annotators": ["A", "B", "A", "B"], "metric": "B"},  # no strict majority
        {"id": 4, "annotators": ["Both are comparable", "tie", "tie", "A"], "metric": "A"},
    ]
    p = tmp_path / "prefs.json"
    p.write_text(json.dumps(rows), encoding="utf-8")
    rep = agreement_report(load_preferences(p))
    assert rep["n_majority"] == 3 and rep["agreement"] == pytest.approx(2 / 3)
    assert -1 <= rep["fleiss_kappa"] <= 1 and not math.isnan(rep["spearman_rho"])
    p.write_text(json.dumps([{"id": 1, "annotators": ["A", "maybe"], "metric": "A"}]), encoding="utf-8")
    with pytest.raises(InputError, match="annotators"):
        load_preferences(p)


def test_render_table_shape():
    m = {k: {"mean": 0.5, "ci_low": 0.4, "ci_high": 0.6, "n": 3} for k in
         ("relevance", "coverage", "clarity", "clarity_reference", "dist_acc")}
    res = [
        {"model": "x", "metrics": m, "extra": {"prompting": "zero-shot", "human": {"relevance": {"mean": 2.79}}}},
        {"model": "x", "metrics": m, "extra": {"prompting": "rag", "human": {"relevance": {"mean": 2.79}}}},
    ]
    t = render_table(res)
    lines = t.splitlines()
    assert "zero-shot" in lines[0] and "rag" in lines[0]
    human = next(x for x in lines if x.startswith("Human"))
    assert "2.7900" in human
    assert lines[3].split()[0] == "x" and lines[3].count("0.5000") == 8
    # the table names the models behind it and the Clarity variant comparable with the paper
    res[0]["extra"]["models_note"] = "Relevance embedder: st:minilm (also Coverage) (paper: SPICED); FS perplexity model: ppl:x"
    t = render_table(res)
    assert "Models: Relevance embedder: st:minilm" in t and "ppl:x" in t
    assert "Eq. 7" in t and "comparable" in t
    assert "released comment_evaluate.py" in render_table(res, clarity="reference")


def test_retrieve_references_skips_the_paper_itself():
    from noveval.benchmarks.novbench.data import CorpusPaper
    from noveval.benchmarks.novbench.generate import retrieve_references

    rec = NovBenchRecord(id="1", title="Graph Rewriting Parser", abstract="graph rewriting parser for meaning",
                         paper_novelty=["We propose graph rewriting."])
    corpus = [
        CorpusPaper(title="Graph rewriting parser!", abstract="graph rewriting parser for meaning"),
        CorpusPaper(title="Meaning graphs", abstract="parser for meaning graphs"),
        CorpusPaper(title="Image captions", abstract="vision models caption images"),
        CorpusPaper(title="Rewriting rules", abstract="graph rewriting rules"),
    ]
    refs = retrieve_references([rec], corpus, _BagOfWords(), k=2)["1"]
    assert len(refs) == 2 and "Graph rewriting parser!" not in [t for t, _ in refs]
    assert "Image captions" not in [t for t, _ in refs]


def test_empty_output_has_no_paper_clarity_without_perplexity():
    rec = NovBenchRecord(id="1", paper_novelty=["We propose X."], output_format="Positive Novelty Evaluations\n- X is new and useful.\n")
    [row] = score_outputs([rec], {"1": ""}, embedder=_BagOfWords())
    assert row["clarity"] is None and row["clarity_reference"] == 0.0 and row["relevance"] == 0.0


class _Constant:
    """A toy embedder mapping every text to the same vector: every cosine is 1."""

    model_id = "constant"

    def encode(self, texts, progress=None):
        return np.ones((len(texts), 4))


def test_relevance_embedder_is_used_for_relevance_only():
    rec = NovBenchRecord(
        id="1",
        paper_novelty=["We propose a graph rewriting parser."],
        output_format="Positive Novelty Evaluations\n- The graph rewriting parser is new.\n",
    )
    outputs = {"1": "Positive Novelty Evaluations\n- Totally unrelated words appear in this sentence.\n"}
    [base] = score_outputs([rec], outputs, embedder=_BagOfWords())
    [split] = score_outputs([rec], outputs, embedder=_BagOfWords(), relevance_embedder=_Constant())
    assert base["relevance"] < 5.0 and split["relevance"] == pytest.approx(5.0)  # IMS = 1 + 4 * 1
    assert split["coverage"] == base["coverage"] == 0.0  # Coverage stays on the first embedder
    [h] = score_human([rec], embedder=_BagOfWords(), relevance_embedder=_Constant())
    assert h["relevance"] == pytest.approx(5.0)


def test_placeholders_keep_changes_coverage_and_dist_acc_hand_computed():
    gold = ("Positive Novelty Evaluations\n- [No positive comments identified]\n\n"
            "Negative Novelty Evaluations\n- Rule induction is old news here.\n")
    rec = NovBenchRecord(id="1", paper_novelty=["We propose rule induction."], output_format=gold)
    outputs = {"1": "Negative Novelty Evaluations\n- Rule induction is old news here.\n"}
    [drop] = score_outputs([rec], outputs, embedder=_BagOfWords())
    [keep] = score_outputs([rec], outputs, embedder=_BagOfWords(), placeholders="keep")
    assert drop["n_gold"] == 1 and drop["coverage"] == 1.0 and drop["dist_acc"] == 1.0
    # kept, the placeholder is one more gold (positive) item: 1 of 2 covered; gold 1/2 pos, 1/2 neg
    assert keep["n_gold"] == 2 and keep["coverage"] == 0.5
    assert keep["dist_acc"] == pytest.approx(1 - (0.5 + 0 + 0.5) / 2)


def test_models_note_names_embedders_and_perplexity_model():
    from noveval.benchmarks.novbench.scoring import models_note

    n = models_note("st:minilm", "st:minilm", "ppl:local/SmolLM2")
    assert n == "Relevance embedder: st:minilm (also Coverage) (paper: SPICED); FS perplexity model: ppl:local/SmolLM2 (paper: distilgpt2)"
    n = models_note("st:minilm", "local/spiced", None)
    assert "Relevance embedder: local/spiced;" in n and "Coverage embedder: st:minilm" in n
    assert "not computed" in n


def test_perplexity_lm_is_recorded_as_resolved():
    """Issue 35: scores.json names the Fluency Score's LM with its precision and token limit."""
    from noveval.benchmarks.novbench.scoring import perplexity_resolved
    from noveval.models.perplexity import PerplexityScorer

    assert perplexity_resolved(None) is None
    got = perplexity_resolved(PerplexityScorer(max_tokens=512, cache=False))
    assert got == {"id": "ppl:local/SmolLM2-135M-Instruct-Q4_1@512", "model": "ppl:local/SmolLM2-135M-Instruct-Q4_1",
                   "precision": "Q4_1", "max_tokens": 512}
