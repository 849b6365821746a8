"""Small upstream files written by hand in each dataset's published format, served as a mirror.

:func:`build` writes, for every dataset the systems read, a few records in the layout of its
upstream repository (invented text, never real data), commits each repository with ``git``
(so blob and tree ids come from git itself, not from the code under test), and lays the files
out as a mirror folder (``<root>/<host>/<path>``: GitHub raw files and GitHub API tree
listings) plus a ``datasets`` ``save_to_disk`` folder for RINoBench's Hugging Face splits.
:func:`patched` returns the declarations with the checksums and tree ids of these files, the
only difference from the shipped ones (tests swap them in for the catalogue's).
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import shutil
import subprocess
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from noveval.data.spec import Dataset, GitHubFolder, Remote

SAMPLES = Path(__file__).parents[1] / "src" / "noveval" / "samples"
RAW = "raw.githubusercontent.com"
API = "api.github.com"


# -- upstream files, one function per repository -------------------------------------------------


def llm4novelty() -> dict[str, bytes]:
    recs = json.loads((SAMPLES / "novbench" / "records.json").read_text())
    coling = [{"id": f"c{i}", "title": r["title"], "abstract": r["abstract"], "decision": "accept",
               "paper_novelty": str(r["paper_novelty"]), "review_novelty": str(r["review_novelty"]),
               "output_format": r["output_format"]} for i, r in enumerate(recs[:2])]
    emnlp = [{k: r[k] for k in ("id", "title", "abstract", "keywords", "paper_novelty", "review_novelty",
                                "output_format", "retrieved_title", "retrieved_abstract")} for r in recs[:1]]
    csv = ("paper_id,sentence,label\n"
           "1,Prior work on understandability (Nübel 1997) ignores sensibleness.,0\n"
           "1,\"We introduce a grouped evaluation, the first for dialogue (see §2).\",1\n"
           "2,Dependency parsing has two formalisms.,0\n"
           "2,We propose a multitask parser for both.,1\n")
    return {
        "rebuttal_result/Final_data_coling.json": json.dumps(coling, indent=1).encode(),
        "rebuttal_result/Final_data_change.json": json.dumps(emnlp).encode(),
        "rebuttal_result/Final_data_del.json": json.dumps(emnlp).encode(),
        "data/COLING_labeled_data.csv": csv.encode("gbk"),
        "data/novelty_data.json": json.dumps([["The idea of sharing adapters is novel.", "NOVELTY"]]).encode(),
        "data/non_novelty_data.json": json.dumps([{"text": "Table 2 is hard to read.", "labels": ["Clarity"]}]).encode(),
        "data/novelty_Yuan.json": json.dumps([["The approach is not new .", "NOVELTY"],
                                               ["A fresh take on retrieval .", "NOVELTY"]]).encode(),
        "code/unrelated.py": b"print('not data')\n",
    }


RUBRIC = [f"{k}: {t}" for k, t in enumerate(["Not novel: done before.", "Slightly novel: a small change.",
                                              "Moderately novel: a new combination.", "Novel: a clear step.",
                                              "Very novel: a new direction."], start=1)]
MODELS = ["DeepSeek-R1", "Llama-3.1-8B-Instruct", "Llama-3.3-70B-Instruct", "Llama-4-Scout-17B-16E-Instruct",
          "gpt-5-2025-08-07", "gpt-oss-120b", "o3-2025-04-16"]


def rinobench_items() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(train, test): the shipped invented sample ideas, split."""
    items = json.loads((SAMPLES / "rinobench" / "test.json").read_text())
    return items[:1], items


def rinobench() -> dict[str, bytes]:
    train, test = rinobench_items()
    files = {"data/final_benchmark_dataset/train.json": json.dumps(train).encode(),
             "data/final_benchmark_dataset/test.json": json.dumps(test).encode(),
             "data/final_benchmark_dataset/label_descriptions.json": json.dumps(RUBRIC).encode()}
    for k, m in enumerate(MODELS):
        preds = [{"reasoning": f"{m} thinks so.", "novelty_score": (i + k) % 5 + 1} for i in range(len(test))]
        files[f"data/novelty_predictions/novelty_predictions-{m}.json"] = json.dumps(preds).encode()
    return files


def _sentence(rid: str, i: int, text: str, aspect: str, polarity: str) -> dict[str, Any]:
    return {"review_id": rid, "sentence_index": i, "text": text, "suffix": "", "review_action": "arg_evaluative",
            "fine_review_action": "none", "aspect": aspect, "polarity": polarity}


