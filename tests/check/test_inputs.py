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
