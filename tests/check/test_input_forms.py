"""Issue 36: the same idea in any form gives the same opinion — plain text, Markdown and a PDF set in one
font size give the same title, parts, contributions, evidence verdicts and metrics; a PDF's title is its
metadata title, else its largest text, else its first line set apart, never a page-2 heading."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from index_helpers import embedder_for, write_jsonl
from noveval.check.inputs import load_input
from noveval.check.opinion import CheckOptions, check_idea
from noveval.check.parse import UNSEPARATED, heuristic_idea

from .test_inputs import _write_pdf

TITLE = "Graph planning for robot grasping"
PROSE = ("Robot grasping planners fail on cluttered scenes because they lack a graph of object contacts. "
         "We aim to plan grasps over a contact graph in order to grasp unseen objects. "
         "We propose a graph planning method that builds the contact graph from depth images and plans robot "
         "grasping on it. We also release a benchmark of text descriptions of grasping scenes for language models.")


def _forms(tmp_path: Path) -> dict[str, Path]:
    txt = tmp_path / "idea.txt"
    txt.write_text(f"{TITLE}\n{PROSE}\n", encoding="utf-8")
    md = tmp_path / "idea.md"
    md.write_text(f"# {TITLE}\n\n{PROSE}\n", encoding="utf-8")
    lines = [(11, TITLE), *[(11, ln) for ln in textwrap.wrap(PROSE, 78, break_on_hyphens=False)]]
    return {"txt": txt, "md": md, "pdf": _write_pdf(tmp_path / "idea.pdf", [lines])}


def _parsed(path: Path) -> dict:
    """input.parsed without the form and the rules' wording (which names the form: "line 1", "PDF")."""
    p = load_input(path).parsed()
    return {k: ([c["text"] for c in v] if k == "contributions" else v["text"]) for k, v in p.items() if k != "source"}


def test_txt_md_and_one_font_size_pdf_parse_alike(tmp_path: Path) -> None:
    forms = _forms(tmp_path)
    parsed = {k: _parsed(p) for k, p in forms.items()}
    assert parsed["txt"] == parsed["md"] == parsed["pdf"]
    got = parsed["pdf"]
    assert got["title"] == TITLE  # the first line of a one-font-size PDF (it used to merge into the text)
    assert load_input(forms["pdf"]).found["title"] == "the first line of page 1, set apart from the text after it (PDF)"
    ss = PROSE.split(". ")
    assert got["problem_statement"] == ss[0] + "." and got["objective"] == ss[1] + "."
    assert got["solution_approach"] == ". ".join(ss[2:])  # three parts, three different sentences
    assert got["contributions"] == [ss[2] + ".", ss[3]]


@pytest.mark.slow
def test_txt_md_and_pdf_give_the_same_verdicts(tmp_path: Path) -> None:
    rows = [{"id": f"p{i}", "title": f"study {i} of {w}", "abstract": f"Notes on {w} and {w2} in text.", "year": 2015}
            for i, (w, w2) in enumerate([("diffusion", "molecules"), ("language", "text"), ("molecules", "graph")] * 12)]
    rows += [{"id": "hit", "title": "Contact graphs for robot grasping", "year": 2019,
              "abstract": "We build a contact graph from depth images. We plan robot grasping on the contact graph."},
             {"id": "bench", "title": "Grasping scenes described in text", "year": 2020,
              "abstract": "A benchmark of text descriptions of grasping scenes for language models."}]
    corpus = write_jsonl(tmp_path / "corpus.jsonl", rows)
    emb = embedder_for(tmp_path)
    opts = CheckOptions(judge=False, top_k=5, pool_size=30, metrics=("Yin", "RND", "SemNovel", "FastTextLOF"),
                        min_papers=10)
    out = {k: check_idea(p, corpus, options=opts, embedder=emb) for k, p in _forms(tmp_path).items()}
    verdicts = {k: [(e["text"], e["verdict"], [w["title"] for w in e["works"]]) for e in r["evidence"]["contributions"]]
                for k, r in out.items()}
    assert verdicts["txt"] == verdicts["md"] == verdicts["pdf"]
    assert [v for _t, v, _w in verdicts["pdf"]] != ["new", "new"]  # the evidence found something to compare
    metrics = {k: [(m["name"], m["score"], m["percentile"]) for m in r["metrics"]] for k, r in out.items()}
    assert metrics["txt"] == metrics["md"] == metrics["pdf"] and len(metrics["pdf"]) == 4
    assert all(m[2] is not None for m in metrics["pdf"])  # FastTextLOF too: it reads the title
    assert len({json.dumps(r["neighbours"]) for r in out.values()}) == 1
    assert len({r["verdict"]["summary"] for r in out.values()}) == 1


