"""``noveval score chat`` (``noveval run chat`` is generated from :class:`~noveval.benchmarks.chat.options.ChatOptions`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from noveval.cli.outcome import run_command


@run_command
def score(
    run_dir: Annotated[Path | None, typer.Argument(help="Run directory with predictions.jsonl.", show_default=False)] = None,
    input: Annotated[Path | None, typer.Option("--input", "-i", help="The prompts file with the references (default: the run's own input).")] = None,
    run_opt: Annotated[Path | None, typer.Option("--run", "-r", hidden=True, help="Old spelling of RUN_DIR.")] = None,
) -> Path:
    """Exact-match accuracy of a chat run against the prompts' ``reference`` fields."""
    from noveval.benchmarks.chat.contract import score as score_run
    from noveval.benchmarks.chat.options import ChatScoreOptions
    from noveval.cli.options import positional_or_alias

    run_dir = positional_or_alias([run_dir] if run_dir else None, [run_opt] if run_opt else None,
                                  what="run dir", alias_name="--run")[0]
    score_run(run_dir, ChatScoreOptions(input=input))
    return run_dir
