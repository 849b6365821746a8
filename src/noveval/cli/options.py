"""Shared CLI options: one vocabulary for every command, generated from the options models.

Each alias is ``Annotated[type, option_info(Model, field)]``: the flags, help, range and
allowed values are the field's own (:class:`noveval.options.RunOptions` and the mixins beside
it), so a command that takes ``--limit`` says exactly what ``noveval run`` says. Commands whose
parameters are all one model's fields are made whole by :func:`noveval.cli.generate.options_command`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from noveval.cli.generate import option_info
from noveval.options import HF_SOURCE_HELP as HF_SOURCE_HELP  # one definition, re-exported
from noveval.options import (
    DataDirOption,
    EmbedderOption,
    JudgeOption,
    ModelOption,
    OutOption,
    RunOptions,
)

ModelOpt = Annotated[str, option_info(ModelOption, "model")]
JudgeOpt = Annotated[str | None, option_info(JudgeOption, "judge")]
EmbedderOpt = Annotated[str, option_info(EmbedderOption, "embedder", show_default=False)]
OutOpt = Annotated[Path, option_info(OutOption, "out")]
DataDirOpt = Annotated[Path | None, option_info(DataDirOption, "data_dir")]
LimitOpt = Annotated[int | None, option_info(RunOptions, "limit")]
SeedOpt = Annotated[int, option_info(RunOptions, "seed")]
ConcurrencyOpt = Annotated[int | None, option_info(RunOptions, "concurrency")]
TimeoutOpt = Annotated[float, option_info(RunOptions, "timeout")]
MaxTokensOpt = Annotated[int | None, option_info(RunOptions, "max_tokens")]
TemperatureOpt = Annotated[float | None, option_info(RunOptions, "temperature")]
ExtraBodyOpt = Annotated[str | None, option_info(RunOptions, "extra_body")]
NoCacheOpt = Annotated[bool, option_info(RunOptions, "no_cache")]
RefreshOpt = Annotated[bool, option_info(RunOptions, "refresh")]
OverwriteOpt = Annotated[bool, option_info(RunOptions, "overwrite")]
AllowFailuresOpt = Annotated[bool, option_info(RunOptions, "allow_failures")]
AllowUnparseableOpt = Annotated[bool, option_info(RunOptions, "allow_unparseable")]
MaxCostOpt = Annotated[float | None, option_info(RunOptions, "max_cost")]
BatchOpt = Annotated[bool, option_info(RunOptions, "batch")]
