"""Input and corpus validation: clear one-line errors naming file, line and field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from noveval.check.inputs import load_input
from noveval.cli.main import app
from noveval.corpus import load_corpus
from noveval.errors import InputError


def _w(p: Path, text: str) -> Path:
    p.write_text(text, encoding="utf-8")
    return p


def _corpus(p: Path, n: int = 3, abstract: bool = True) -> Path:
    rows = [{"id": f"p{i}", "title": f"Paper {i} on graph learning", "year": 2020 + i % 3,
             **({"abstract": f"We study graph learning method {i} in depth."} if abstract else {})} for i in range(n)]
    return _w(p, "\n".join(json.dumps(r) for r in rows) + "\n")


def test_markdown_idea(tmp_path: Path) -> None:
    md = _w(tmp_path / "idea.md", "# Sparse probes\n\n## Problem\nProbes are dense.\n\n## Objective\nMake them sparse.\n\n"
            "## Approach\nAn L1 penalty on probe weights.\n")
    inp = load_input(md)
    assert inp.kind == "idea" and inp.title == "Sparse probes"
    assert inp.idea is not None and inp.idea.objective == "Make them sparse."


def test_json_paper_and_idea(tmp_path: Path) -> None:
    paper = load_input(_w(tmp_path / "p.json", json.dumps({"title": "T", "abstract": "An abstract.", "year": "2024"})))
    assert paper.kind == "paper" and paper.year == 2024
    idea = load_input(_w(tmp_path / "i.json", json.dumps({"research_idea": {"problem": "p", "objective": "o",
                                                                            "approach": "a"}})))
    assert idea.kind == "idea" and idea.idea is not None and idea.idea.solution_approach == "a"


def test_free_text(tmp_path: Path) -> None:
    inp = load_input(_w(tmp_path / "idea.txt", "Use retrieval to ground novelty judgments of research ideas."))
    assert inp.kind == "text" and inp.idea is None


@pytest.mark.parametrize(
    ("name", "text", "where"),
    [
        ("empty.md", "   \n\n", "empty.md:1: text: the idea is empty"),
        ("empty.json", '{"problem": "p",\n "objective": "",\n "approach": "a"}', "empty.json:2: objective:"),
        ("missing.md", "## Problem\nx\n\n## Approach\ny\n", "missing.md: objective: missing section"),
        ("blank.md", "## Problem\nx\n\n## Objective\n\n## Approach\ny\n", "blank.md:4: objective: section 'objective' is empty"),
        ("wrong.json", '{"name": "x", "description": "y"}', "wrong.json:1: unrecognised fields (name, description)"),
        ("noabs.json", '{"title": "T",\n "abstract": ""}', "noabs.json:2: abstract:"),
    ],
)
def test_bad_inputs(tmp_path: Path, name: str, text: str, where: str) -> None:
    p = _w(tmp_path / name, text)
    with pytest.raises(InputError) as e:
        load_input(p)
    assert str(e.value).startswith(str(tmp_path / where)) or where in str(e.value)


def test_corpus_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"noabs\.jsonl:1: abstract: no corpus paper has an abstract"):
        load_corpus(_corpus(tmp_path / "noabs.jsonl", abstract=False))
    bad = _w(tmp_path / "bad.jsonl", '{"title": "A", "abstract": "x"}\n{"name": "B", "abstract": "y"}\n')
    with pytest.raises(InputError, match=r"bad\.jsonl:2: title:"):
        load_corpus(bad)
    with pytest.raises(InputError, match="no paper left"):
        load_corpus(_corpus(tmp_path / "c.jsonl"), before_year=1990)


def test_corpus_filters(tmp_path: Path) -> None:
    c = load_corpus(_corpus(tmp_path / "c.jsonl", n=9), before_year=2022)
    assert len(c) == 6 and c.dropped_by_year == 3 and max(c.known_years()) == 2021
    s = load_corpus(_corpus(tmp_path / "c.jsonl", n=9), max_papers=4)
    assert len(s) == 4 and s.sampled_from == 9


@pytest.mark.parametrize("case", ["empty_idea", "no_abstracts", "wrong_fields"])
def test_cli_exit_2_one_line(tmp_path: Path, case: str) -> None:
    good_corpus = _corpus(tmp_path / "c.jsonl")
    idea = _w(tmp_path / "idea.md", "## Problem\nx\n\n## Objective\ny\n\n## Approach\nz\n")
    args = {
        "empty_idea": [str(_w(tmp_path / "e.md", "")), "--corpus", str(good_corpus)],
        "no_abstracts": [str(idea), "--corpus", str(_corpus(tmp_path / "n.jsonl", abstract=False))],
        "wrong_fields": [str(_w(tmp_path / "w.json", '{"foo": 1}')), "--corpus", str(good_corpus)],
    }[case]
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["check", *args, "--no-judge", "-o", str(out)])
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and str(tmp_path) in lines[0]
    assert not out.exists()


# --------------------------------------------------------------- the six input kinds (issue 28)

PROSE = ("Linear probes show that a property is decodable from a language model, but they do not show that the model "
         "uses it. Existing causal methods ablate whole layers and are too coarse. We propose training sparse "
         "autoencoders on the residual stream and ablating only the features a probe relies on. We also introduce a "
         "benchmark of forty syntactic phenomena with minimal pairs.")


def _write_pdf(path: Path, pages: list[list[tuple[int, str]]], metadata_title: str | None = None) -> Path:
    """A real PDF (Helvetica text at the given sizes, one list of lines per page), written with pypdf."""
    from pypdf import PdfWriter
    from pypdf.generic import DictionaryObject, NameObject, StreamObject

    w = PdfWriter()
    font = w._add_object(DictionaryObject({NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"):
                                           NameObject("/Type1"), NameObject("/BaseFont"): NameObject("/Helvetica")}))
    for lines in pages:
        page = w.add_blank_page(612, 792)
        page[NameObject("/Resources")] = DictionaryObject({NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})})
        ops, y = ["BT"], 740
        for size, text in lines:
            esc = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
            ops += [f"/F1 {size} Tf", f"1 0 0 1 72 {y} Tm", f"({esc}) Tj"]
            y -= int(size * 1.8)
        ops.append("ET")
        stream = StreamObject()
        stream.set_data("\n".join(ops).encode("latin-1"))
        page[NameObject("/Contents")] = w._add_object(stream)
    if metadata_title is not None:
        w.add_metadata({"/Title": metadata_title})
    w.write(str(path))
    return path


def test_plain_text_with_a_title_line(tmp_path: Path) -> None:
    inp = load_input(_w(tmp_path / "idea.txt", "Causal probing with sparse features\n" + PROSE))
    assert (inp.kind, inp.source, inp.title) == ("text", "text", "Causal probing with sparse features")
    assert inp.found["title"] == "the first line (short, no full stop)"
    # problem: the two sentences with problem cues ("do not", "too coarse"); the claim sentences are ours:
    # the first becomes the objective (no goal cue anywhere), the rest the approach
    assert inp.parts["problem_statement"].text == ". ".join(PROSE.split(". ")[:2]) + "."
    assert inp.parts["objective"].text.startswith("We propose training sparse autoencoders")
    assert inp.parts["objective"].how == "the approach's first sentence (no sentence with a goal cue)"
    assert inp.parts["solution_approach"].text.startswith("We also introduce a benchmark")
    assert [c.text[:22] for c in inp.contributions] == ["We propose training sp", "We also introduce a be"]


def test_markdown_title_and_free_paragraphs(tmp_path: Path) -> None:
    """The issue's case: '# Title' and one paragraph; the title was not recognised before."""
    inp = load_input(_w(tmp_path / "idea.md", "# Causal probing with sparse features\n\n" + PROSE + "\n"))
    assert (inp.kind, inp.source, inp.title) == ("text", "markdown", "Causal probing with sparse features")
    assert inp.found["title"] == "the first heading (line 1)"
    assert inp.text == PROSE and len(inp.contributions) == 2
    assert inp.embedding_text().startswith("Causal probing with sparse features\n\nLinear probes")
    parsed = inp.parsed()
    assert parsed["contributions"][0]["how"].startswith("a sentence with a claim cue")
    assert {k for k in parsed} >= {"source", "title", "problem_statement", "objective", "solution_approach"}


