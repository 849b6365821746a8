"""``noveval index add``: the arXiv snapshot, OpenAlex works and Semantic Scholar papers + abstracts,
deduplicated by DOI / arXiv id / normalised title, appended incrementally (the same BM25 as a rebuild)."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("bm25s")

from index_helpers import PAPERS, embedder_for, write_jsonl  # noqa: E402
from noveval.errors import InputError  # noqa: E402
from noveval.index import build_index, open_index, search  # noqa: E402
from noveval.index.build import add_papers  # noqa: E402
from noveval.index.formats import dedup_keys, detect_format, inverted_to_text, read_papers  # noqa: E402

# Records written the way each source publishes them (field names and value shapes from their docs).
ARXIV = [
    {"id": "2301.00001", "submitter": "A. Author", "authors": "A. Author, B. Author",
     "title": "Sparse probes\n  for causal features", "comments": "12 pages", "journal-ref": None,
     "doi": "10.1000/sparse.1", "report-no": None, "categories": "cs.LG cs.CL",
     "license": "http://arxiv.org/licenses/nonexclusive-distrib/1.0/",
     "abstract": "  We train sparse probes on the\nresidual stream and ablate the features they select.\n",
     "versions": [{"version": "v1", "created": "Mon, 2 Jan 2023 10:00:00 GMT"},
                  {"version": "v2", "created": "Tue, 7 Mar 2023 10:00:00 GMT"}],
     "update_date": "2023-03-07", "authors_parsed": [["Author", "A.", ""], ["Author", "B.", ""]]},
    {"id": "2302.00002", "title": "Robot grasping with tactile graphs", "doi": None, "categories": "cs.RO",
     "abstract": "Tactile graphs let a robot hand grasp unseen objects.", "versions": [
         {"version": "v1", "created": "Wed, 1 Feb 2023 09:00:00 GMT"}], "update_date": "2023-02-01"},
    {"id": "2303.00003", "title": "A paper without abstract", "categories": "cs.AI", "abstract": "",
     "versions": [{"version": "v1", "created": "Wed, 1 Mar 2023 09:00:00 GMT"}], "update_date": "2023-03-01"},
]

OPENALEX = [
    {"id": "https://openalex.org/W4300000001", "doi": "https://doi.org/10.1000/SPARSE.1",  # same DOI as arXiv 1
     "title": "Sparse probes for causal features (journal version)", "display_name": "Sparse probes ...",
     "publication_year": 2024, "abstract_inverted_index": {"Journal": [0], "version.": [1]}, "type": "article",
     "primary_topic": {"subfield": {"display_name": "Artificial Intelligence"}}},
    {"id": "https://openalex.org/W4300000002", "doi": "https://doi.org/10.48550/arxiv.2302.00002",  # arXiv DOI
     "title": "Grasping with touch", "publication_year": 2023,
     "abstract_inverted_index": {"Touch": [0], "helps.": [1]}},
    {"id": "https://openalex.org/W4300000003", "doi": None, "title": "Diffusion models for molecule design",
     "publication_year": 2022, "abstract_inverted_index": {"We": [0, 6], "generate": [1], "molecules": [2],
                                                            "with": [3], "diffusion.": [4], "Then": [5], "test.": [7]},
     "primary_location": {"landing_page_url": "https://arxiv.org/abs/2205.12345v3"},
     "primary_topic": {"subfield": {"display_name": "Computer Vision and Pattern Recognition"}}},
]

S2_PAPERS = [
    {"corpusid": 11, "externalids": {"ArXiv": "2301.00001", "DOI": None, "CorpusId": "11"}, "url": "x",
     "title": "Sparse Probes for Causal Features", "authors": [], "venue": "", "year": 2023,
     "citationcount": 3, "s2fieldsofstudy": [{"category": "Computer Science", "source": "s2-fos-model"}]},
    {"corpusid": 12, "externalids": {"ArXiv": None, "DOI": "10.2000/lang.7"}, "title": "Language models as tutors",
     "year": 2024},
    {"corpusid": 13, "externalids": {}, "title": "Graph networks, revisited!", "year": 2021},
    {"corpusid": 14, "externalids": {}, "title": "No abstract here at all", "year": 2021},
]
S2_ABSTRACTS = [
    {"corpusid": 11, "openaccessinfo": {"externalids": {}, "license": None, "url": None, "status": None},
     "abstract": "Same paper as the arXiv one."},
    {"corpusid": 12, "openaccessinfo": {}, "abstract": "Language models tutor students in algebra."},
    {"corpusid": 13, "openaccessinfo": {}, "abstract": "We revisit graph networks for molecules."},
]


def _gz(path: Path, rows: list[dict]) -> Path:
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture()
def idx(tmp_path: Path):
    corpus = write_jsonl(tmp_path / "c.jsonl", [*PAPERS, {"id": "g", "title": "Graph Networks Revisited",
                                                          "abstract": "old graph paper", "year": 2019}])
    return build_index(corpus, tmp_path / "idx", embedder=embedder_for(tmp_path))


def test_readers_and_detection(tmp_path: Path):
    a = write_jsonl(tmp_path / "arxiv.json", ARXIV)
    o = _gz(tmp_path / "works.jsonl.gz", OPENALEX)
    sp, sa = write_jsonl(tmp_path / "papers.jsonl", S2_PAPERS), write_jsonl(tmp_path / "abstracts.jsonl", S2_ABSTRACTS)
    assert [detect_format(p) for p in (a, o, sp, sa)] == ["arxiv", "openalex", "s2-papers", "s2-abstracts"]
    papers, counts = read_papers([a])
    assert counts["read"] == 3 and counts["skipped_no_abstract"] == 1
    p = papers[0]
    assert p["id"] == "arxiv:2301.00001" and p["title"] == "Sparse probes for causal features"
    assert p["abstract"] == "We train sparse probes on the residual stream and ablate the features they select."
    assert (p["year"], p["field"], p["doi"], p["arxiv"]) == (2023, "ML", "10.1000/sparse.1", "2301.00001")
    assert papers[1]["field"] == "Robotics"
    papers, _ = read_papers([o])
    assert papers[2]["abstract"] == "We generate molecules with diffusion. Then We test."
    assert (papers[2]["arxiv"], papers[2]["field"], papers[0]["field"]) == ("2205.12345", "CV", "AI")
    assert papers[0]["doi"] == "10.1000/sparse.1"  # resolver prefix and case removed
    papers, counts = read_papers([sp, sa])
    assert [x["id"] for x in papers] == ["s2:11", "s2:12", "s2:13"] and counts["skipped_no_abstract"] == 1
    assert papers[0]["arxiv"] == "2301.00001" and papers[1]["doi"] == "10.2000/lang.7"
    assert inverted_to_text({"b": [1], "a": [0, 2]}) == "a b a"


def test_dedup_keys_hand_checked():
    assert dedup_keys({"title": "Graph Networks, Revisited!", "doi": "https://doi.org/10.1/X"}) == [
        "doi:10.1/x", "title:graph networks revisited"]
    # an arXiv DOI is an arXiv id; versions and prefixes do not matter; short titles need the same id
    assert dedup_keys({"title": "Short", "doi": "10.48550/arXiv.2302.00002v2", "id": "q"}) == [
        "arxiv:2302.00002", "id+title:q|short"]
    assert dedup_keys({"title": "A B", "arxiv": "arXiv:2301.00001v3"}) == ["arxiv:2301.00001"]


def test_add_each_format_dedups_and_matches_a_rebuild(idx, tmp_path: Path):
    emb = embedder_for(tmp_path)
    a = write_jsonl(tmp_path / "arxiv.json", ARXIV)
    out, added, dup = add_papers(idx, a, embedder=emb)
    assert (added, dup, len(out)) == (2, 0, 8)
    # OpenAlex: W1 has arXiv 1's DOI, W2 is arXiv 2 by its arXiv DOI; only W3 is new
    out, added, dup = add_papers(out, _gz(tmp_path / "works.jsonl.gz", OPENALEX), fmt="openalex")
    assert (added, dup, len(out)) == (1, 2, 9)
    # S2: 11 is arXiv 1 by its ArXiv id, 13 is "Graph Networks Revisited" by normalised title
    files = [write_jsonl(tmp_path / "papers.jsonl", S2_PAPERS), write_jsonl(tmp_path / "abstracts.jsonl", S2_ABSTRACTS)]
    out, added, dup = add_papers(out, files, fmt="s2")
    assert (added, dup, len(out)) == (1, 2, 10)
    assert [p["id"] for p in out.papers(range(6, 10))] == ["arxiv:2301.00001", "arxiv:2302.00002",
                                                            "openalex:W4300000003", "s2:12"]
    assert list(out.years[6:10]) == [2023, 2023, 2022, 2024]
    assert out.field_names[out.field_codes[6]] == "ML" and out.field_names[out.field_codes[0]] == "ML"
    assert out.dense_coverage() == (0, 10) and np.asarray(out.vectors()).shape == (10, 8)
    assert len(out.meta["lexical"]) and len(out.meta["sources"]) == 4 and out.meta["sources"][2]["duplicates"] == 2
    # incremental BM25 = BM25 of a fresh build over the same rows
    rows = list(out.iter_papers())
    fresh = build_index(write_jsonl(tmp_path / "all.jsonl", rows), tmp_path / "fresh")
    for q in ("sparse probes residual", "graph molecules", "language models tutor algebra", "robot grasp"):
        assert np.allclose(out.bm25.scores(q), fresh.bm25.scores(q), atol=1e-5), q
    assert search(out, "tutor students algebra", mode="bm25", k=1, with_similarity=False).rows() == [9]
    # the same file again: everything is a duplicate, nothing changes but the record of sources
    out, added, dup = add_papers(out, a)
    assert (added, dup, len(out)) == (0, 2, 10)


def test_killed_add_leaves_the_index_as_it_was(idx, tmp_path: Path, monkeypatch):
    import noveval.index.build as b

    a = write_jsonl(tmp_path / "arxiv.json", ARXIV)
    before = idx.bm25.scores("graph planning robot")

    def boom(*args, **kw):  # a fault a real add cannot be made to have: dying after the lexical part was written
        raise KeyboardInterrupt

    monkeypatch.setattr(b, "_write_meta", boom)
    with pytest.raises(KeyboardInterrupt):
        add_papers(idx, a)
    monkeypatch.undo()
    again = open_index(idx.path)
    assert len(again) == 6 and len(list(again.iter_papers())) == 6  # papers.jsonl may hold more bytes: ignored
    assert np.allclose(again.bm25.scores("graph planning robot"), before)
    out, added, _dup = add_papers(again, a)  # a later add finishes the job from the committed state
    assert added == 2 and len(out) == 8 and [p["id"] for p in out.papers([6, 7])] == ["arxiv:2301.00001",
                                                                                      "arxiv:2302.00002"]
    assert len(list(out.iter_papers())) == 8


def test_version_1_index_is_searched_and_converted_by_add(idx, tmp_path: Path):
    from noveval.index.bm25 import BM25Index, BM25Params

    folder = idx.path
    meta = json.loads((folder / "index.json").read_text())
    BM25Index.build([f"{p['title']}\n\n{p['abstract']}" for p in idx.iter_papers()], BM25Params()).save(folder / "bm25")
    shutil.rmtree(folder / "lexical")
    meta.update(format_version=1, bm25={"k1": 1.5, "b": 0.75, "stopwords": "en", "stem": False})
    meta.pop("lexical")
    (folder / "index.json").write_text(json.dumps(meta))
    old = open_index(folder)
    assert old.meta["format_version"] == 1 and search(old, "graph", mode="bm25", k=2, with_similarity=False).rows()
    out, added, _ = add_papers(old, write_jsonl(tmp_path / "arxiv.json", ARXIV))
    assert added == 2 and out.meta["format_version"] == 2 and not (folder / "bm25").exists()
    # converted with the plain settings the version 1 index had: scores equal bm25s's on all rows
    ref = BM25Index.build([f"{p['title']}\n\n{p['abstract']}" for p in out.iter_papers()], BM25Params())
    assert np.allclose(out.bm25.scores("sparse probes graph"), ref.scores("sparse probes graph"), atol=1e-5)


def test_bad_records_name_file_line_and_field(tmp_path: Path, idx):
    bad = write_jsonl(tmp_path / "a.json", [ARXIV[1], {**ARXIV[0], "versions": [{"created": "someday"}]}])
    with pytest.raises(InputError, match=r"a\.json:2: versions: no year"):
        read_papers([bad])
    only = write_jsonl(tmp_path / "papers.jsonl", S2_PAPERS)
    with pytest.raises(InputError, match="abstracts dataset too"):
        read_papers([only])
    oa = write_jsonl(tmp_path / "w.jsonl", [{**OPENALEX[2], "publication_year": "n.d."}])
    with pytest.raises(InputError, match=r"w\.jsonl:1: publication_year"):
        read_papers([oa])
    with pytest.raises(InputError, match="reads as arxiv records, not openalex"):
        read_papers([write_jsonl(tmp_path / "x.json", ARXIV)], "openalex")


def test_cli_add_arxiv(tmp_path: Path):
    from typer.testing import CliRunner

    from noveval.cli.main import app

    corpus = write_jsonl(tmp_path / "c.jsonl", PAPERS)
    r = CliRunner().invoke(app, ["index", "build", str(corpus), "-o", str(tmp_path / "idx"), "--no-dense"])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(app, ["index", "add", str(tmp_path / "idx"), str(write_jsonl(tmp_path / "a.json", ARXIV)),
                                 "--format", "arxiv"])
    assert r.exit_code == 0 and "added 2, skipped 1 without an abstract, duplicates 0, papers now 7" in r.output, r.output
    r = CliRunner().invoke(app, ["index", "add", str(tmp_path / "idx"), str(write_jsonl(tmp_path / "w.json", OPENALEX)),
                                 "--format", "arxiv"])
    assert r.exit_code == 2 and "reads as openalex records, not arxiv" in r.output
    assert len(open_index(tmp_path / "idx")) == 7
