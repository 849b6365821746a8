"""What a converter reads: a dataset's upstream files, from the network or from a local copy.

A converter ``convert(inputs, out)`` asks ``inputs`` for the sources its dataset declares:

- ``inputs.file(key)``: the local path of a :class:`~noveval.data.spec.Remote` (verified);
- ``inputs.folder(key)``: a :class:`Folder` of a :class:`~noveval.data.spec.GitHubFolder`:
  ``names()`` lists its files, ``path(name)`` / ``paths(names)`` fetch them (verified);
- ``inputs.hf(key)``: the rows of a :class:`~noveval.data.spec.HFDataset` by split, or None
  when it cannot be loaded (the converter then reads its declared fallback files);
- ``inputs.data(relative)``: a file of a dataset it ``requires`` (already converted).

:class:`OnlineInputs` downloads (through :class:`~noveval.data.fetch.Fetcher`);
:class:`LocalInputs` reads a copy the user already has (``data get NAME --from PATH``).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol

from noveval.data.fetch import RAW, ChecksumError, Fetcher, check_file, git_blob_sha1, git_tree_sha1
from noveval.data.spec import Dataset, GitHubFolder, HFDataset, Remote
from noveval.errors import InputError
from noveval.settings import data_dirs

__all__ = ["Folder", "Inputs", "LocalInputs", "OnlineInputs", "load_hf_splits"]

log = logging.getLogger("noveval")
WORKERS = 8


class Folder(Protocol):
    """The files of one upstream folder."""

    def names(self) -> list[str]:
        """File names (sorted), only those with the folder's suffix."""
        ...

    def path(self, name: str) -> Path:
        """The verified local copy of one file."""
        ...

    def paths(self, names: list[str]) -> Iterator[tuple[str, Path]]:
        """``(name, path)`` for each of ``names`` in order (fetched several at a time)."""
        ...


class Inputs(Protocol):
    """What a converter reads (see the module docstring)."""

    dataset: Dataset

    def file(self, key: str) -> Path:
        """The verified local copy of the file source ``key``."""
        ...

    def files(self, keys: list[str]) -> Iterator[tuple[str, Path]]:
        """``(key, path)`` for each file source in ``keys``, in order."""
        ...

    def folder(self, key: str) -> Folder:
        """The folder source ``key``."""
        ...

    def hf(self, key: str) -> dict[str, list[dict[str, Any]]] | None:
        """The rows of the Hugging Face source ``key`` by split, or None."""
        ...

    def data(self, relative: str) -> Path:
        """A file of a required dataset."""
        ...


class _Base:
    def __init__(self, dataset: Dataset, target: Path, *, verify: bool = True) -> None:
        self.dataset = dataset
        self.target = target
        self.verify = verify

    def _source(self, key: str, kind: type) -> Any:
        s = self.dataset.source(key)
        if not isinstance(s, kind):
            raise TypeError(f"{self.dataset.name}: source {key!r} is a {type(s).__name__}, not a {kind.__name__}")
        return s

    def data(self, relative: str) -> Path:
        """A file of a dataset this one requires: in the target folder, else any data folder."""
        for folder in [self.target, *data_dirs()]:
            if (folder / relative).is_file():
                return folder / relative
        raise InputError(relative, None, None, f"{self.dataset.name} needs this file of "
                         f"{', '.join(self.dataset.requires) or 'another dataset'}; get that dataset first")