def disapere_record(rid: str) -> dict[str, Any]:
    return {"metadata": {"forum_id": f"f{rid}", "review_id": rid, "rating": 6, "conference": "ICLR2019"},
            "review_sentences": [_sentence(rid, 0, "The method is original.", "asp_originality", "pol_positive"),
                                 _sentence(rid, 1, "The writing is unclear.", "asp_clarity", "pol_negative")],
            "rebuttal_sentences": []}


def disapere() -> dict[str, bytes]:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("DISAPERE/documentation/README.txt", "guidelines")
        for split, rid in (("test", "T1"), ("train", "R2"), ("train", "R1"), ("dev", "D1")):
            z.writestr(f"DISAPERE/final_dataset/{split}/{rid}.json", json.dumps(disapere_record(rid)))
    return {"DISAPERE.zip": buf.getvalue(), "README.md": b"# DISAPERE\n"}


def mred() -> dict[str, bytes]:
    val = "2018-1\tThe paper is clear.\tstrength\n2018-1\tThe gains are small.\tweakness\n\n2018-2\tAccept.\tdecision\n"
    test = "2019-7\tA solid contribution.\tstrength\n"
    return {"classification/data/val.txt": val.encode(), "classification/data/test.txt": test.encode()}


REVIEW_2025 = ("SUMMARY:\nThe paper studies {t}.\n\nSTRENGTHS AND WEAKNESSES:\nStrong idea.\n\nWeak baselines.\n\n"
               "QUESTIONS:\nWhy this setting?\n\nLIMITATIONS:\nyes")
REVIEW_2023 = "SUMMARY:\nAbout {t}.\n\nSTRENGTHS:\nClear.\n\nWEAKNESSES:\nSmall data.\n\nQUESTIONS:\nNone.\n\nLIMITATIONS:\nyes"


def export_paper(pid: str, year: int, originality: list[int], *, keyword: str = "graph learning",
                 accepted: bool | None = True, conference: str | None = None) -> dict[str, Any]:
    """One paper of the OpenReview export (scrape_neurips layout)."""
    title = f"Paper {pid} on {keyword}"
    text = (REVIEW_2025 if year == 2025 else REVIEW_2023).format(t=keyword)
    reviews: list[dict[str, Any]] = []
    for k, o in enumerate(originality):
        scores = ({"RECOMMENDATION": 3 + o, "REVIEWER_CONFIDENCE": 3, "CLARITY": 3, "IMPACT": 2, "ORIGINALITY": o}
                  if year == 2025 else {"RECOMMENDATION": 5 + o, "REVIEWER_CONFIDENCE": 4, "SOUNDNESS_CORRECTNESS": 3})
        reviews.append({"IS_META_REVIEW": False, "comments": text + f"\nreviewer {k}", "TITLE": "Official Review",
                        **scores, "DATE": f"{year}-07-0{k + 1}"})
    reviews.append({"IS_META_REVIEW": True, "comments": "DECISION:\nAccept (poster)\n\nCOMMENT:\nFine work.",
                    "RECOMMENDATION": "Accept (poster)", "TITLE": "Decision", "DATE": f"{year}-09-21"})
    return {"title": title, "abstract": f"We study {keyword} in paper {pid}; " + "it matters a lot. " * 5, "id": pid,
            "authors": ["A. Author"], "accepted": accepted, "keywords": [keyword],
            "conference": conference or f"NeurIPS {year}", "reviews": reviews, "histories": []}


EXPORT_2025 = {"A25": [4, 4, 3], "B25": [1, 2, 1], "C25": [3, 3, 2], "D25": [2, 1, 2], "E25": [4, 3, 4], "F25": [1, 1, 2]}
"""NeurIPS 2025 papers of the export and their reviewers' originality scores (1-4)."""


def fulltext(pid: str, references: bool) -> str:
    refs = "## References\n\n[1] A. Author. An earlier paper. 2020.\n" if references else "## Appendix\n\nMore.\n"
    return (f"## Paper {pid}\n\n## Abstract\n\nWe study things.\n\n## 1 Introduction\n\nOur main claim is that "
            f"the method improves accuracy by 5 points on the benchmark.\n\n## 2 Experiments\n\nTable 1 shows it.\n\n{refs}")


def export() -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    base = {2023: "output/neurips_2023/reviews", 2024: "output/neurips_2024/reviews", 2025: "output/neurips_2025_full/reviews"}
    papers = {2023: {"A23": [3, 2], "B23": [4]}, 2024: {"A24": [2, 2]}, 2025: EXPORT_2025}
    for year, ps in papers.items():
        for pid, orig in ps.items():
            files[f"{base[year]}/{pid}.json"] = json.dumps(export_paper(pid, year, orig, accepted=pid != "B25")).encode()
    files[f"{base[2023]}/X23.json"] = json.dumps(export_paper("X23", 2023, [3], conference="NeurIPS 2024")).encode()
    parsed = "output/neurips_2025_full/parsed_pdfs"
    for pid in ("A25", "B25", "C25", "D25"):
        files[f"{parsed}/{pid}.pdf.md"] = fulltext(pid, references=pid != "B25").encode()
        files[f"{parsed}/{pid}.pdf.json"] = b'{"texts": []}'
    files["output/neurips_2024/manifest.json"] = b"{}"
    return files


