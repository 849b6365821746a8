"""``noveval data get``: fetch a dataset's upstream files and convert them, or explain how offline.

One dataset at a time: the datasets it requires first, then its converter into a staging
folder beside the target, then every output moved into place (``os.replace``, so a reader
never sees half a file) and recorded in ``<target>/.noveval-data.json`` with its SHA-256.
Downloads are kept in ``<target>/.downloads`` (verified files only), so an interrupted
``data get`` resumes and a repeated one downloads nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from noveval._version import __version__
from noveval.benchmarks import resolve
from noveval.data.catalog import datasets, find, present_in
from noveval.data.fetch import Fetcher, NetworkError, sha256_file
from noveval.data.inputs import LocalInputs, OnlineInputs
from noveval.data.spec import Dataset, GitHubFolder, HFDataset, Remote
from noveval.errors import InputError
from noveval.io import make_dir, write_json
from noveval.settings import data_dirs, data_home

__all__ = ["Got", "NeedsDownload", "get", "instructions", "MANIFEST"]

MANIFEST = ".noveval-data.json"


class NeedsDownload(InputError):
    """No network (or ``offline``): ``instructions`` says what to download and how to convert it."""

    def __init__(self, dataset: Dataset, instructions: str, cause: str) -> None:
        super().__init__(None, None, dataset.name, cause)
        self.instructions = instructions


@dataclass
class Got:
    """What ``get`` did for one dataset."""

    dataset: Dataset
    folder: Path
    action: str  # "converted", "present", "copied"
    downloaded: int = 0
    seconds: float = 0.0


def get(name: str, *, to: Path | None = None, source: Path | None = None, mirror: str | None = None,
        offline: bool = False, force: bool = False, verify: bool = True) -> list[Got]:
    """Get the dataset ``name`` (``"all"``: every one) into ``to``, with the datasets it requires.

    Args:
        name: A dataset name (``noveval data list``) or ``"all"``.
        to: The data folder to write (None: :func:`noveval.settings.data_home`).
        source: A local copy of the upstream files to convert instead of downloading.
        mirror: Another address serving the upstream files (:func:`noveval.data.fetch.mirror_url`).
        offline: Do not download: raise :class:`NeedsDownload` with instructions.
        force: Convert again even when the dataset is already in ``to``.
        verify: Check the checksums of a local copy (downloads are always checked).

    Returns:
        One :class:`Got` per dataset handled, requirements first.

    Raises:
        NeedsDownload: no network, or ``offline``, and the files are not there yet.
        InputError: an unknown name, a local copy that lacks a file or differs from the
            published one, or upstream content the converter cannot read.
    """
    names = list(datasets()) if name == "all" else [find(name).name]
    wanted = Path(to) if to is not None else data_home()
    new = not wanted.exists()
    target = make_dir(wanted, "--to")
    done: list[Got] = []
    fetcher = Fetcher(target / ".downloads", mirror=mirror)
    try:
        for n in names:
            _get_one(find(n), target, fetcher, done, source=source, offline=offline, force=force, verify=verify)
    finally:
        fetcher.close()
        if new:
            _drop_if_empty(target)
    return done


def _drop_if_empty(folder: Path) -> None:
    """Remove ``folder`` when it holds no file (a failed or offline ``get`` leaves no empty data folder
    behind; partial downloads, which a later ``get`` resumes, keep it)."""
    if folder.is_dir() and not any(p.is_file() for p in folder.rglob("*")):
        shutil.rmtree(folder, ignore_errors=True)


def _get_one(ds: Dataset, target: Path, fetcher: Fetcher, done: list[Got], *, source: Path | None,
             offline: bool, force: bool, verify: bool) -> None:
    if any(g.dataset.name == ds.name for g in done):
        return
    pending = []  # offline: what the missing requirements need, said before this dataset's own list
    for req in ds.requires:
        if present_in(find(req), [target, *data_dirs()]) is None:
            if source is not None:  # a --from copy holds this dataset's upstream files, not the requirement's
                raise InputError(source, None, None, f"{ds.name} needs {req} first: noveval data get {req} "
                                 f"(--from a copy of its own upstream files)")
            try:
                _get_one(find(req), target, fetcher, done, source=source, offline=offline, force=False, verify=verify)
            except NeedsDownload as e:
                if not offline:
                    raise
                pending.append(e.instructions)
    if not force and present_in(ds, [target]) is not None:
        done.append(Got(ds, target, "present"))
        return
    elsewhere = None if force or source is not None else present_in(ds, [d for d in data_dirs() if d != target.resolve()])
    if elsewhere is not None:
        _install(ds, elsewhere, target, {"copied_from": str(elsewhere)})
        done.append(Got(ds, target, "copied"))
        return
    if offline and source is None:
        raise NeedsDownload(ds, "\n\n".join([*pending, instructions(ds, target)]), "offline: nothing downloaded")
    done.append(_convert(ds, target, fetcher, source=source, verify=verify))


def _convert(ds: Dataset, target: Path, fetcher: Fetcher, *, source: Path | None, verify: bool) -> Got:
    t0, before = time.monotonic(), fetcher.downloaded
    staging = target / f".staging-{ds.name}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    inputs: Any = (LocalInputs(ds, target, Path(source), verify=verify) if source is not None
                   else OnlineInputs(ds, target, fetcher))
    try:
        resolve(ds.convert)(inputs, staging)
        missing = [rel for rel in ds.outputs if not (staging / rel).is_file()]
        if missing:
            raise InputError(None, None, ds.name, f"the converter wrote no {', '.join(missing)}")
        _install(ds, staging, target, {"from": str(source) if source is not None else "download",
                                       "sources": [s.url for s in ds.sources]})
    except NetworkError as e:
        raise NeedsDownload(ds, instructions(ds, target), f"no network: {e}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return Got(ds, target, "converted", fetcher.downloaded - before, time.monotonic() - t0)


def _install(ds: Dataset, folder: Path, target: Path, how: dict[str, Any]) -> None:
    """Put every output of ``ds`` from ``folder`` into ``target`` (rename, or copy from another
    data folder) and record it with its checksums in the manifest."""
    files = {}
    for rel in ds.outputs:
        dest = target / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        if "copied_from" in how:
            tmp = dest.with_name(f".{dest.name}.part")
            shutil.copyfile(folder / rel, tmp)
            os.replace(tmp, dest)
        else:
            os.replace(folder / rel, dest)
        files[rel] = {"sha256": sha256_file(dest), "bytes": dest.stat().st_size}

    manifest = target / MANIFEST
    entries = json.loads(manifest.read_text(encoding="utf-8")) if manifest.is_file() else {}
    entries[ds.name] = {**how, "files": files, "noveval": __version__,
                        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    write_json(manifest, entries)


def instructions(ds: Dataset, target: Path) -> str:
    """What to download for ``ds`` by hand, and the command that converts it (several lines)."""
    lines = [f"{ds.name}: {ds.title}", f"Download on a machine with internet ({ds.size}):"]
    for s in ds.sources:
        lines += _how_to_get(s)
    lines += ["Put the files in one folder (a checkout of the repository works as it is; loose files are",
              "found by their names), copy it here, and run:",
              f"  noveval data get {ds.name} --from FOLDER --to {target}"]
    if ds.requires:
        lines.append(f"It also needs {', '.join(ds.requires)} (noveval data get NAME for each, the same way).")
    return "\n".join(lines)


def _how_to_get(s: Any) -> list[str]:
    if isinstance(s, Remote):
        check = f"sha256 {s.sha256}" if s.sha256 else f"git blob {s.git_sha1}" if s.git_sha1 else "unchecked"
        return [f"  {s.url}", f"      -> {s.path} ({check})"]
    if isinstance(s, GitHubFolder):
        repo = s.repo.split("/")[1]
        many = f"{s.files} " if s.files else ""
        return [f"  every {many}*{s.suffix} file of {s.url}",
                f"      git clone https://github.com/{s.repo} && git -C {repo} checkout {s.commit}",
                f"      (the files are in {repo}/{s.path})"]
    assert isinstance(s, HFDataset)
    return [f"  {s.url} (splits {', '.join(s.splits)}), with the datasets library:",
            f"      python -c \"import datasets; datasets.load_dataset('{s.repo_id}').save_to_disk('FOLDER')\"",
            "      (or the fallback files listed here)"]
