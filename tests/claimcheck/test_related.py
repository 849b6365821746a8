"""Cited related works (issue 13 item 7): reference list, corpus match, mention rules."""

import json

import pytest

from noveval.benchmarks.claimcheck.related import (
    RelatedCorpus,
    cited_numbers,
    first_author_surname,
    format_related,
    mentioned_works,
    method_name,
    numbered_references,
)

FULLTEXT = """## A Paper On Echo Attention

## Abstract

We study echo attention.

## 1 Introduction

Echo attention beats sparse baselines [2]. Prior surveys disagree [1, 3].

## References

- [1] Jane Doe and John Roe. Attention is not all you need for everything. In NeurIPS, 2020.
- [2] Alan Smithson, Bo Li, and Cy Wu. Sparse Echo Attention Baselines Revisited Carefully. In ICML , 2021.
- [3] Rui Lu, Ann Other. MACE: Mass Concept Erasure in Diffusion Models. In CVPR, 2024.
- [4] Carla Mendez. A survey that is not in the corpus at all. arXiv, 2022.
- [5] A Paper On Echo Attention. Ourselves. 2025.
"""

CORPUS = [
    {"id": "x1", "title": "Attention Is Not All You Need for Everything", "abstract": "Abstract one.", "year": 2020},
    {"id": "x2", "title": "Sparse Echo Attention Baselines Revisited Carefully", "abstract": "Abstract two.", "year": 2021},
    {"id": "x3", "title": "MACE: Mass Concept Erasure in Diffusion Models", "abstract": "Abstract three.", "year": 2024},
    {"id": "x4", "title": "Some Title Quoted Only by the Reviewer", "abstract": "Abstract four.", "year": 2023},
    {"id": "x5", "title": "A Paper on Echo Attention", "abstract": "Us.", "year": 2025},
]


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "corpus.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in CORPUS))
    return RelatedCorpus.load(path)


def test_numbered_references_and_surnames():
    refs = numbered_references(FULLTEXT)
    assert [n for n, _ in refs] == [1, 2, 3, 4, 5]
    assert refs[1][1].startswith("Alan Smithson, Bo Li")
    assert first_author_surname(refs[0][1]) == "Doe"
    assert first_author_surname(refs[1][1]) == "Smithson"
    assert first_author_surname("J. Achiam, S. Adler, et al. Gpt-4 technical report.") == "Achiam"
    assert first_author_surname("Li, Y. and Wu, B. A title.") == ""  # surname-first: "Li" is too short


def test_cited_numbers():
    assert cited_numbers("as in [7] and [3, 12]") == {3, 7, 12}
    assert cited_numbers("see [5-8] or [10–11]") == {5, 6, 7, 8, 10, 11}
    assert cited_numbers("a list [1]; year [2021] is a number too") == {1, 2021}
    assert cited_numbers("no range [1-500]") == set()
    assert cited_numbers("nothing here") == set()


def test_method_name():
    assert method_name("MACE: Mass Concept Erasure in Diffusion Models") == "MACE"
    assert method_name("EAGLE-3: Scaling up Inference") == "EAGLE-3"
    assert method_name("Who You Are Matters: Bridging Interests") == ""  # four words
    assert method_name("No colon in this title") == ""


def test_references_match_corpus_titles(corpus):
    works = corpus.references_of(FULLTEXT, own_title="A Paper On Echo Attention")
    # [4] is not in the corpus; [5] is the paper itself
    assert [(w.number, w.corpus_id) for w in works] == [(1, "x1"), (2, "x2"), (3, "x3")]
    assert works[1].surname == "Smithson" and works[1].year == "2021"


@pytest.mark.parametrize(("text", "expected"), [
    ("The gain over [2] is within noise.", ["x2"]),
    ("Compare with [1-2].", ["x1", "x2"]),
    ("Smithson et al. report the same numbers.", ["x2"]),
    ("As Doe (2020) showed, this fails.", ["x1"]),
    ("As Doe showed in 2019, this fails.", []),  # wrong year, no "et al."
    ("The claim ignores attention is not all you need for everything entirely.", ["x1"]),
    ("MACE already erases 100 concepts.", ["x3"]),
    ("A MACE-like loss", []),  # a longer name, not MACE
    ("nothing cited here", []),
])
def test_mention_rules(corpus, text, expected):
    works = corpus.references_of(FULLTEXT, own_title="A Paper On Echo Attention")
    assert [w.corpus_id for w in mentioned_works([text], works)] == expected


def test_mentions_from_claims_and_cap(corpus):
    works = corpus.references_of(FULLTEXT)
    got = mentioned_works(["weak", "Echo attention beats sparse baselines [2]. Surveys [1, 3]."], works, max_works=2)
    assert [w.number for w in got] == [1, 2]  # lowest numbers first, capped at 2


def test_titles_the_review_cites(corpus):
    text = ('The paper ignores prior work:\n- Some Title Quoted Only by the Reviewer (CVPR 2023)\n'
            'and "Sparse Echo Attention Baselines Revisited Carefully".')
    got = corpus.cited_titles(text)
    assert [w.corpus_id for w in got] == ["x4", "x2"]
    assert all(w.number is None for w in got)
    block = format_related(got)
    assert block.startswith("\n\n") and "[cited in the review] Some Title Quoted Only by the Reviewer" in block
    assert "Abstract four." in block
    assert format_related([]) == ""


def test_missing_corpus_is_input_error(tmp_path):
    from noveval.errors import InputError

    with pytest.raises(InputError) as e:
        RelatedCorpus.load(tmp_path / "nope.jsonl.gz")
    assert e.value.field == "options.corpus"
