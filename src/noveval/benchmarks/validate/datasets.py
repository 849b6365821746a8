"""The data the validity study reads (``noveval data list``).

- ``peerread-iclr2017``: PeerRead's ICLR 2017 reviews with their 1-5 aspect scores
  (ORIGINALITY, CLARITY, ...), for a second human ceiling (``noveval validate ceiling
  <the .tsv>``). Upstream: one JSON file per paper under
  ``data/iclr_2017/{train,dev,test}/reviews/`` of allenai/PeerRead, each with ``reviews[]``
  whose entries carry ``OTHER_KEYS`` (``"ICLR 2017 conference AnonReviewer2"``),
  ``comments`` and the scores (``ORIGINALITY``, ``SOUNDNESS_CORRECTNESS``, ...). Converted to
  the aspect-score table (TSV, one row per paper and reviewer; ``-`` = not scored).
- the NeurIPS 2025 reviews (originality scores) and the corpus (prior work), shared.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from noveval.data.inputs import Inputs
from noveval.data.spec import Dataset, GitHubFolder
from noveval.errors import InputError
from noveval.io import read_json, write_text
from noveval.progress import track

REPO = "allenai/PeerRead"
BRANCH = "master"
SPLITS = ("train", "dev", "test")
COLUMNS = {  # TSV column -> key in PeerRead's review entries
    "APPROPRIATENESS": "APPROPRIATENESS", "CLARITY": "CLARITY", "ORIGINALITY": "ORIGINALITY",
    "SOUNDNESS / CORRECTNESS": "SOUNDNESS_CORRECTNESS", "MEANINGFUL COMPARISON": "MEANINGFUL_COMPARISON",
    "SUBSTANCE": "SUBSTANCE", "IMPACT": "IMPACT", "RECOMMENDATION": "RECOMMENDATION",
}
HEADER = ["id", "OTHER_KEYS", *COLUMNS, "comments"]

PEERREAD = Dataset(
    name="peerread-iclr2017",
    title="PeerRead ICLR 2017: 427 papers' reviews with 1-5 aspect scores (originality, clarity, ...)",
    outputs=("labels/peerread-iclr2017-aspect-scores.tsv",),
    sources=tuple(GitHubFolder(key=split, repo=REPO, commit=BRANCH, path=f"data/iclr_2017/{split}/reviews",
                               suffix=".json") for split in SPLITS),
    homepage=f"https://github.com/{REPO}",
    licence="none stated for the ICLR 2017 section (OpenReview reviews; research use)",
    size="about 9 MB download (427 files), 2.4 MB on disk",
    convert=f"{__name__}:convert",
    notes="Read from the repository's default branch (no release is tagged): each file is checked against "
          "the blob id GitHub lists. Same columns as the project's copy, whose origin is not documented: its "
          "paper ids are 0-426 where this table has PeerRead's ids, and its rows may differ.",
)


def reviewer_rows(paper: Any, path: Path | str) -> list[dict[str, str]]:
    """One row per reviewer (``AnonReviewer<k>``) of one PeerRead paper file.

    A reviewer's row takes the longest of their non-empty comments (line breaks and tabs
    as spaces) and, for each score, the first of their entries that has it.

    Raises:
        InputError: the file is not a PeerRead paper record.
    """
    if not isinstance(paper, dict) or not isinstance(paper.get("reviews"), list) or "id" not in paper:
        raise InputError(path, None, "reviews", "expected a PeerRead paper record (id, reviews[])")
    by: dict[str, list[dict[str, Any]]] = {}
    for r in paper["reviews"]:
        who = str(r.get("OTHER_KEYS") or "") if isinstance(r, dict) else ""
        if "AnonReviewer" in who and not r.get("IS_META_REVIEW"):
            by.setdefault(who, []).append(r)
    rows = []
    for who in sorted(by, key=lambda w: (len(w), w)):
        entries = by[who]
        text = max((str(e.get("comments") or "") for e in entries), key=len)
        if not text.strip():
            continue
        row = {"id": str(paper["id"]), "OTHER_KEYS": who}
        for col, key in COLUMNS.items():
            row[col] = next((str(e[key]) for e in entries if e.get(key) not in (None, "")), "-")
        row["comments"] = re.sub(r"[\t\r\n]+", " ", text).strip()
        rows.append(row)
    return rows


def convert(inputs: Inputs, out: Path) -> None:
    """``labels/peerread-iclr2017-aspect-scores.tsv`` from the train, dev and test review files."""
    folders = [inputs.folder(split) for split in SPLITS]
    names = [(f, n) for f in folders for n in sorted(f.names(), key=lambda n: (len(n), n))]
    lines = ["\t".join(HEADER)]
    with track(len(names), "PeerRead ICLR 2017 reviews") as t:
        for folder in folders:
            mine = [n for f, n in names if f is folder]
            for _, path in folder.paths(mine):
                lines += ["\t".join(r[c] for c in HEADER) for r in reviewer_rows(read_json(path), path)]
                t.advance()
    if len(lines) == 1:
        raise InputError(None, None, "reviews", "no reviewer with a review in the PeerRead files")
    write_text(out / "labels" / "peerread-iclr2017-aspect-scores.tsv", "\n".join(lines) + "\n")


DATASETS = (PEERREAD, "neurips-reviews", "corpus")
"""PeerRead's aspect scores; the NeurIPS 2025 originality scores and the prior-work corpus."""
