"""How a dataset is declared: its upstream files, where they are published, and its converter.

A system declares the datasets it reads in ``<package>/datasets.py`` as ``DATASETS``: a
tuple of :class:`Dataset` (the ones it owns) and names (``"corpus"``) of datasets declared
elsewhere (the ones several systems share live in :mod:`noveval.data.shared`).
``noveval data list`` and ``noveval data get`` read these declarations and nothing else.

Upstream files are pinned: a GitHub file by its commit in the URL and its checksum, a
folder of a GitHub repository by its git tree id (which fixes the name and git blob id of
every file in it), a Hugging Face dataset by its repository id (its rows are checked by the
converter, and a pinned fallback file is declared beside it).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Dataset", "GitHubFolder", "HFDataset", "Remote", "Source"]


@dataclass(frozen=True)
class Remote:
    """One upstream file, downloaded over HTTP(S).

    Attributes:
        key: The name the converter asks for (``inputs.file(key)``).
        url: Where it is published (a GitHub raw URL names its commit).
        path: Its path in the upstream repository or archive: where ``--from`` looks for
            it (then for its base name anywhere under the folder given).
        sha256: Its SHA-256 (hex), when known.
        git_sha1: Its git blob id (hex), when the SHA-256 is not known: GitHub publishes it
            in the repository's tree, so the download is still checked.
        size: Its size in bytes, when known.
    """

    key: str
    url: str
    path: str
    sha256: str | None = None
    git_sha1: str | None = None
    size: int | None = None


@dataclass(frozen=True)
class GitHubFolder:
    """Every file of one folder of a GitHub repository at a pinned commit.

    The folder's listing comes from the GitHub API (``git/trees/<tree>``) and is checked
    against ``tree`` (the git tree id fixes every name and blob id in it); each file is
    downloaded from ``raw.githubusercontent.com`` when the converter asks for it and
    checked against its blob id.

    Attributes:
        key: The name the converter asks for (``inputs.folder(key)``).
        repo: ``owner/name``.
        commit: The commit (40 hex digits).
        path: The folder's path in the repository.
        tree: The folder's git tree id at that commit (None: read from the commit, unchecked).
        suffix: Only files whose names end with it.
        files: How many such files (for ``data list``; 0: unknown).
        size: Their total size in bytes (0: unknown).
    """

    key: str
    repo: str
    commit: str
    path: str
    tree: str | None = None
    suffix: str = ""
    files: int = 0
    size: int = 0

    @property
    def url(self) -> str:
        """The folder on GitHub (what a user opens in a browser)."""
        return f"https://github.com/{self.repo}/tree/{self.commit}/{self.path}"


@dataclass(frozen=True)
class HFDataset:
    """A Hugging Face dataset, read with the ``datasets`` library (``load_dataset``).

    Attributes:
        key: The name the converter asks for (``inputs.hf(key)``).
        repo_id: ``owner/name`` on the hub.
        splits: The splits the converter writes.
        revision: A hub revision (None: the default branch).
    """

    key: str
    repo_id: str
    splits: tuple[str, ...]
    revision: str | None = None

    @property
    def url(self) -> str:
        """The dataset's page on the hub."""
        return f"https://huggingface.co/datasets/{self.repo_id}"


Source = Remote | GitHubFolder | HFDataset


@dataclass(frozen=True)
class Dataset:
    """A dataset the systems read, with everything ``noveval data`` needs to fetch and convert it.

    Attributes:
        name: What users type (``noveval data get <name>``).
        title: One line: what it is.
        outputs: The files the converter writes, relative to the data folder; the dataset is
            present in a folder when all of them are.
        sources: Its upstream files (:class:`Remote`, :class:`GitHubFolder`, :class:`HFDataset`).
        homepage: The public page it comes from.
        licence: The licence as published (``"none stated"`` when there is none).
        size: Download and disk size, in words (``"5.2 MB download, 5.0 MB on disk"``).
        convert: ``"module:function"``: ``convert(inputs, out)`` reads the upstream files
            through ``inputs`` (:class:`noveval.data.inputs.Inputs`) and writes ``outputs``
            under the folder ``out``.
        requires: Other datasets whose files the converter reads (``inputs.data(path)``);
            ``data get`` gets them first when they are missing.
        notes: How the converted files differ from the upstream ones or from the copy on the
            project's machines (shown by ``data list --verbose`` and in docs/data.md).
    """

    name: str
    title: str
    outputs: tuple[str, ...]
    sources: tuple[Source, ...]
    homepage: str
    licence: str
    size: str
    convert: str
    requires: tuple[str, ...] = ()
    notes: str = ""
    package: str = field(default="", compare=False)

    def source(self, key: str) -> Source:
        """The source named ``key``.

        Raises:
            KeyError: no source has that key.
        """
        for s in self.sources:
            if s.key == key:
                return s
        raise KeyError(f"dataset {self.name!r} declares no source {key!r}")
