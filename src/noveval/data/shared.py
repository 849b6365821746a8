"""Datasets several systems read: the NeurIPS reviews, the NeurIPS full texts and the paper corpus.

Systems name them in their ``datasets.py`` (``DATASETS = ("corpus", ...)``); their facts
(upstream files, licence, size, converter) are said here once. Converters:
:mod:`noveval.data.openreview` and :mod:`noveval.data.paperlists`.
"""

from __future__ import annotations

from noveval.data.fetch import RAW
from noveval.data.pins import paperlists_pins
from noveval.data.spec import Dataset, GitHubFolder, Remote

LISTS_COMMIT, LISTS_FILES = paperlists_pins()

__all__ = ["DATASETS", "EXPORT_COMMIT", "EXPORT_REPO"]

EXPORT_REPO = "djroytburg/10718peerread"
EXPORT_COMMIT = "b3f2c323999efc639f28d77fda53320854d7fcde"
"""The commit of the export that still holds the per-paper files (they were removed later)."""


def _export(key: str, path: str, tree: str, suffix: str, files: int, size: int) -> GitHubFolder:
    return GitHubFolder(key=key, repo=EXPORT_REPO, commit=EXPORT_COMMIT, path=path, tree=tree, suffix=suffix,
                        files=files, size=size)


NEURIPS_REVIEWS = Dataset(
    name="neurips-reviews",
    title="NeurIPS 2023-2025 papers with their OpenReview reviews and meta-reviews",
    outputs=tuple(f"reviews/neurips-{y}.jsonl.gz" for y in (2023, 2024, 2025)),
    sources=(
        _export("reviews-2023", "output/neurips_2023/reviews", "1bfc573432f07c5f6452fef2fdf35009402a3c77", ".json", 3395, 56227777),
        _export("reviews-2024", "output/neurips_2024/reviews", "252f67b8246936e3e5d2ee028de0bc9637130d83", ".json", 4236, 62167025),
        _export("reviews-2025", "output/neurips_2025_full/reviews", "a8905be58d744b143ce7fedf260423e155158d85", ".json", 5540, 90944088),
    ),
    homepage=f"https://github.com/{EXPORT_REPO}",
    licence="none stated (OpenReview reviews; research use)",
    size="209 MB download (13,171 files), about 69 MB on disk",
    convert="noveval.data.openreview:convert_reviews",
    notes="Every paper of the export with at least one review (3,395 / 4,236 / 5,540). The copy on the "
          "project's machines holds about 80% of them (2,710 / 3,413 / 4,474; the selection is not "
          "documented); the records of the papers it holds are identical.",
)

NEURIPS_FULLTEXT = Dataset(
    name="neurips-fulltext",
    title="400 NeurIPS 2025 papers with their full text as Markdown (and their reviews)",
    outputs=("fulltext/neurips-2025-fulltext.jsonl.gz",),
    sources=(_export("parsed-2025", "output/neurips_2025_full/parsed_pdfs", "1bfdd17cbbe8fc2ffc462b83f5f8984337b83f17",
                     ".pdf.md", 2385, 261897617),),
    homepage=f"https://github.com/{EXPORT_REPO}",
    licence="none stated (papers' text from OpenReview PDFs; research use)",
    size="about 45 MB download (the first ~400 Markdown files by id), 15 MB on disk",
    convert="noveval.data.openreview:convert_fulltext",
    requires=("neurips-reviews",),
    notes="The first 400 papers by id whose Markdown has a References heading, among the 2025 papers of "
          "neurips-reviews; built from the full review set the 400 differ from the project's copy, which "
          "took them from its 80% subset (from that subset the rule gives the same 400, byte for byte).",
)

CORPUS = Dataset(
    name="corpus",
    title="105k-paper reference corpus: conference lists 1987-2025 and NeurIPS 2023-2025",
    outputs=("corpus/papers.jsonl.gz",),
    sources=tuple(Remote(key=path, url=f"{RAW}/papercopilot/paperlists/{LISTS_COMMIT}/{path}", path=path,
                         sha256=s256, git_sha1=blob, size=size) for path, blob, size, s256 in LISTS_FILES),
    homepage="https://github.com/papercopilot/paperlists",
    licence="none stated (conference metadata; research use)",
    size=f"about 290 MB download ({len(LISTS_FILES)} conference files) plus neurips-reviews, 43 MB on disk",
    convert="noveval.data.paperlists:convert_corpus",
    requires=("neurips-reviews",),
    notes="Built by noveval's rules (docs/data.md) from paperlists at a pinned commit and the full NeurIPS "
          "export: every row of the project's copy that could be checked (100,008 of 104,962) came out "
          "identical, in the same order, with no extra row. Also read by noveval check and noveval index.",
)

DATASETS = (NEURIPS_REVIEWS, NEURIPS_FULLTEXT, CORPUS)
"""The shared datasets, in the order ``data list`` shows them."""