def paperlists() -> dict[str, bytes]:
    iclr = [
        {"id": "Ia", "title": "Graph Learning at Scale ", "abstract": " We scale graph learning to billions of edges "
         "with a sampler that keeps the variance low. ", "status": "Poster", "keywords": "graphs;scaling, sampling",
         "rating": "6;7", "gs_citation": "12"},
        {"id": "Ib", "title": "Preface", "abstract": "Preface to ICLR.", "status": "Poster", "gs_citation": "-1"},
        {"id": "Ic", "title": "A Note on Optimisers", "abstract": "An optimiser that needs no tuning of its "
         "learning rate, shown on ten tasks.", "status": "Reject", "keywords": "", "gs_citation": "None"},
    ]
    cvpr = [
        {"pid": "7", "title": "graph learning at scale", "abstract": "A duplicate title in lower case, long enough "
         "to pass the length rule.", "status": "Oral", "session": "Graphs"},
        {"pid": "8", "title": "Depth From One Image", "abstract": "We predict depth from a single image with a "
         "transformer trained on synthetic scenes.", "status": "Poster", "session": "3D"},
    ]
    aaai = [{"id": "00001", "title": "Planning with Language", "abstract": "Language models plan better when the "
             "plan is checked by a symbolic verifier.", "status": "Technical", "primary_area": "Planning",
             "gs_citation": "3"}]
    return {"iclr/iclr2018.json": json.dumps(iclr).encode(), "cvpr/cvpr2016.json": json.dumps(cvpr).encode(),
            "aaai/aaai2022.json": json.dumps(aaai).encode(), "README.md": b"# lists\n"}


def peerread_paper(pid: str, reviewers: list[tuple[int, int | None]]) -> dict[str, Any]:
    """A PeerRead ICLR 2017 paper: (AnonReviewer k, ORIGINALITY or None) per reviewer, listed twice."""
    reviews: list[dict[str, Any]] = [{"IS_META_REVIEW": True, "comments": "Meta."},
                                     {"OTHER_KEYS": "ICLR 2017 pcs", "comments": "Accept.", "IS_META_REVIEW": False}]
    for k, orig in reviewers:
        entry: dict[str, Any] = {"OTHER_KEYS": f"ICLR 2017 conference AnonReviewer{k}", "IS_META_REVIEW": False,
                                 "comments": f"Review {k} of {pid}.\nIt\tis fine.", "RECOMMENDATION": 6 + k}
        if orig is not None:
            entry["ORIGINALITY"] = orig
        reviews.append(entry)
        reviews.append({"OTHER_KEYS": entry["OTHER_KEYS"], "IS_META_REVIEW": False, "comments": "", "CLARITY": 3})
    return {"id": pid, "title": f"P{pid}", "abstract": "x", "reviews": reviews + reviews, "accepted": True}


def peerread() -> dict[str, bytes]:
    papers = {"train": {"304": [(1, 4), (2, None), (3, 2)], "12": [(1, 3), (2, 3), (3, 4)]},
              "dev": {"330": [(1, 2), (2, 2), (3, 1)]}, "test": {"7": [(1, 5), (2, 4), (3, 4)]}}
    files = {f"data/iclr_2017/{split}/reviews/{pid}.json": json.dumps(peerread_paper(pid, revs)).encode()
             for split, ps in papers.items() for pid, revs in ps.items()}
    files["data/iclr_2017/train/parsed_pdfs/304.pdf.json"] = b"{}"
    files["code/README.md"] = b"code\n"
    return files


UPSTREAM = {"njust-winchy/llm4novelty": llm4novelty, "TimSchopf/RINoBench": rinobench,
            "nnkennard/DISAPERE": disapere, "Shen-Chenhui/MReD": mred, "djroytburg/10718peerread": export,
            "papercopilot/paperlists": paperlists, "allenai/PeerRead": peerread}
"""Each upstream repository of the declarations and its fixture files."""


# -- git repositories, the mirror layout and the patched declarations -----------------------------


def _git(repo: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "GIT_AUTHOR_DATE": "2020-01-01T00:00:00Z",
           "GIT_COMMITTER_DATE": "2020-01-01T00:00:00Z", "HOME": str(repo), "PATH": "/usr/bin:/bin"}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env).stdout


def _commit(folder: Path, files: dict[str, bytes]) -> None:
    for rel, data in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)
    _git(folder, "init", "-q")
    _git(folder, "add", "-A")
    _git(folder, "commit", "-q", "-m", "fixture")


