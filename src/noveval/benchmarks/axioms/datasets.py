"""The data the axiomatic benchmark reads (``noveval data list``): the shared corpus (reference
pools) and the NeurIPS full texts (reference lists for the citation axioms)."""

from __future__ import annotations

DATASETS = ("corpus", "neurips-fulltext")
"""Declared in :mod:`noveval.data.shared`."""
