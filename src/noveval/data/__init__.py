"""Real datasets on a user's machine: declared by the systems, fetched and converted here.

``noveval data list`` shows every dataset the systems read (source, licence, size, which
systems use it, where it is on this machine); ``noveval data get NAME`` downloads its
public upstream files (resumable, checksummed, atomic) and converts them to the formats
the systems read, or converts a copy the user already has (``--from``). Declarations:
:mod:`noveval.data.spec`; the shared ones (corpus, NeurIPS reviews and full texts):
:mod:`noveval.data.shared`; the rest in each system's ``datasets.py``.
"""

from __future__ import annotations

from noveval.data.spec import Dataset, GitHubFolder, HFDataset, Remote

__all__ = ["Dataset", "GitHubFolder", "HFDataset", "Remote"]