class _OnlineFolder:
    def __init__(self, fetcher: Fetcher, spec: GitHubFolder) -> None:
        self.fetcher, self.spec = fetcher, spec
        entries = self._listing()
        self._blobs = {e["path"]: (str(e["sha"]), e.get("size")) for e in entries
                       if e.get("type") == "blob" and str(e["path"]).endswith(spec.suffix)}

    def _listing(self) -> list[dict[str, Any]]:
        s = self.spec
        if s.tree:
            return self.fetcher.tree(s.repo, s.tree)
        entries = self.fetcher.tree(s.repo, s.commit)  # the commit's root tree, then down the path
        for part in s.path.strip("/").split("/"):
            sub = [e for e in entries if e.get("path") == part and e.get("type") == "tree"]
            if not sub:
                raise InputError(s.url, None, None, f"no folder {part!r} at that commit")
            entries = self.fetcher.tree(s.repo, str(sub[0]["sha"]))
        return entries

    def names(self) -> list[str]:
        return sorted(self._blobs)

    def path(self, name: str) -> Path:
        sha, size = self._blobs[name]
        s = self.spec
        return self.fetcher.fetch(f"{RAW}/{s.repo}/{s.commit}/{s.path}/{name}", git_sha1=sha,
                                  size=int(size) if size is not None else None)

    def paths(self, names: list[str]) -> Iterator[tuple[str, Path]]:
        with ThreadPoolExecutor(WORKERS) as pool:
            yield from zip(names, pool.map(self.path, names), strict=True)


class OnlineInputs(_Base):
    """The upstream files, downloaded (or found already downloaded) by ``fetcher``."""

    def __init__(self, dataset: Dataset, target: Path, fetcher: Fetcher) -> None:
        super().__init__(dataset, target)
        self.fetcher = fetcher

    def file(self, key: str) -> Path:
        """The verified local copy of the :class:`Remote` ``key``."""
        r: Remote = self._source(key, Remote)
        return self.fetcher.fetch(r.url, sha256=r.sha256, git_sha1=r.git_sha1, size=r.size)

    def files(self, keys: list[str]) -> Iterator[tuple[str, Path]]:
        """``(key, path)`` for each of ``keys`` in order (downloaded several at a time)."""
        with ThreadPoolExecutor(WORKERS) as pool:
            yield from zip(keys, pool.map(self.file, keys), strict=True)

    def folder(self, key: str) -> Folder:
        """The :class:`GitHubFolder` ``key`` (its listing is fetched and checked now)."""
        return _OnlineFolder(self.fetcher, self._source(key, GitHubFolder))

    def hf(self, key: str) -> dict[str, list[dict[str, Any]]] | None:
        """The rows of the :class:`HFDataset` ``key`` by split (None: cannot be loaded here)."""
        h: HFDataset = self._source(key, HFDataset)
        local = os.environ.get("NOVEVAL_HF_DIR")
        where = Path(local) / h.repo_id if local else None
        return load_hf_splits(str(where) if where is not None and where.is_dir() else h.repo_id, h, online=True)


def load_hf_splits(name: str, spec: HFDataset, *, online: bool) -> dict[str, list[dict[str, Any]]] | None:
    """``{split: rows}`` of a hub id or a local dataset folder, or None (the reason is logged).

    A local folder written by ``save_to_disk`` is read with ``load_from_disk``; another folder
    (a checkout of the hub repository) and a hub id with ``load_dataset``. A hub id is only
    tried when ``online``.
    """
    try:
        import datasets
    except ImportError:
        log.info("%s: the datasets package is not installed", name)
        return None
    p = Path(name)
    try:
        if p.is_dir() and ((p / "dataset_dict.json").is_file() or (p / "state.json").is_file()):
            ds = datasets.load_from_disk(str(p))
        elif p.is_dir() or online:
            datasets.disable_progress_bars()
            ds = datasets.load_dataset(str(p) if p.is_dir() else name, revision=None if p.is_dir() else spec.revision)
        else:
            return None
    except Exception as e:  # noqa: BLE001 - any loading failure means: use the fallback files
        log.info("%s: cannot load with datasets (%s: %s)", name, type(e).__name__, " ".join(str(e).split())[:200])
        return None
    if not isinstance(ds, datasets.DatasetDict) or any(s not in ds for s in spec.splits):
        log.info("%s: has splits %s, expected %s", name, list(ds) if isinstance(ds, dict) else "none", spec.splits)
        return None
    return {s: ds[s].to_list() for s in spec.splits}


