"""Which data folder a system reads: the first searched folder that *holds what it needs*.

The folders are searched in this order (docs/data.md): ``--data-dir`` when given (then it
alone), else ``$NOVEVAL_DATA_DIR``, the user data dir (where ``noveval data get`` writes),
``../shared/data`` (:func:`noveval.settings.data_candidates`). A folder that exists but lacks
a system's files (a half-filled data folder, a failed download's) is passed over for that
system, so every system, ``noveval eval``'s plans and ``noveval data dir`` ask
:func:`data_folder` and never take "the first folder that exists".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from noveval.data.catalog import datasets, find
from noveval.settings import data_candidates

__all__ = ["data_folder", "default_folder", "holdings", "searched", "searched_text"]


def searched(explicit: str | Path | None = None) -> list[Path]:
    """The folders looked in, in order, existing or not (duplicates dropped; for messages).

    Args:
        explicit: ``--data-dir`` (given: it is the only folder searched).
    """
    if explicit is not None:
        return [Path(explicit)]
    out: list[Path] = []
    for c in data_candidates():
        if c.resolve() not in [o.resolve() for o in out]:
            out.append(c)
    return out


def searched_text(explicit: str | Path | None = None) -> str:
    """``searched: A, B (no such folder), ...``: the folders of :func:`searched`, for messages."""
    parts = [f"{p.resolve()}" + ("" if p.is_dir() else " (no such folder)") for p in searched(explicit)]
    return "searched: " + ", ".join(parts)


def data_folder(needs: Iterable[str | Path] | Callable[[Path], bool], explicit: str | Path | None = None, *,
                folders: Sequence[Path] | None = None) -> Path | None:
    """The data folder a system reads: the first searched folder that holds what it needs.

    Args:
        needs: The files it reads, relative to a data folder (e.g. ``corpus/papers.jsonl.gz``;
            every one must be there), or a test ``folder -> bool`` (e.g. "its eval plan runs").
            No file: the first folder that exists.
        explicit: ``--data-dir`` (given: the only folder searched; None when it lacks a file).
        folders: The folders to search instead (default: :func:`searched` of ``explicit``).

    Returns:
        The folder (resolved), or None when no searched folder holds it.
    """
    test: Callable[[Path], bool]
    if callable(needs):
        test = needs
    else:
        files = list(needs)

        def test(d: Path) -> bool:
            return all((d / f).is_file() for f in files)

    for d in folders if folders is not None else searched(explicit):
        if d.is_dir() and test(d.resolve()):
            return d.resolve()
    return None


def holdings(explicit: str | Path | None = None) -> list[tuple[Path, list[str]]]:
    """Each existing searched folder (resolved, in order) with the datasets complete in it (catalogue order)."""
    out = []
    for d in searched(explicit):
        if d.is_dir():
            out.append((d.resolve(), [n for n, ds in datasets().items()
                                      if all((d / rel).is_file() for rel in ds.outputs)]))
    return out


def default_folder(explicit: str | Path | None = None, names: Sequence[str] = ()) -> Path | None:
    """The one folder ``noveval data dir`` prints (for ``D=$(noveval data dir)``).

    Args:
        explicit: ``--data-dir`` (given: it, when it exists).
        names: Datasets (``noveval data list``): the first folder holding every one of them.
            None given: the folder holding the most datasets (the first of those on a tie).

    Returns:
        The folder, or None when no searched folder holds them (none: any dataset).
    """
    if names:
        files = [rel for n in names for rel in find(n).outputs]
        return data_folder(files, explicit)
    if explicit is not None:
        return Path(explicit).resolve() if Path(explicit).is_dir() else None
    best: tuple[int, Path | None] = (0, None)
    for d, held in holdings(explicit):
        if len(held) > best[0]:
            best = (len(held), d)
    return best[1]
