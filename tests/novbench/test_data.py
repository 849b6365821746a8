"""Loaders for the NovBench released formats."""

import json

import pytest

from noveval.benchmarks.novbench.data import (
    load_corpus,
    load_intro_sentences,
    load_records,
    load_review_sentences,
    load_sentence_pool,
    parse_list_field,
)
from noveval.errors import InputError


def test_parse_list_field_variants():
    assert parse_list_field(["a", "b"]) == ["a", "b"]
    assert parse_list_field('["a", "b"]') == ["a", "b"]
    assert parse_list_field("['a', \"it's\"]") == ["a", "it's"]
    assert parse_list_field(None) == [] and parse_list_field("") == []
    assert parse_list_field("plain") == ["plain"]


def test_parse_list_field_unescaped_apostrophes_and_missing_quote():
    raw = "['the model's view', 'we propose X.', 'authors' claim holds]"
    assert parse_list_field(raw) == ["the model's view", "we propose X.", "authors' claim holds"]
    raw2 = "['a, b', \"c's\", 'd']"
    assert parse_list_field(raw2) == ["a, b", "c's", "d"]


def _write(tmp_path, name, obj):
    p = tmp_path / name
    p.write_text(json.dumps(obj), encoding="utf-8")
    return p


def test_load_records_literal_strings(tmp_path):
    rec = {
        "id": 7,
        "title": "T",
        "abstract": "A",
        "keywords": "['k1', 'k2']",
        "paper_novelty": "['We propose the model's new layer.', 'It is first.']",
        "review_novelty": [],
        "output_format": "Positive Novelty Evaluations\n- A new layer is proposed.\n",
        "retrieved_title": ["t1"],
        "retrieved_abstract": ["a1"],
    }
    recs = load_records(_write(tmp_path, "d.json", [rec]))
    r = recs[0]
    assert r.id == "7" and r.keywords == ["k1", "k2"]
    assert r.paper_novelty == ["We propose the model's new layer.", "It is first."]
    assert r.gold.positive == ["A new layer is proposed."]
    assert r.retrieved == [("t1", "a1")]


def test_load_records_errors_name_field(tmp_path):
    with pytest.raises(InputError, match=r"paper_novelty"):
        load_records(_write(tmp_path, "d.json", [{"id": "1", "paper_novelty": []}]))
    with pytest.raises(InputError, match=r"duplicate id"):
        recs = [{"id": "1", "paper_novelty": ["x"]}, {"id": "1", "paper_novelty": ["y"]}]
        load_records(_write(tmp_path, "d2.json", recs))
    bad = tmp_path / "bad.json"
    bad.write_text("[{", encoding="utf-8")
    with pytest.raises(InputError):
        load_records(bad)


def test_load_intro_sentences(tmp_path):
    p = tmp_path / "s.csv"
    p.write_text("paper_id,sentence,label\n1,A.,0\n1,\"We, propose B.\",1\n2,C.,no\n", encoding="utf-8")
    s = load_intro_sentences(p)
    assert [(x.paper_id, x.index, x.label) for x in s] == [("1", 0, 0), ("1", 1, 1), ("2", 0, 0)]
    p.write_text("paper_id,sentence,label\n1,A.,maybe\n", encoding="utf-8")
    with pytest.raises(InputError, match=r":2: label"):
        load_intro_sentences(p)
    p.write_text("id,text\n1,A.\n", encoding="utf-8")
    with pytest.raises(InputError, match="paper_id"):
        load_intro_sentences(p)


def test_load_review_sentences_formats(tmp_path):
    a = _write(tmp_path, "nov.json", [["The idea is new.", "NOVELTY"]])
    b = _write(tmp_path, "non.json", [{"text": "Typos.", "labels": ["Clarity"]}])
    c = tmp_path / "x.csv"
    c.write_text("sentence,label\nNot novel.,1\n", encoding="utf-8")
    rows = load_review_sentences(a, b, c)
    assert [(r.sentence, r.label) for r in rows] == [
        ("The idea is new.", 1),
        ("Typos.", 0),
        ("Not novel.", 1),
    ]
    pool = load_sentence_pool(_write(tmp_path, "pool.json", [["x is new", "NOVELTY"], ["y", "OTHER"]]))
    assert pool == ["x is new"]


def test_load_corpus_filters_and_unicode_line_separator(tmp_path):
    p = tmp_path / "c.jsonl"
    rows = [
        {"id": 1, "title": "A\u2028B", "abstract": None, "year": 2020, "field": "NLP"},
        {"id": 2, "title": "C", "abstract": "x", "year": 2010, "field": "CV"},
    ]
    p.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    assert [x.id for x in load_corpus(p)] == ["1", "2"]
    assert [x.id for x in load_corpus(p, field="nlp")] == ["1"]
    with pytest.raises(InputError):
        load_corpus(p, year_range=(2021, 2022))


@pytest.mark.realdata
def test_released_files_load(novbench_dir):
    coling = load_records(novbench_dir / "coling2020.json")
    assert len(coling) == 73 and all(r.gold is not None for r in coling)
    para = load_records(novbench_dir / "emnlp2023-sample-paraphrased.json")
    assert len(para) == 100 and all(len(r.retrieved) == 5 for r in para)
    assert all(len(r.paper_novelty) >= 1 for r in para)
    sents = load_intro_sentences(novbench_dir / "coling2020-intro-sentences-labeled.csv")
    assert len(sents) == 2300 and sum(s.label for s in sents) == 533
    rev = load_review_sentences(
        novbench_dir / "review-sentences-novelty.json",
        novbench_dir / "review-sentences-non-novelty.json",
    )
    assert len(rev) == 993 and sum(r.label for r in rev) == 493
    assert len(load_sentence_pool(novbench_dir / "reviewadvisor-novelty-sentences.json.gz")) > 20000
