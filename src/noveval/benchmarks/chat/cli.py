"""``noveval score chat`` (``noveval run chat`` is generated from :class:`~noveval.benchmarks.chat.options.ChatOptions`)."""

from __future__ import annotations

from pathlib import Path

from noveval.benchmarks.chat.options import ChatScoreCommand, ChatScoreOptions
from noveval.cli.generate import options_command
from noveval.cli.outcome import run_command
from noveval.options import narrow


@run_command
@options_command(ChatScoreCommand)
def score(o: ChatScoreCommand) -> Path:
    """Exact-match accuracy of a chat run against the prompts' ``reference`` fields."""
    from noveval.benchmarks.chat.contract import score as score_run

    score_run(o.run_dir, narrow(o, ChatScoreOptions))
    return o.run_dir
