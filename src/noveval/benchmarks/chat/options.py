"""Options of the chat task (``noveval run chat`` and ``noveval.run("chat", options=...)``)."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict

from noveval.options import HF_SOURCE_HELP, RunOptions, option

__all__ = ["ChatOptions", "ChatScoreCommand", "ChatScoreOptions"]

_INPUT_HELP = f"JSONL/JSON of {{id, prompt | messages[, system, reference]}}, {HF_SOURCE_HELP}."


class ChatOptions(RunOptions):
    """Options of a chat run.

    Attributes:
        input: The prompts file (chat ships no sample: required).
        max_tokens: Max new tokens per reply.
        temperature: Sampling temperature.
    """

    input: str | Path = option(..., "--input", "-i", help=_INPUT_HELP)
    max_tokens: int = option(256, ge=1, help="Max new tokens per reply.")
    temperature: float = option(0.0, ge=0.0, help="Sampling temperature.")


class ChatScoreOptions(BaseModel):
    """Options of scoring a chat run.

    Attributes:
        input: The prompts file with the references (None: the file the run recorded).
    """

    model_config = ConfigDict(extra="forbid")

    input: str | Path | None = option(None, "--input", "-i",
                                      help="The prompts file with the references (default: the run's own input).")


class ChatScoreCommand(ChatScoreOptions):
    """``noveval score chat RUN_DIR``: a chat run folder and the score options."""

    run_dir: Path = option(..., argument=True, aliases=("--run", "-r"), help="Run directory with predictions.jsonl.")
