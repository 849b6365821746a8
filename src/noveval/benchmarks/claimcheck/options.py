"""CLAIMCHECK's options: the fields of ``noveval run claimcheck`` and of ``noveval.run("claimcheck", options=...)``.

One class for the CLI, the Python API and every task module (they take the options
object): :class:`ClaimcheckOptions`. Re-scoring a run folder takes
:class:`ClaimcheckScoreOptions`.

Pure: pydantic only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from noveval.options import DataDirOption, JudgeOption, PromptVariantsOption, RunOptions, option

__all__ = ["MAX_RELATED", "PROTOCOLS", "TASKS", "AgreementCommand", "ClaimcheckOptions", "ClaimcheckScoreOptions",
           "Protocol", "Task", "WleExportCommand", "WleImportCommand"]

Task = Literal["extract", "wi", "ca", "wl", "cv", "wle"]
TASKS: tuple[str, ...] = ("extract", "wi", "ca", "wl", "cv", "wle")
"""The tasks, in pipeline order."""

Protocol = Literal["noveval", "paper"]
PROTOCOLS: tuple[str, ...] = ("noveval", "paper")
"""``paper``: the paper's protocol (WL on weaknesses with targets, one WLE call that
labels and rewrites, cited related works, seeds 0/42/2025); ``noveval``: this toolkit's
defaults (docs/fidelity.md lists every difference)."""

MAX_RELATED = 3
"""At most this many cited related works per prompt (when a corpus is given;
:mod:`~noveval.benchmarks.claimcheck.related`). Recorded in ``config.json``."""

_PROTOCOL_HELP = ("noveval (default) | paper: WL on weaknesses with targets, one WLE call that labels and rewrites, "
                  "cited related works (needs --corpus), seeds 0/42/2025 averaged. See docs/fidelity.md.")
_PAPERS_HELP = ("Papers file (id, title, abstract, fulltext, reviews) instead of shared data (default: the shipped "
                "sample, unless --data-dir is given).")


class ClaimcheckOptions(RunOptions, JudgeOption, DataDirOption, PromptVariantsOption):
    """Options of a CLAIMCHECK run: one task (Appendix C.1 for the generation settings).

    Attributes:
        task: ``extract``, ``wi``, ``ca`` (default), ``wl``, ``cv`` or ``wle``.
        judge: Judge model spec for cv/wle (None: the model under test).
        annotations: Gold annotation file, or WI output converted with
            :func:`~noveval.benchmarks.claimcheck.generate.wi_to_annotations` (None: the
            shipped sample's when neither ``papers`` nor ``data_dir`` is given).
        papers: Papers file (None: the shipped sample, unless ``data_dir`` is given).
        data_dir: Shared data folder (NeurIPS 2025 full texts and reviews) instead of a papers file.
        paper_id: Only these papers.
        limit: At most N papers.
        limit_items: At most N task items (per seed).
        max_chunks: extract: chunks per paper (None: all).
        chunk_chars: extract: chunk size in characters.
        context_chars: Paper characters per prompt. The paper gives GPT-4o the whole paper;
            small local models cannot hold it, so noveval picks the paragraphs that share
            most words with the weakness/claim up to this budget (0: the whole text).
        max_tokens: Reply budget per call.
        temperature: Sampling temperature (None: the paper's, 0.9 for ca, 0.3 otherwise).
        seed: Sampling seed (with one seed; see ``seeds``).
        protocol: ``noveval`` or ``paper`` (see :data:`PROTOCOLS`).
        seeds: Sampling seeds whose scores are averaged (None: ``seed``; the paper
            protocol: 0, 42, 2025).
        corpus: Corpus file to match the papers' references against (cited related works).
        samples: wl only: label each weakness N times (seeds ``seed .. seed + N - 1``) and
            take each label by plurality vote, recording self-consistency (issue 18).
        bertscore: Compute BERTScore when the run scores wle.
    """

    task: Task = option("ca", help="extract | wi | ca | wl | cv | wle")
    judge: str | None = option(None, "--judge", "-j",
                               help="Judge model spec for cv and wle (same grammar as --model); default: the model "
                                    "under test.")
    annotations: str | Path | None = option(None, "--annotations", "-a",
                                            help="Annotation file (gold or converted WI output).")
    papers: str | Path | None = option(None, help=_PAPERS_HELP)
    data_dir: Path | None = option(
        None, help="Folder with the real datasets (NeurIPS 2025 full texts and reviews) instead of --papers.")
    paper_id: list[str] | None = option(None, help="Only this paper (repeatable).")
    limit: int | None = option(None, "--limit", "-n", ge=1, help="At most N papers.")
    limit_items: int | None = option(None, ge=1, help="At most N task items.")
    max_chunks: int | None = option(None, ge=1, help="extract: chunks per paper.")
    chunk_chars: int = option(3000, ge=1, help="extract: chunk size.")
    context_chars: int = option(6000, ge=0, help="Paper characters per prompt (0 = whole paper).")
    max_tokens: int = option(512, ge=1, help="Reply budget per call.")
    temperature: float | None = option(None, ge=0.0, help="Default: 0.9 for ca, 0.3 otherwise (Appendix C.1).")
    protocol: Protocol = option("noveval", help=_PROTOCOL_HELP)
    seeds: list[int] | None = option(
        None, help="Sampling seeds, repeatable; scores average them (default: --seed; 0, 42, 2025 under --protocol "
                   "paper).")
    corpus: str | Path | None = option(
        None, help="Corpus (id, title, abstract; e.g. corpus/papers.jsonl.gz) to match the paper's references "
                   "against: ca/wl/cv/wle then see the related works a weakness or claim cites.")
    samples: int = option(1, ge=1, help="wl: label each weakness N times (seeds seed..seed+N-1, temperature > 0) and "
                                        "take each label by plurality vote; records self-consistency.")
    bertscore: bool = option(True, "--bertscore/--no-bertscore",
                             help="wle: compute BERTScore (bundled all-MiniLM-L6-v2) when the run is scored.")

    @property
    def paper(self) -> bool:
        """True under the paper's protocol."""
        return self.protocol == "paper"

    def temp(self, task: str) -> float:
        """The temperature for ``task``: the explicit value, else Appendix C.1 (0.9 for ca, 0.3 else)."""
        if self.temperature is not None:
            return self.temperature
        return 0.9 if task == "ca" else 0.3


class ClaimcheckScoreOptions(BaseModel):
    """Options of re-scoring a CLAIMCHECK run folder (by default everything is the run's own).

    Attributes:
        annotations: Gold annotation file (None: the one the run recorded).
        papers: Papers file for annotations given as offsets (None: the run's).
        data_dir: Shared data folder for annotations given as offsets (None: the run's).
        judgments: Judgments to use instead of the run's (e.g. human WLE choices).
        task: The task, for a folder holding a ``predictions.jsonl`` made elsewhere (no
            ``config.json``).
        bertscore: Compute BERTScore for wle.
    """

    model_config = ConfigDict(extra="forbid")

    annotations: str | Path | None = option(None, "--annotations", "-a", help="Gold annotation file.")
    papers: str | Path | None = option(None, help="Papers file.")
    data_dir: Path | None = option(None, help="Folder with the real datasets (default: the run's).")
    judgments: str | Path | None = option(None, help="Judgments to use instead of the run's (e.g. human WLE choices).")
    task: Task | None = option(None, help="Task, when there is no config.json.")
    bertscore: bool = option(True, "--bertscore/--no-bertscore", help="wle: compute BERTScore.")


class AgreementCommand(BaseModel):
    """``noveval claimcheck agreement FILES...``: inter-annotator agreement (§3.4, §4.1)."""

    model_config = ConfigDict(extra="forbid")

    files: list[Path] = option(..., argument=True, help="Annotation files (any number of annotators).")
    model_file: Path | None = option(None, help="Annotation file of a model, added as one more annotator.")
    papers: Path | None = option(None, help="Papers file for annotations given as offsets.")
    data_dir: Path | None = option(None, help="Folder with the real datasets, for annotations given as offsets.")
    out: Path | None = option(None, "--out", "-o", help="Write the JSON here.")


class WleExportCommand(BaseModel):
    """``noveval claimcheck wle-export RUN -o CSV``: blinded weakness pairs for human judges."""

    model_config = ConfigDict(extra="forbid")

    run_dir: Path = option(..., argument=True, help="A WLE run directory.")
    out: Path = option(..., "--out", "-o", help="CSV for the human judges.")


class WleImportCommand(BaseModel):
    """``noveval claimcheck wle-import CSV -o JSONL``: human A/B/tie choices as WLE judgments."""

    model_config = ConfigDict(extra="forbid")

    csv_path: Path = option(..., argument=True, help="The CSV with the 'choice' column filled.")
    out: Path = option(..., "--out", "-o", help="Judgments JSONL to write.")
    key: Path | None = option(None, help="Key file (default <csv>.key.csv).")