class _LocalFolder:
    def __init__(self, folder: Path, spec: GitHubFolder, verify: bool) -> None:
        self.folder, self.spec = folder, spec
        if verify and spec.tree:
            got = _tree_of(folder)
            if got != spec.tree:
                raise ChecksumError(folder, None, None, f"the folder's git tree id is {got}, published {spec.tree} "
                                    f"(files added, removed or changed; --no-verify converts it anyway)")

    def names(self) -> list[str]:
        return sorted(p.name for p in self.folder.iterdir() if p.is_file() and p.name.endswith(self.spec.suffix))

    def path(self, name: str) -> Path:
        return self.folder / name

    def paths(self, names: list[str]) -> Iterator[tuple[str, Path]]:
        return ((n, self.folder / n) for n in names)


def _tree_of(folder: Path) -> str:
    """The git tree id of a flat folder of regular files (what GitHub lists for it)."""
    entries = []
    for p in sorted(folder.iterdir(), key=lambda q: q.name):
        if not p.is_file():
            raise ChecksumError(p, None, None, "a sub-folder in a folder of files")
        mode = "100755" if os.access(p, os.X_OK) else "100644"
        entries.append({"mode": mode, "path": p.name, "sha": git_blob_sha1(p)})
    return git_tree_sha1(entries)


class LocalInputs(_Base):
    """The upstream files in a folder the user has (a repository checkout or loose files).

    A file is found at its path in the repository under ``root``, else by its name anywhere
    under ``root`` (``root`` may also be the file itself); a folder at its repository path,
    else any folder under ``root`` whose path ends with it, else ``root`` itself.
    """

    def __init__(self, dataset: Dataset, target: Path, root: Path, *, verify: bool = True) -> None:
        super().__init__(dataset, target, verify=verify)
        self.root = root

    def _find_file(self, r: Remote) -> Path | None:
        name = Path(r.path).name
        if self.root.is_file():
            return self.root if self.root.name == name else None
        if (self.root / r.path).is_file():
            return self.root / r.path
        return next((p for p in sorted(self.root.rglob(name)) if p.is_file()), None)

    def file(self, key: str) -> Path:
        """The user's copy of the :class:`Remote` ``key`` (checked unless ``verify`` is off)."""
        r: Remote = self._source(key, Remote)
        p = self._find_file(r)
        if p is None:
            raise InputError(self.root, None, None, f"{self.dataset.name}: no {Path(r.path).name} here "
                             f"(expected {r.path}, from {r.url})")
        why = check_file(p, sha256=r.sha256, git_sha1=r.git_sha1, size=r.size) if self.verify else None
        if why is not None:
            raise ChecksumError(p, None, None, f"not the published file ({why}); --no-verify converts it anyway")
        return p

    def files(self, keys: list[str]) -> Iterator[tuple[str, Path]]:
        """``(key, path)`` for each of ``keys`` in order."""
        return ((k, self.file(k)) for k in keys)

    def folder(self, key: str) -> Folder:
        """The user's copy of the :class:`GitHubFolder` ``key``."""
        spec: GitHubFolder = self._source(key, GitHubFolder)
        if self.root.is_dir():
            if (self.root / spec.path).is_dir():
                return _LocalFolder(self.root / spec.path, spec, self.verify)
            tail = spec.path.strip("/")
            for d in sorted(self.root.rglob(Path(tail).name)):
                if d.is_dir() and d.as_posix().endswith(tail):
                    return _LocalFolder(d, spec, self.verify)
            if any(p.name.endswith(spec.suffix) for p in self.root.iterdir() if p.is_file()):
                return _LocalFolder(self.root, spec, self.verify)
        raise InputError(self.root, None, None, f"{self.dataset.name}: no folder {spec.path} here (from {spec.url})")

    def hf(self, key: str) -> dict[str, list[dict[str, Any]]] | None:
        """The rows of the :class:`HFDataset` ``key`` from a ``save_to_disk`` folder (``root`` or one
        under it), else None."""
        h: HFDataset = self._source(key, HFDataset)
        if not self.root.is_dir():
            return None
        marks = [self.root / "dataset_dict.json", *sorted(self.root.rglob("dataset_dict.json"))]
        found = next((m.parent for m in marks if m.is_file()), None)
        return load_hf_splits(str(found), h, online=False) if found is not None else None
