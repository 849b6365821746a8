"""The data the pairwise task reads (``noveval data list``): RINoBench's test split
(``--source rinobench``) and the NeurIPS 2025 reviews' originality scores (``--source neurips``)."""

from __future__ import annotations

DATASETS = ("rinobench", "neurips-reviews")
"""Declared in the rinobench package and :mod:`noveval.data.shared`."""
