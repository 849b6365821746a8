"""The data focus-level evaluation reads (``noveval data list``).

- ``disapere``: DISAPERE (Kennard et al.), review sentences labelled with aspect and
  polarity, for the annotator check (``noveval focus agreement``). Upstream: the
  ``DISAPERE.zip`` release, one JSON file per review under
  ``DISAPERE/final_dataset/<split>/``; converted to one JSON line per review with its
  ``split`` and ``file`` name (splits train, dev, test; files by name).
- ``mred``: MReD (Shen et al.), meta-review sentences labelled strength, weakness, ...
  Upstream: ``classification/data/{val,test}.txt``, lines ``<meta-review id>\\t<sentence>\\t<label>``
  with a blank line between meta-reviews; converted to ``{split, meta_review_id, sentence, label}``.
- the NeurIPS reviews (shared) are the expert reviews the model's are compared with.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

from noveval.data.fetch import RAW
from noveval.data.inputs import Inputs
from noveval.data.spec import Dataset, Remote
from noveval.errors import InputError
from noveval.io import write_jsonl

DISAPERE_COMMIT = "9adab87b997852c5447cfee6e3fd5bfad5e70311"
MRED_COMMIT = "3c521614746e55a3322ac6a584f7344e53a8b053"
DISAPERE_SPLITS = ("train", "dev", "test")
MRED_SPLITS = {"val": ("classification/data/val.txt", "d0554dc99ae29ca2a29ef324ab294e0dc6007474a860cb26922d8fc9f3ee8d7c", 638000),
               "test": ("classification/data/test.txt", "a0a11ccacc8cbdb8e7626d12f58c35d34dae8036afc4ae9195f462ba2b8ad0b6", 663041)}

DISAPERE = Dataset(
    name="disapere",
    title="DISAPERE: 506 ICLR 2019-20 reviews, sentences labelled with review action, aspect and polarity",
    outputs=("labels/disapere.jsonl.gz",),
    sources=(Remote(key="zip", url=f"{RAW}/nnkennard/DISAPERE/{DISAPERE_COMMIT}/DISAPERE.zip", path="DISAPERE.zip",
                    sha256="39d90749db64904fab001c7defd86bfbd08dfa572c38c3e5ef19b25585f5523e", size=3050876),),
    homepage="https://github.com/nnkennard/DISAPERE",
    licence="CC BY-NC 4.0",
    size="3.1 MB download, 1.1 MB on disk",
    convert=f"{__name__}:convert_disapere",
    notes="Identical records to the project's copy.",
)

MRED = Dataset(
    name="mred",
    title="MReD: 8,677 ICLR meta-review sentences labelled strength, weakness, abstract, decision, ...",
    outputs=("labels/mred-meta-review-sentences.jsonl.gz",),
    sources=tuple(Remote(key=split, url=f"{RAW}/Shen-Chenhui/MReD/{MRED_COMMIT}/{path}", path=path, sha256=s, size=n)
                  for split, (path, s, n) in MRED_SPLITS.items()),
    homepage="https://github.com/Shen-Chenhui/MReD",
    licence="none stated (no licence file in the repository)",
    size="1.3 MB download, 0.4 MB on disk",
    convert=f"{__name__}:convert_mred",
    notes="The validation and test splits (the training split is not read).",
)


def disapere_records(path: Path) -> list[dict[str, Any]]:
    """One record per review of the DISAPERE zip: ``{split, file, metadata, review_sentences, ...}``.

    Raises:
        InputError: not a zip, or no ``final_dataset`` review files in it.
    """
    try:
        z = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as e:
        raise InputError(path, None, None, f"not a zip archive: {e}") from None
    with z:
        names = [n for n in z.namelist() if "/final_dataset/" in n and n.endswith(".json")]
        rows = []
        for split in DISAPERE_SPLITS:
            for n in sorted(x for x in names if x.split("/")[-2] == split):
                try:
                    rec = json.loads(z.read(n).decode("utf-8"))
                except (UnicodeDecodeError, json.JSONDecodeError) as e:
                    raise InputError(f"{path}:{n}", None, None, f"invalid JSON: {e}") from None
                if not isinstance(rec, dict) or "review_sentences" not in rec:
                    raise InputError(f"{path}:{n}", None, "review_sentences", "expected a DISAPERE review record")
                rows.append({"split": split, "file": n.split("/")[-1], **rec})
    if not rows:
        raise InputError(path, None, None, "no DISAPERE/final_dataset/<split>/*.json files in the archive")
    return rows


def convert_disapere(inputs: Inputs, out: Path) -> None:
    """``labels/disapere.jsonl.gz`` from the release zip."""
    write_jsonl(out / "labels" / "disapere.jsonl.gz", disapere_records(inputs.file("zip")))


def mred_records(path: Path, split: str) -> list[dict[str, Any]]:
    """The labelled sentences of one MReD split file.

    Raises:
        InputError: a non-blank line without three tab-separated fields (names its line).
    """
    rows = []
    for i, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
        if not line.strip():
            continue
        parts = line.rstrip("\r").split("\t")
        if len(parts) != 3:
            raise InputError(path, i, None, f"expected '<meta-review id>\\t<sentence>\\t<label>', got {len(parts)} fields")
        rows.append({"split": split, "meta_review_id": parts[0], "sentence": parts[1], "label": parts[2]})
    return rows


def convert_mred(inputs: Inputs, out: Path) -> None:
    """``labels/mred-meta-review-sentences.jsonl.gz`` from the validation and test split files."""
    rows = [r for split in MRED_SPLITS for r in mred_records(inputs.file(split), split)]
    write_jsonl(out / "labels" / "mred-meta-review-sentences.jsonl.gz", rows)


DATASETS = (DISAPERE, MRED, "neurips-reviews")
"""The annotator-check label sets, and the expert reviews."""