def test_three_heading_idea_with_contributions_from_its_parts(tmp_path: Path) -> None:
    inp = load_input(_w(tmp_path / "idea.md", "# T\n\n## Problem\nProbes are dense and hard to read.\n\n## Objective\n"
                        "Make probes sparse and causal.\n\n## Approach\nAn L1 penalty on probe weights. Then ablate "
                        "the selected dimensions.\n"))
    assert (inp.kind, inp.source) == ("idea", "markdown idea")
    assert inp.parts["objective"].how == "the 'objective' heading (line 6)"
    assert [(c.text, c.how) for c in inp.contributions] == [
        ("Make probes sparse and causal.", "a sentence of the objective"),
        ("An L1 penalty on probe weights.", "a sentence of the approach"),
        ("Then ablate the selected dimensions.", "a sentence of the approach")]


def test_json_paper_with_contributions_field(tmp_path: Path) -> None:
    inp = load_input(_w(tmp_path / "p.json", json.dumps({"title": "Sparse probes", "abstract": PROSE, "year": 2024,
                                                         "contributions": ["Causal sparse probes.", "A benchmark."]})))
    assert (inp.kind, inp.source, inp.year) == ("paper", "json paper", 2024)
    assert [c.how for c in inp.contributions] == ["the 'contributions' field"] * 2
    assert inp.parts["problem_statement"].text.startswith("Linear probes show")
    with pytest.raises(InputError, match=r"p2\.json:1: contributions: must be a list"):
        load_input(_w(tmp_path / "p2.json", json.dumps({"title": "T", "abstract": PROSE, "contributions": "x"})))