def test_pdf_title_with_abstract_and_a_page_two_heading(tmp_path: Path) -> None:
    """The issue's PDF: one font size, a title line, 'Abstract', text, page 2 opening with '1 Introduction'.
    It was refused (no title); without the 'Abstract' line its title was page 2's heading."""
    body = [(10, ln) for ln in textwrap.wrap(PROSE, 78)]
    page2 = [(10, "1 Introduction"), (10, "Grasping in clutter is an old problem of robot planning.")]
    with_abstract = load_input(_write_pdf(tmp_path / "a.pdf", [[(10, TITLE), (10, "Abstract"), *body], page2]))
    assert (with_abstract.kind, with_abstract.title) == ("paper", TITLE)
    assert with_abstract.abstract == PROSE
    without = load_input(_write_pdf(tmp_path / "b.pdf", [[(10, TITLE), *body], page2]))
    assert without.title == TITLE and "1 Introduction" not in without.title
    assert TITLE not in without.parts["objective"].text


def test_pdf_title_from_metadata_first_and_never_body_text(tmp_path: Path) -> None:
    body = [(10, ln) for ln in textwrap.wrap(PROSE, 78)]
    meta = load_input(_write_pdf(tmp_path / "m.pdf", [[(10, "Preprint. Under review"), (10, TITLE), *body]],
                                 metadata_title=TITLE))
    assert meta.title == TITLE and meta.found["title"] == "the document's metadata title (PDF)"
    assert TITLE not in meta.parts["problem_statement"].text  # the printed title line is not body text
    assert meta.contributions == load_input(_forms(tmp_path)["txt"]).contributions
    junk = load_input(_write_pdf(tmp_path / "j.pdf", [[(10, TITLE), *body]], metadata_title="Microsoft Word - idea.docx"))
    assert junk.title == TITLE and junk.found["title"].startswith("the first line of page 1")
    # a PDF that opens with a paragraph (its first line fills the width) has no title; it is not invented
    none = load_input(_write_pdf(tmp_path / "n.pdf", [body]))
    assert none.title == "" and none.found["title"] == "none found"


@pytest.mark.parametrize(("text", "why"), [
    ("We propose a graph planner for robot grasping with contact graphs.", "1 sentence"),
    ("We propose a graph planner for robot grasping. We show it grasps unseen objects.", "2 sentences"),
])
def test_prose_without_distinct_parts_says_so_and_uses_the_whole_text(text: str, why: str) -> None:
    parts = heuristic_idea(text)
    assert {p.text for p in parts.values()} == {text}
    assert {p.how for p in parts.values()} == {UNSEPARATED.format(n=why)}


def test_prose_parts_are_never_the_same_sentence() -> None:
    """The issue's plain prose: the problem took the method sentence and objective = approach."""
    text = ("We propose sparse probes that ablate features. We train them on the residual stream. "
            "Our method finds the features a model uses.")
    parts = heuristic_idea(text)
    texts = [p.text for p in parts.values()]
    assert len(set(texts)) == 3 or set(texts) == {text}
    assert not any(p.how.startswith("sentences with problem cues") for p in parts.values())


def test_pdf_paper_without_a_readable_title_is_checked_untitled(tmp_path: Path) -> None:
    """A PDF is not refused for lacking a title (the issue's PDF was): it is read untitled and says so."""
    body = [(10, ln) for ln in textwrap.wrap(PROSE, 78)]
    inp = load_input(_write_pdf(tmp_path / "u.pdf", [[(10, "Draft of 3 March, please do not circulate."),
                                                      (10, "Abstract"), *body]]))
    assert (inp.kind, inp.title, inp.found["title"]) == ("paper", "", "none found")
    assert inp.abstract == PROSE
