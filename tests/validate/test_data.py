"""Ratings loader, keyword groups and the PeerRead TSV (noveval.benchmarks.validate.data)."""

from __future__ import annotations

import json

import pytest

from noveval.benchmarks.validate.data import (
    keyword_groups,
    load_peerread_ratings,
    load_rated_papers,
    normalize_keyword,
)
from noveval.errors import InputError


def _write(path, rows):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def _paper(i, scores, **kw):
    return {"id": f"p{i}", "title": f"Paper {i}", "abstract": "An abstract.", "year": 2025,
            "reviews": [{"scores": {"originality": s}} for s in scores], **kw}


def test_loads_ratings_in_file_order_and_skips_reviews_without_a_score(tmp_path):
    f = _write(tmp_path / "r.jsonl", [_paper(1, [3, 4, 2]), {**_paper(2, [1]), "reviews": [
        {"scores": {"originality": 1}}, {"scores": {}}, {"text": "no scores"}]}, _paper(3, [])])
    ps = load_rated_papers(f)
    assert [p.ratings for p in ps] == [[3, 4, 2], [1], []]
    assert ps[0].mean == pytest.approx(3.0) and ps[0].median == 3.0 and ps[2].mean is None
    assert ps[1].line == 2 and ps[0].year == 2025


@pytest.mark.parametrize("row,field", [
    ({**_paper(1, [5])}, "reviews.0.scores.originality"),
    ({**_paper(1, [2.5])}, "reviews.0.scores.originality"),
    ({**_paper(1, ["3"])}, "reviews.0.scores.originality"),
    ({**_paper(1, [3]), "title": ""}, "title"),
    ({**_paper(1, [3]), "id": None}, "id"),
    ({**_paper(1, [3]), "reviews": {"a": 1}}, "reviews"),
    ({**_paper(1, [3]), "abstract": 7}, "abstract"),
])
def test_bad_rows_name_file_line_and_field(tmp_path, row, field):
    f = _write(tmp_path / "r.jsonl", [_paper(0, [3]), row])
    with pytest.raises(InputError) as e:
        load_rated_papers(f)
    assert e.value.line == 2 and e.value.field == field and str(f) in str(e.value)


def test_duplicate_ids_and_no_ratings_are_input_errors(tmp_path):
    with pytest.raises(InputError, match="duplicate"):
        load_rated_papers(_write(tmp_path / "d.jsonl", [_paper(1, [3]), _paper(1, [2])]))
    with pytest.raises(InputError, match="originality"):
        load_rated_papers(_write(tmp_path / "n.jsonl", [_paper(1, []), _paper(2, [])]))
    with pytest.raises(InputError):
        load_rated_papers(_write(tmp_path / "j.jsonl", ["{not json"]))


def test_other_aspect_and_scale(tmp_path):
    f = _write(tmp_path / "r.jsonl", [{**_paper(1, []), "reviews": [{"scores": {"impact": 5}}]}])
    assert load_rated_papers(f, aspect="impact", scale=(1, 5))[0].ratings == [5]


def test_normalize_keyword_and_groups():
    assert normalize_keyword("Large Language Models") == "large language model"
    assert normalize_keyword("LLMs") == "large language model"
    assert normalize_keyword("large-language model") == "large language model"
    assert normalize_keyword("Gaussian Process") == "gaussian process"
    assert normalize_keyword("Analysis") == "analysis"
    groups = keyword_groups([["LLM", "Reasoning"], ["large language models"], ["RL"], ["LLMs", "llm"]], min_size=2)
    assert groups == {"large language model": [0, 1, 3]}


def test_peerread_tsv(tmp_path):
    f = tmp_path / "pr.tsv"
    f.write_text("id\tOTHER_KEYS\tORIGINALITY\tcomments\t\n"
                 "7\tr1\t3\tgood\t\n7\tr2\t-\tok\t\n7\tr3\t4\tfine\t\n9\tr1\ts\tbad\t\n9\tr2\t2\tmeh\t\n")
    ratings, counts = load_peerread_ratings(f)
    assert ratings == [[3, 4], [2]]
    assert counts == {"reviews": 5, "papers": 2, "rated": 3, "not_rated": 1, "non_numeric": 1}
    g = tmp_path / "bad.tsv"
    g.write_text("id\tCLARITY\n1\t3\n")
    with pytest.raises(InputError, match="ORIGINALITY"):
        load_peerread_ratings(g)
