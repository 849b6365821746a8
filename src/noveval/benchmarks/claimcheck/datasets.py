"""The data CLAIMCHECK reads (``noveval data list``): the NeurIPS 2025 full texts with their
reviews (``--data-dir``), and the corpus to match references against (``--corpus``)."""

from __future__ import annotations

DATASETS = ("neurips-fulltext", "corpus")
"""Declared in :mod:`noveval.data.shared`."""
