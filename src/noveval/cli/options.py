"""Shared CLI options: one vocabulary for every command."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from noveval.options import EMBEDDER_HELP

ModelOpt = Annotated[
    str,
    typer.Option("--model", "-m", help="Model spec: local | local:/path.gguf | openai/<model> | openai-compatible/<model>@<url>."),
]
JudgeOpt = Annotated[
    str | None,
    typer.Option("--judge", "-j", help="Judge model spec (same grammar as --model); default: no judge metrics."),
]
EmbedderOpt = Annotated[
    str,
    typer.Option("--embedder", "-e", help=EMBEDDER_HELP),
]
OutOpt = Annotated[Path, typer.Option("--out", "-o", help="Run directory (created; an existing run with the same settings is resumed).")]
LimitOpt = Annotated[int | None, typer.Option("--limit", "-n", min=1, help="Use only the first N items.")]
ConcurrencyOpt = Annotated[int | None, typer.Option("--concurrency", "-c", min=1, help="Max model requests in flight (default: 1 local, 8 HTTP).")]
NoCacheOpt = Annotated[bool, typer.Option("--no-cache", help="Do not read or write the response cache.")]
RefreshOpt = Annotated[bool, typer.Option("--refresh", help="Ignore cached responses and overwrite them.")]
SeedOpt = Annotated[int, typer.Option("--seed", help="Random seed (sampling, example selection, bootstrap).")]
OverwriteOpt = Annotated[bool, typer.Option("--overwrite", help="Discard an existing run in --out with different settings.")]
TimeoutOpt = Annotated[float, typer.Option("--timeout", help="Per-request timeout in seconds.")]
DataDirOpt = Annotated[Path | None, typer.Option("--data-dir", help="Folder with the real datasets (default: $NOVEVAL_DATA_DIR, the folder noveval data get fills, or ../shared/data).")]
BatchOpt = Annotated[
    bool,
    typer.Option(
        "--batch",
        help="Send the uncached requests through the provider's batch API (openai/..., openai-compatible/... with "
        "/v1/files and /v1/batches): batch prices (OpenAI: half), answers within 24 h; the batch ids are saved in "
        "the run folder, so a killed run resumes without resubmitting.",
    ),
]
MaxCostOpt = Annotated[
    float | None,
    typer.Option(
        "--max-cost",
        min=0.0,
        help="Stop cleanly (exit 4, resumable) before a request could take this run folder's spending past USD "
        "(estimate: prompt tokens + the request's max tokens; prices: noveval prices). Re-run with a higher value to finish.",
    ),
]
from noveval.options import RunOptions as _RunOptions  # noqa: E402


def _help(name: str) -> str:
    """The help of a shared run option, as :class:`noveval.options.RunOptions` declares it (one wording)."""
    return _RunOptions.model_fields[name].description or ""


MaxTokensOpt = Annotated[int | None, typer.Option("--max-tokens", min=1, help=_help("max_tokens"))]
TemperatureOpt = Annotated[float | None, typer.Option("--temperature", min=0.0, max=2.0, help=_help("temperature"))]
ExtraBodyOpt = Annotated[str | None, typer.Option("--extra-body", help=_help("extra_body"))]
from noveval.options import HF_SOURCE_HELP as HF_SOURCE_HELP  # noqa: E402  (one definition, re-exported)


def positional_or_alias(positional: list[Path] | None, alias: list[Path] | None, *, what: str, alias_name: str) -> list[Path]:
    """The inputs of a ``score`` command, given positionally or through its old (hidden) option.

    Every ``score <system>`` takes its run folder (or predictions) as the first positional
    argument; the option spelling it had before (e.g. ``--predictions``) is kept hidden, so
    scripts that use it keep working. Giving both is an error.

    Raises:
        InputError: neither or both spellings given.
    """
    from noveval.errors import InputError

    if positional and alias:
        raise InputError(None, None, alias_name, f"give the {what} once: positionally or with {alias_name}, not both")
    got = list(positional or alias or [])
    if not got:
        raise InputError(None, None, what.upper().replace(" ", "_"), f"missing: give the {what} as the first argument")
    return got