def _listing(repo: Path, tree: str) -> dict[str, Any]:
    """The GitHub API answer for ``git/trees/<tree>`` (from ``git ls-tree -l``)."""
    entries = []
    for line in _git(repo, "ls-tree", "-l", tree).splitlines():
        meta, name = line.split("\t", 1)
        mode, typ, sha, size = meta.split()
        e: dict[str, Any] = {"path": name, "mode": mode, "type": typ, "sha": sha}
        if typ == "blob":
            e["size"] = int(size)
        entries.append(e)
    sha = _git(repo, "rev-parse", tree).strip()
    return {"sha": sha, "tree": entries, "truncated": False}


@dataclass
class Upstream:
    """The fixture repositories, the mirror folder and what the declarations need."""

    root: Path  # repositories: root/<owner>+<name>
    mirror: Path  # served by tests/data_mirror.py
    hf: Path  # NOVEVAL_HF_DIR
    trees: dict[tuple[str, str], str] = field(default_factory=dict)  # (repo, folder path) -> tree id

    def repo(self, name: str) -> Path:
        return self.root / name.replace("/", "+")

    def file(self, repo: str, path: str) -> Path:
        return self.repo(repo) / path


def _serve_tree(up: Upstream, repo: str, ref: str, tree: str) -> None:
    """Put the listing of ``tree`` (and of every sub-tree) in the mirror, under ``ref`` too."""
    folder = up.repo(repo)
    doc = _listing(folder, tree)
    for name in {ref, doc["sha"]}:
        dest = up.mirror / API / "repos" / repo / "git" / "trees" / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(json.dumps(doc))
    for e in doc["tree"]:
        if e["type"] == "tree":
            _serve_tree(up, repo, e["sha"], e["sha"])


def build(tmp: Path, datasets: dict[str, Dataset]) -> Upstream:
    """Write every upstream repository, the mirror layout and the HF folder under ``tmp``."""
    import datasets as hf

    up = Upstream(tmp / "repos", tmp / "mirror", tmp / "hf")
    commits = {(s.url.split("/")[3] + "/" + s.url.split("/")[4]): s.url.split("/")[5]
               for d in datasets.values() for s in d.sources if isinstance(s, Remote)}
    commits |= {s.repo: s.commit for d in datasets.values() for s in d.sources if isinstance(s, GitHubFolder)}
    for repo, make in UPSTREAM.items():
        folder = up.repo(repo)
        files = make()
        _commit(folder, files)
        for rel, data in files.items():
            dest = up.mirror / RAW / repo / commits[repo] / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(data)
        _serve_tree(up, repo, commits[repo], "HEAD^{tree}")
        for d in datasets.values():
            for s in d.sources:
                if isinstance(s, GitHubFolder) and s.repo == repo:
                    up.trees[(repo, s.path)] = _git(folder, "rev-parse", f"HEAD:{s.path}").strip()
    train, test = rinobench_items()
    hf.DatasetDict({"train": hf.Dataset.from_list(train), "test": hf.Dataset.from_list(test)}).save_to_disk(
        str(up.hf / "TimSchopf" / "RINoBench"))
    return up


def patched(datasets: dict[str, Dataset], up: Upstream) -> dict[str, Dataset]:
    """The declarations with the fixture files' SHA-256 and sizes and the fixture trees' ids; the
    corpus reads the fixture's conference files only."""
    out = {}
    for name, d in datasets.items():
        sources = list(d.sources)
        if name == "corpus":  # the fixture's conference files instead of the pinned 216
            tmpl = next(s for s in sources if isinstance(s, Remote))
            base = tmpl.url[: -len(tmpl.path)]
            sources = [dataclasses.replace(tmpl, key=p, path=p, url=base + p) for p in sorted(paperlists())
                       if p.endswith(".json")]
        new = []
        for s in sources:
            if isinstance(s, Remote):
                repo = "/".join(s.url.split("/")[3:5])
                data = up.file(repo, s.path).read_bytes()
                s = dataclasses.replace(s, sha256=hashlib.sha256(data).hexdigest(), git_sha1=None, size=len(data))
            elif isinstance(s, GitHubFolder) and s.tree is not None:
                s = dataclasses.replace(s, tree=up.trees[(s.repo, s.path)])
            new.append(s)
        out[name] = dataclasses.replace(d, sources=tuple(new))
    return out


def checkout(up: Upstream, repo: str, into: Path) -> Path:
    """A copy of a fixture repository's files (what a user's ``git clone`` holds, without .git)."""
    dest = into / repo.split("/")[1]
    shutil.copytree(up.repo(repo), dest, ignore=shutil.ignore_patterns(".git"))
    return dest