def test_full_paper_markdown_uses_its_contribution_list(tmp_path: Path) -> None:
    md = ("## Causal Probing with Sparse Features\n\n## Anonymous Author(s)\n\nAffiliation\n\n## Abstract\n\n" + PROSE
          + "\n\n## 1 Introduction\n\nProbing is popular [3]. In summary, our contributions include: (i) a causal "
          "probing method that ablates sparse autoencoder features, (ii) a benchmark of forty syntactic phenomena, "
          "and (iii) an analysis of six language models.\n\n## 2 Related Work\n\nAmnesic probing [4].\n\n"
          "## References\n\n[1] A. Author. Probing. 2020.\n")
    inp = load_input(_w(tmp_path / "paper.md", md))
    assert (inp.kind, inp.source, inp.title) == ("paper", "markdown paper", "Causal Probing with Sparse Features")
    assert inp.abstract == PROSE and "## 2 Related Work" in inp.fulltext
    assert [c.text for c in inp.contributions] == [
        "a causal probing method that ablates sparse autoencoder features.",
        "a benchmark of forty syntactic phenomena.", "an analysis of six language models."]
    assert inp.contributions[0].how.startswith("listed in the list after")


def test_multi_page_pdf_written_by_the_test(tmp_path: Path) -> None:
    pdf = _write_pdf(tmp_path / "paper.pdf", [
        [(18, "Causal Probing with Sparse Features"), (10, "Anonymous Authors"), (12, "Abstract"),
         (10, "Linear probes show that a property is decodable, not that it is"), (10, "used. We propose ablating "
          "sparse autoen-"), (10, "coder features selected by probes."), (12, "1 Introduction"),
         (10, "Probing is popular. Our contributions are:"), (10, "- a causal probing method based on sparse features;"),
         (10, "- a benchmark of forty syntactic phenomena.")],
        [(12, "2 Related Work"), (10, "Amnesic probing removes information with nullspace projection.")],
        [(12, "3 Method"), (10, "We train sparse autoencoders on the residual stream.")],
    ])
    inp = load_input(pdf)
    assert (inp.kind, inp.source, inp.extra["pages"]) == ("paper", "pdf", 3)
    assert inp.title == "Causal Probing with Sparse Features"
    assert inp.found["title"] == "the largest text on page 1 (PDF)"
    # lines joined, the word hyphenated across lines rejoined, the abstract stops at the first section
    assert inp.abstract == ("Linear probes show that a property is decodable, not that it is used. We propose "
                            "ablating sparse autoencoder features selected by probes.")
    assert "## 2 Related Work" in inp.fulltext and "## 3 Method" in inp.fulltext
    assert [c.text for c in inp.contributions] == ["a causal probing method based on sparse features.",
                                                   "a benchmark of forty syntactic phenomena."]
    bad = tmp_path / "bad.pdf"
    bad.write_bytes(b"%PDF-1.4 this is not really a pdf")
    with pytest.raises(InputError, match=r"bad\.pdf: cannot read this PDF|bad\.pdf: the PDF has no"):
        load_input(bad)


def test_structuring_that_echoes_or_loops_is_rejected() -> None:
    from noveval.check.judge import structuring_problem

    echo = {"problem_statement": "The problem or gap it addresses", "objective": "What it sets out to achieve",
            "solution_approach": "How it proposes to achieve it"}
    assert "repeats the template" in structuring_problem(echo)
    loop = {"problem_statement": "Probes are dense.", "objective": "Sparse probes.",
            "solution_approach": "we train the probe and " * 40}
    assert "loop" in structuring_problem(loop)
    fine = {"problem_statement": "Probes are dense.", "objective": "Make them sparse.",
            "solution_approach": "Use an L1 penalty and ablate the selected dimensions."}
    assert structuring_problem(fine) is None
