"""CLAIMCHECK's run and score (the functions its declaration names).

``run(model, out, options)`` runs one task (``options.task``) into the run folder and
scores it when it has gold; ``score(run, options)`` re-scores the run folder from its
saved predictions (and judgments) alone: the run's ``config.json`` records its papers
file or data folder and its annotation file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from noveval.benchmarks._contract import sample_file
from noveval.benchmarks.claimcheck.generate import run_task
from noveval.benchmarks.claimcheck.options import ClaimcheckOptions, ClaimcheckScoreOptions
from noveval.models.calls import collecting
from noveval.models.chat import ChatClientProtocol

__all__ = ["SAMPLE", "SAMPLE_ANNOTATIONS", "run", "score", "with_inputs"]

SAMPLE = ("claimcheck", "papers.json")
"""The shipped sample papers (invented), with :data:`SAMPLE_ANNOTATIONS` as their gold."""
SAMPLE_ANNOTATIONS = ("claimcheck", "annotations.jsonl")


def with_inputs(options: ClaimcheckOptions) -> ClaimcheckOptions:
    """``options`` with the inputs a run reads made explicit.

    Without ``papers`` and ``data_dir`` the run reads the shipped sample, and (except
    ``extract``, which has no gold) the sample's annotations unless ``annotations`` is given.
    """
    o = options
    if o.papers is not None or o.data_dir is not None:
        return o
    update: dict[str, Any] = {"papers": sample_file(*SAMPLE)}
    if o.annotations is None and o.task != "extract":
        update["annotations"] = sample_file(*SAMPLE_ANNOTATIONS)
    return o.model_copy(update=update)


def run(model: str | ChatClientProtocol, out: Path, options: ClaimcheckOptions) -> Path:
    """Run one CLAIMCHECK task with ``model`` into ``out`` (resumable); score it when it has gold.

    Args:
        model: Model spec or chat client of the model under test (the judge of cv/wle is
            ``options.judge``, else this model).
        out: Run folder.
        options: The run's options (:func:`with_inputs` says which inputs it reads).

    Returns:
        The run folder (``scores.json`` written when the task can be scored: every task but
        ``extract`` needs gold annotations; cv and wle score their judgments).

    Raises:
        InputError: a bad option or input file (file, line, field).
    """
    from noveval.benchmarks.claimcheck.scoring import score_run

    o = with_inputs(options)
    path = Path(run_task(model, out, o))
    if collecting():  # a batch pass that only collects requests: nothing to score yet
        return path
    if o.task == "extract" or o.annotations is not None:  # the other tasks score against gold annotations
        score_run(path, ClaimcheckScoreOptions(bertscore=o.bertscore))
    return path


def score(run: Path, options: ClaimcheckScoreOptions | None = None) -> dict[str, Any]:
    """Scores of a CLAIMCHECK run folder from its saved outputs alone (no model call).

    Writes ``per_item.jsonl`` and ``scores.json``. The annotations, papers file and data
    folder are the run's own (its ``config.json``) unless ``options`` names others.

    Raises:
        InputError: not a run folder (or a folder with ``predictions.jsonl`` and
            ``options.task``), or a bad annotation or judgments file.
    """
    from noveval.benchmarks.claimcheck.scoring import score_run

    return score_run(run, options)
