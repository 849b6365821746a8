"""``noveval data get`` for every dataset the systems read: online (a local mirror) and ``--from``.

Each dataset is fetched from the mirror of its hand-written upstream files (tests/data_upstream.py)
and converted; the outputs are checked against values worked out by hand from those files, and
converting a checkout of the same files with ``--from`` gives the same bytes.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from data_mirror import MirrorServer
from data_upstream import (
    EXPORT_2025,
    MODELS,
    RUBRIC,
    Upstream,
    checkout,
    disapere_record,
    rinobench_items,
)
from noveval.data import catalog, openreview
from noveval.data.get import get


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in gzip.open(path, "rt", encoding="utf-8")]


def _novbench(d: Path, up: Upstream) -> None:
    src = up.repo("njust-winchy/llm4novelty")
    assert (d / "novbench/coling2020.json").read_bytes() == (src / "rebuttal_result/Final_data_coling.json").read_bytes()
    text = (d / "novbench/coling2020-intro-sentences-labeled.csv").read_text(encoding="utf-8")
    assert "(Nübel 1997)" in text and "(see §2)" in text  # GBK upstream, UTF-8 here
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["label"] for r in rows] == ["0", "1", "0", "1"] and rows[1]["paper_id"] == "1"
    pool = json.loads(gzip.decompress((d / "novbench/reviewadvisor-novelty-sentences.json.gz").read_bytes()))
    assert pool == [["The approach is not new .", "NOVELTY"], ["A fresh take on retrieval .", "NOVELTY"]]
    from noveval.benchmarks.novbench.data import load_records

    assert [r.id for r in load_records(d / "novbench/coling2020.json")] == ["c0", "c1"]


def _rinobench(d: Path, up: Upstream) -> None:
    from noveval.benchmarks.rinobench.data import load_items, load_predictions, load_rubric

    train, test = rinobench_items()
    got = load_items(d / "rinobench/test.json", require_gold=True)
    assert [it.novelty_score for it in got] == [t["novelty_score"] for t in test]
    assert [it.research_idea.objective for it in got] == [t["research_idea"]["objective"] for t in test]
    assert len(load_items(d / "rinobench/train.json")) == len(train) == 1
    assert load_rubric(d / "rinobench/label_descriptions.json")[5] == "Very novel: a new direction."
    assert json.loads((d / "rinobench/label_descriptions.json").read_text()) == RUBRIC
    for k, m in enumerate(MODELS):
        preds = load_predictions(d / f"rinobench/predictions/novelty_predictions-{m}.json")
        assert [p.novelty_score for p in preds] == [(i + k) % 5 + 1 for i in range(len(test))]


def _reviews(d: Path, up: Upstream) -> None:
    r23 = _jsonl(d / "reviews/neurips-2023.jsonl.gz")
    assert [r["id"] for r in r23] == ["A23", "B23"]  # X23 says NeurIPS 2024: not this year's
    a = r23[0]
    assert (a["venue"], a["year"], a["accepted"], a["keywords"]) == ("NeurIPS", 2023, True, ["graph learning"])
    assert [rv["scores"] for rv in a["reviews"]] == [
        {"recommendation": 8, "reviewer_confidence": 4, "soundness_correctness": 3},
        {"recommendation": 7, "reviewer_confidence": 4, "soundness_correctness": 3}]
    assert a["reviews"][0]["sections"] == {"summary": "About graph learning.", "strengths": "Clear.",
                                           "weaknesses": "Small data.", "questions": "None.",
                                           "limitations": "yes\nreviewer 0"}
    assert a["meta_review"] == {"text": "DECISION:\nAccept (poster)\n\nCOMMENT:\nFine work.",
                                "sections": {"decision": "Accept (poster)", "comment": "Fine work."},
                                "recommendation": "Accept (poster)"}
    r25 = _jsonl(d / "reviews/neurips-2025.jsonl.gz")
    assert [r["id"] for r in r25] == sorted(EXPORT_2025)
    assert {r["id"]: [rv["scores"]["originality"] for rv in r["reviews"]] for r in r25} == EXPORT_2025
    assert r25[0]["reviews"][0]["sections"]["strengths_and_weaknesses"] == "Strong idea.\n\nWeak baselines."
    assert [r["accepted"] for r in r25] == [True, False, True, True, True, True]
    assert [r["id"] for r in _jsonl(d / "reviews/neurips-2024.jsonl.gz")] == ["A24"]


def _fulltext(d: Path, up: Upstream) -> None:
    rows = _jsonl(d / "fulltext/neurips-2025-fulltext.jsonl.gz")
    assert [r["id"] for r in rows] == ["A25", "C25", "D25"]  # B25's Markdown has no References heading
    parsed = up.repo("djroytburg/10718peerread") / "output/neurips_2025_full/parsed_pdfs"
    assert rows[1]["fulltext_markdown"] == (parsed / "C25.pdf.md").read_text()
    reviews = {r["id"]: r for r in _jsonl(d / "reviews/neurips-2025.jsonl.gz")}
    assert {k: v for k, v in rows[0].items() if k != "fulltext_markdown"} == reviews["A25"]


def _corpus(d: Path, up: Upstream) -> None:
    rows = _jsonl(d / "corpus/papers.jsonl.gz")
    ids = [r["id"] for r in rows]
    # file order aaai, cvpr, iclr; Ia repeats cvpr's title (case, spaces), Ib's abstract is too short
    assert ids == ["aaai2022:00001", "cvpr2016:7", "cvpr2016:8", "iclr2018:Ic", "openreview:A23", "openreview:B23",
                   "openreview:A24", *(f"openreview:{p}" for p in sorted(EXPORT_2025))]
    by = {r["id"]: r for r in rows}
    assert by["aaai2022:00001"] | {"abstract": ""} == {
        "id": "aaai2022:00001", "title": "Planning with Language", "abstract": "", "year": 2022, "venue": "AAAI",
        "field": "AI", "tags": ["Planning"], "keywords": [], "status": "Technical", "gs_citation": 3, "rating": None,
        "source": "papercopilot/paperlists"}
    assert (by["cvpr2016:7"]["field"], by["cvpr2016:7"]["tags"], by["cvpr2016:7"]["status"]) == ("CV", ["Graphs"], "Oral")
    assert (by["iclr2018:Ic"]["gs_citation"], by["iclr2018:Ic"]["keywords"]) == (None, [])
    b25 = by["openreview:B25"]
    assert (b25["venue"], b25["field"], b25["status"], b25["keywords"], b25["source"]) == (
        "NEURIPS", "ML", "rejected", ["graph learning"], "djroytburg/10718peerread")
    from noveval.corpus import load_corpus

    assert len(load_corpus(d / "corpus/papers.jsonl.gz")) == len(rows)


def _disapere(d: Path, up: Upstream) -> None:
    rows = _jsonl(d / "labels/disapere.jsonl.gz")
    assert [(r["split"], r["file"]) for r in rows] == [("train", "R1.json"), ("train", "R2.json"),
                                                        ("dev", "D1.json"), ("test", "T1.json")]
    assert rows[0] == {"split": "train", "file": "R1.json", **disapere_record("R1")}
    from noveval.benchmarks.focus.agreement import disapere_items

    assert sorted(it["gold"] for it in disapere_items(d / "labels/disapere.jsonl.gz", n=None)) == ["Clarity"] * 4 + ["Novelty"] * 4


def _mred(d: Path, up: Upstream) -> None:
    rows = _jsonl(d / "labels/mred-meta-review-sentences.jsonl.gz")
    assert rows == [
        {"split": "val", "meta_review_id": "2018-1", "sentence": "The paper is clear.", "label": "strength"},
        {"split": "val", "meta_review_id": "2018-1", "sentence": "The gains are small.", "label": "weakness"},
        {"split": "val", "meta_review_id": "2018-2", "sentence": "Accept.", "label": "decision"},
        {"split": "test", "meta_review_id": "2019-7", "sentence": "A solid contribution.", "label": "strength"}]


def _peerread(d: Path, up: Upstream) -> None:
    text = (d / "labels/peerread-iclr2017-aspect-scores.tsv").read_text()
    rows = list(csv.DictReader(io.StringIO(text), delimiter="\t"))
    assert [(r["id"], r["OTHER_KEYS"][-1]) for r in rows] == [
        ("12", "1"), ("12", "2"), ("12", "3"), ("304", "1"), ("304", "2"), ("304", "3"),
        ("330", "1"), ("330", "2"), ("330", "3"), ("7", "1"), ("7", "2"), ("7", "3")]
    r = rows[3]
    assert (r["ORIGINALITY"], r["CLARITY"], r["RECOMMENDATION"], r["IMPACT"]) == ("4", "3", "7", "-")
    assert r["comments"] == "Review 1 of 304. It is fine."
    assert rows[4]["ORIGINALITY"] == "-"
    from noveval.benchmarks.validate.data import load_peerread_ratings

    lists, counts = load_peerread_ratings(d / "labels/peerread-iclr2017-aspect-scores.tsv")
    assert lists == [[3, 3, 4], [4, 2], [2, 2, 1], [5, 4, 4]] and counts["not_rated"] == 1


EXPECT: dict[str, tuple[Callable[[Path, Upstream], None], str]] = {
    "novbench": (_novbench, "njust-winchy/llm4novelty"),
    "rinobench": (_rinobench, "TimSchopf/RINoBench"),
    "neurips-reviews": (_reviews, "djroytburg/10718peerread"),
    "neurips-fulltext": (_fulltext, "djroytburg/10718peerread"),
    "corpus": (_corpus, "papercopilot/paperlists"),
    "disapere": (_disapere, "nnkennard/DISAPERE"),
    "mred": (_mred, "Shen-Chenhui/MReD"),
    "peerread-iclr2017": (_peerread, "allenai/PeerRead"),
}
"""Every dataset: its checks and the upstream repository a ``--from`` copy is made of."""


def test_every_declared_dataset_is_tested_here() -> None:
    assert set(EXPECT) == set(catalog.datasets())


def _outputs(folder: Path, name: str) -> dict[str, bytes]:
    return {rel: (folder / rel).read_bytes() for rel in catalog.find(name).outputs}


@pytest.mark.parametrize("name", sorted(EXPECT))
def test_online_from_the_mirror_and_from_a_local_copy(name: str, fixture_catalog: dict, upstream: Upstream,
                                                      mirror: MirrorServer, tmp_path: Path) -> None:
    check, repo = EXPECT[name]
    online = tmp_path / "online"
    got = get(name, to=online, mirror=mirror.url)
    assert got[-1].dataset.name == name and got[-1].action == "converted" and got[-1].downloaded > 0
    check(online, upstream)
    manifest = json.loads((online / ".noveval-data.json").read_text())
    assert set(manifest[name]["files"]) == set(catalog.find(name).outputs)
    # the same again downloads nothing; --force converts again from the verified downloads
    assert get(name, to=online, mirror=mirror.url)[-1].action == "present"
    again = get(name, to=online, mirror="http://127.0.0.1:9", force=True)  # a dead mirror: nothing is fetched
    assert again[-1].action == "converted" and again[-1].downloaded == 0
    # a checkout of the upstream repository converts to the same bytes (requirements copied over first)
    local = tmp_path / "local"
    local.mkdir()
    for req in catalog.find(name).requires:
        for rel in catalog.find(req).outputs:
            (local / rel).parent.mkdir(parents=True, exist_ok=True)
            (local / rel).write_bytes((online / rel).read_bytes())
    copy = checkout(upstream, repo, tmp_path / "checkouts")
    get(name, to=local, source=copy)
    assert _outputs(local, name) == _outputs(online, name)


def test_fulltext_takes_the_first_papers_with_references(fixture_catalog: dict, mirror: MirrorServer,
                                                         tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(openreview, "FULLTEXT_PAPERS", 2)
    get("neurips-fulltext", to=tmp_path / "d", mirror=mirror.url)
    assert [r["id"] for r in _jsonl(tmp_path / "d/fulltext/neurips-2025-fulltext.jsonl.gz")] == ["A25", "C25"]
    # only the Markdown files it needed were downloaded (A25, B25, C25 of the first batch), none of the .pdf.json
    assert not mirror.requests("D25.pdf.json")
