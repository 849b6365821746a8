"""The data NovBench reads (``noveval data list``): the files released with the paper.

Upstream: https://github.com/njust-winchy/llm4novelty at a pinned commit. Conversion:
the JSON files are copied as they are (checked by their SHA-256); the labelled
introduction sentences are re-encoded from GBK (how the CSV is published) to UTF-8; the
ReviewAdvisor sentence pool is gzip-compressed. The RAG prompt can also read the shared
``corpus``.
"""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

from noveval.data.fetch import RAW
from noveval.data.inputs import Inputs
from noveval.data.spec import Dataset, Remote
from noveval.errors import InputError
from noveval.io import read_json

REPO = "njust-winchy/llm4novelty"
COMMIT = "c34448edaecfa7143d672dbeabd69bec4e796824"


def _remote(key: str, path: str, sha256: str, size: int) -> Remote:
    return Remote(key=key, url=f"{RAW}/{REPO}/{COMMIT}/{path}", path=path, sha256=sha256, size=size)


COPIED = {  # output name -> source key (JSON files copied unchanged)
    "coling2020.json": "coling2020",
    "emnlp2023-sample-paraphrased.json": "emnlp-paraphrased",
    "emnlp2023-sample-deleted.json": "emnlp-deleted",
    "review-sentences-novelty.json": "review-novelty",
    "review-sentences-non-novelty.json": "review-non-novelty",
}

NOVBENCH = Dataset(
    name="novbench",
    title="NovBench release: COLING 2020 gold evaluations, EMNLP 2023 perturbation samples, labelled sentences",
    outputs=tuple(f"novbench/{n}" for n in (*COPIED, "coling2020-intro-sentences-labeled.csv",
                                            "reviewadvisor-novelty-sentences.json.gz")),
    sources=(
        _remote("coling2020", "rebuttal_result/Final_data_coling.json",
                "deb487401d682644122df2356369e6a6a9b38b546d7ae11532bff633b73be09e", 273053),
        _remote("emnlp-paraphrased", "rebuttal_result/Final_data_change.json",
                "54f0dc9aeb52e12516d89b1c729e117a0ca89b571dd0acd5f10dace6dc316718", 1115738),
        _remote("emnlp-deleted", "rebuttal_result/Final_data_del.json",
                "2cc421a09be96cfa993b57b7f4dcb7b68d039d011ec925a0eae7203af865ab58", 1073645),
        _remote("intro-sentences", "data/COLING_labeled_data.csv",
                "e4ae795ba8d50d5156ac6bee3727a7e7ab5cfc4b4c1560466b9a0a51a470f460", 361813),
        _remote("review-novelty", "data/novelty_data.json",
                "5ff621b633dea2b42e90b4904c94942f88b49ea415ab4883012f1b7cf7125372", 80195),
        _remote("review-non-novelty", "data/non_novelty_data.json",
                "1d789455425b02fda3ca032749aeaf88d3b7a5a1a213eba22c0270222a36e411", 100410),
        _remote("reviewadvisor-pool", "data/novelty_Yuan.json",
                "7138b75a4edb987b07b748b65fb7bc7fe96a8a6eeb2b7fcb7ce8f78795d4abd5", 2307006),
    ),
    homepage=f"https://github.com/{REPO}",
    licence="none stated (no licence file in the repository)",
    size="5.3 MB download, 3.4 MB on disk",
    convert=f"{__name__}:convert",
    notes="The same content as the project's copy (checked file by file).",
)


def convert(inputs: Inputs, out: Path) -> None:
    """Write the NovBench files under ``out/novbench`` (see the module docstring)."""
    dest = out / "novbench"
    dest.mkdir(parents=True, exist_ok=True)
    for name, key in COPIED.items():
        path = inputs.file(key)
        read_json(path)  # a file that is not JSON stops here, named
        shutil.copyfile(path, dest / name)
    csv = inputs.file("intro-sentences")
    try:
        text = csv.read_bytes().decode("gb18030")
    except UnicodeDecodeError as e:
        raise InputError(csv, None, None, f"not GBK/GB18030 text as published: {e}") from None
    (dest / "coling2020-intro-sentences-labeled.csv").write_text(text, encoding="utf-8", newline="")
    pool = inputs.file("reviewadvisor-pool")
    read_json(pool)
    (dest / "reviewadvisor-novelty-sentences.json.gz").write_bytes(gzip.compress(pool.read_bytes(), mtime=0))


DATASETS = (NOVBENCH, "corpus")
"""NovBench's release files; the shared corpus for its RAG prompt (``--corpus``)."""
