"""Records from Hugging Face datasets: ``hf:NAME[:SPLIT]`` wherever a records file is read.

Any option that reads records through :func:`noveval.io.read_records` (RINoBench
``--items`` / ``--gold``, NovBench ``--data``, ``run chat --input``) also takes
``hf:NAME[:SPLIT]``, loaded with the ``datasets`` library:

- ``NAME`` a folder written by ``Dataset.save_to_disk`` / ``DatasetDict.save_to_disk``
  -> ``datasets.load_from_disk``;
- ``NAME`` another folder (a dataset repository checked out locally: data files, a
  README with configs) -> ``datasets.load_dataset(folder)``;
- otherwise ``NAME`` is a hub id (``TimSchopf/RINoBench``) -> ``datasets.load_dataset``,
  **offline** unless the user set ``HF_DATASETS_OFFLINE=0``: the dataset is read from the
  local datasets cache (``HF_DATASETS_CACHE``, default ``~/.cache/huggingface/datasets``)
  where an earlier online ``load_dataset`` left it; nothing is downloaded at run time.

``SPLIT`` picks a split; it may be left out when there is only one. Each row is
validated like a record of a JSON array file, and a bad row gives the same error with
the dataset in place of the file: ``hf:org/name:test: [3].research_idea.objective:
required field is missing`` (``[i]`` is the 0-based row, as ``ds[i]``; datasets have no
line numbers).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from noveval.errors import InputError

__all__ = ["HF_PREFIX", "is_hf_source", "parse_hf_source", "source_label", "load_hf_rows"]

HF_PREFIX = "hf:"
_FALSE = {"0", "FALSE", "NO", "OFF"}


def is_hf_source(source: Any) -> bool:
    """True for ``hf:...`` (a str or a Path made from one)."""
    return isinstance(source, (str, Path)) and str(source).startswith(HF_PREFIX)


def parse_hf_source(source: str | Path) -> tuple[str, str | None]:
    """``hf:NAME[:SPLIT]`` -> ``(NAME, SPLIT or None)``.

    Raises:
        InputError: no name after ``hf:``.
    """
    rest = str(source)[len(HF_PREFIX):]
    name, sep, split = rest.rpartition(":")
    if not sep or "/" in split or not split:
        name, split = rest, ""
    if not name:
        raise InputError(str(source), None, None, "expected hf:NAME[:SPLIT], e.g. hf:TimSchopf/RINoBench:test")
    return name, (split or None)


def source_label(source: str | Path) -> str:
    """How a run's config records a data source: ``hf:...`` as given, a file as its absolute path."""
    return str(source) if is_hf_source(source) else str(Path(source).resolve())


def _offline() -> None:
    """Read the hub from the local cache only, unless the user set HF_DATASETS_OFFLINE=0."""
    asked = os.environ.get("HF_DATASETS_OFFLINE")
    if asked is not None and asked.strip().upper() in _FALSE:
        return
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if "datasets" in sys.modules:  # imported before: its settings were read then
        import datasets.config
        import huggingface_hub.constants

        datasets.config.HF_HUB_OFFLINE = True
        huggingface_hub.constants.HF_HUB_OFFLINE = True


def _load(name: str) -> Any:
    import datasets

    datasets.disable_progress_bars()  # noveval shows its own progress; errors still surface
    datasets.utils.logging.set_verbosity_error()
    p = Path(name).expanduser()
    if p.is_dir():
        if (p / "dataset_dict.json").is_file() or (p / "state.json").is_file():
            return datasets.load_from_disk(str(p))
        return datasets.load_dataset(str(p))
    _offline()
    return datasets.load_dataset(name, cache_dir=os.environ.get("HF_DATASETS_CACHE") or None)


def load_hf_rows(source: str | Path) -> list[dict[str, Any]]:
    """The rows of ``hf:NAME[:SPLIT]`` as plain dicts (nested features as dicts and lists).

    Raises:
        InputError: ``datasets`` is not installed, the dataset cannot be loaded (not in the
            local cache, say), the split is missing or ambiguous, or a row is not a record.
    """
    label = str(source)
    name, split = parse_hf_source(source)
    try:
        import datasets
    except ImportError:
        raise InputError(label, None, None, "reading hf: sources needs the datasets package: pip install datasets") from None
    try:
        ds = _load(name)
    except Exception as e:  # noqa: BLE001 - every loading failure is one line naming the source
        msg = " ".join(str(e).split())[:300]
        hint = ""
        if not Path(name).expanduser().exists():
            hint = ("; offline, a hub dataset must already be in the local datasets cache (HF_DATASETS_CACHE): "
                    "load it once with HF_DATASETS_OFFLINE=0, or give a save_to_disk folder")
        raise InputError(label, None, None, f"cannot load the dataset: {type(e).__name__}: {msg}{hint}") from None
    if isinstance(ds, datasets.DatasetDict):
        splits = list(ds)
        if split is None:
            if len(splits) != 1:
                raise InputError(label, None, None, f"has splits {', '.join(splits)}: name one, e.g. hf:{name}:{splits[0]}")
            split = splits[0]
        if split not in ds:
            raise InputError(label, None, None, f"no split {split!r}; the splits are {', '.join(splits)}")
        ds = ds[split]
    elif split is not None and ds.split is not None and str(ds.split) != split:
        raise InputError(label, None, None, f"this dataset is the {ds.split} split, not {split!r}")
    if not isinstance(ds, datasets.Dataset):
        raise InputError(label, None, None, f"expected a dataset of records, got {type(ds).__name__}")
    rows = ds.to_list()
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            raise InputError(label, None, f"[{i}]", f"expected a record, got {type(row).__name__}")
    return rows
