"""Every dataset the systems read, collected from their declarations (no table here).

A system package declares ``DATASETS`` in ``<package>/datasets.py``: the
:class:`~noveval.data.spec.Dataset` objects it owns and the names of shared ones it reads
(declared in :mod:`noveval.data.shared`). :func:`datasets` gathers them for every
registered system (in-tree and plugins), :func:`used_by` says which systems read one.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
from dataclasses import replace
from pathlib import Path

from noveval.data import shared
from noveval.data.spec import Dataset
from noveval.errors import InputError
from noveval.registry import packages

__all__ = ["datasets", "find", "present_in", "reads", "used_by"]


def _declared(package: str) -> tuple[Dataset | str, ...]:
    """``<package>.datasets.DATASETS`` (empty when the package has no ``datasets`` module)."""
    name = f"{package}.datasets"
    try:
        if importlib.util.find_spec(name) is None:
            return ()
    except ModuleNotFoundError:
        return ()
    return tuple(getattr(importlib.import_module(name), "DATASETS", ()))


@functools.cache
def _collect() -> tuple[dict[str, Dataset], dict[str, tuple[str, ...]]]:
    found: dict[str, Dataset] = {d.name: replace(d, package=shared.__name__) for d in shared.DATASETS}
    reads: dict[str, tuple[str, ...]] = {}
    for system, package in packages().items():
        names = []
        for item in _declared(package):
            if isinstance(item, Dataset):
                if item.name in found:
                    raise ValueError(f"dataset {item.name!r} is declared twice ({found[item.name].package}, {package})")
                found[item.name] = replace(item, package=package)
                names.append(item.name)
            else:
                names.append(str(item))
        reads[system] = tuple(names)
    unknown = sorted({n for ns in reads.values() for n in ns} - set(found))
    if unknown:
        raise ValueError(f"systems read undeclared datasets: {', '.join(unknown)}")
    return found, reads


def datasets() -> dict[str, Dataset]:
    """Every declared dataset by name (shared ones first, then each system's in registry order)."""
    return dict(_collect()[0])


def reads() -> dict[str, tuple[str, ...]]:
    """System name -> the datasets it reads."""
    return dict(_collect()[1])


def used_by(name: str) -> list[str]:
    """The systems that read the dataset ``name`` (registry order)."""
    return [system for system, names in reads().items() if name in names]


def find(name: str) -> Dataset:
    """The dataset ``name``.

    Raises:
        InputError: no dataset has that name (the message lists them).
    """
    found = datasets()
    if name not in found:
        raise InputError(None, None, "NAME", f"unknown dataset {name!r}; choose from {', '.join(found)} (or all)")
    return found[name]


def present_in(dataset: Dataset, folders: list[Path]) -> Path | None:
    """The first folder holding every output file of ``dataset``, or None."""
    for folder in folders:
        if all((folder / rel).is_file() for rel in dataset.outputs):
            return folder
    return None
