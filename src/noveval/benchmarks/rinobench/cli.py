"""CLI of RINoBench: ``noveval run rinobench``, ``noveval score rinobench``,
``noveval rinobench construct``. Nothing heavy is imported at module level."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from noveval.cli.common import cli_errors
from noveval.cli.options import (
    HF_SOURCE_HELP,
    ConcurrencyOpt,
    JudgeOpt,
    LimitOpt,
    ModelOpt,
    NoCacheOpt,
    OutOpt,
    OverwriteOpt,
    SeedOpt,
)
from noveval.cli.outcome import run_command


class Binning(StrEnum):
    """How mean reviewer ratings become 1-5 novelty scores (``rinobench construct --binning``)."""

    fixed = "fixed"
    blended = "blended"


app = typer.Typer(help="RINoBench extras: dataset construction (Section 4.1).", no_args_is_help=True)

ItemsOpt = Annotated[Path | None, typer.Option("--items", "-i", help=f"Items in the published test.json format, {HF_SOURCE_HELP} (default: the shipped samples).")]
RubricOpt = Annotated[Path | None, typer.Option("--rubric", help="label_descriptions.json (default: the paper's Table 1).")]
F1LabelsOpt = Annotated[str, typer.Option("--f1-labels", help="fixed: macro-F1 over classes 1-5 | present: the released eval.py (scikit-learn's default label set; per-class F1 for gold classes only).")]
MaxArgumentsOpt = Annotated[int | None, typer.Option("--max-arguments", min=1, help="Cap the judge's extracted arguments per justification and kind (default: all, as the paper).")]
GroundingOpt = Annotated[str, typer.Option("--grounding-context", help="split: related works for known aspects, idea for novelty aspects (paper text) | both: idea and related works for every argument (released fact-check prompt).")]


def _judge_options(max_arguments: int | None, grounding_context: str) -> Any:
    from noveval.benchmarks.rinobench.judge import JudgeOptions
    from noveval.errors import InputError

    if grounding_context not in ("split", "both"):
        raise InputError(None, None, "--grounding-context", f"must be split or both, got {grounding_context!r}")
    return JudgeOptions(max_arguments=max_arguments, grounding_context=grounding_context)  # type: ignore[arg-type]


def _samples() -> Path:
    from importlib.resources import files

    return Path(str(files("noveval").joinpath("samples", "rinobench")))


@run_command(batch=True, budget=True)
def run(
    out: OutOpt,
    items: ItemsOpt = None,
    model: ModelOpt = "local",
    judge: JudgeOpt = None,
    rubric: RubricOpt = None,
    limit: LimitOpt = None,
    protocol: Annotated[str, typer.Option("--protocol", help="noveval: our prompt, temperature 0 | paper: the released predict_novelty.py set-up (temperature 1, 2-4 sentence justification, no constrained decoding).")] = "noveval",
    f1_labels: F1LabelsOpt = "fixed",
    max_arguments: MaxArgumentsOpt = None,
    grounding_context: GroundingOpt = "split",
    max_related_works: Annotated[int | None, typer.Option(help="Show only the first N related works.")] = None,
    max_abstract_chars: Annotated[int | None, typer.Option(help="Cut related-work abstracts to N characters.")] = None,
    free_text: Annotated[bool, typer.Option("--free-text", help="Do not ask for schema-constrained JSON; parse free text.")] = False,
    max_tokens: Annotated[int, typer.Option(help="Answer token budget.")] = 512,
    seed: SeedOpt = 0,
    concurrency: ConcurrencyOpt = None,
    no_cache: NoCacheOpt = False,
    overwrite: OverwriteOpt = False,
    temperature: Annotated[float | None, typer.Option("--temperature", help="Override the protocol's temperature (noveval 0, paper 1).")] = None,
    samples: Annotated[int, typer.Option("--samples", min=1, help="Ask each idea N times (seeds seed..seed+N-1, temperature > 0) and answer the plurality score; records self-consistency.")] = 1,
    prompt_variants: Annotated[str | None, typer.Option("--prompt-variants", metavar="DIR", help="Run once with the shipped prompts (OUT/shipped) and once per variant folder in DIR (DIR/<variant>/rinobench/judge_novelty.txt, laid out like `noveval prompts export`; 'bundled': the three variants shipped with noveval) into OUT/<variant>, then compare them: flip rate, agreement, each metric's spread (OUT/variants.json).")] = None,
) -> Any:
    """Judge research-idea novelty (1-5 + justification) and score it (RINoBench, Section 5)."""
    from noveval.benchmarks.rinobench.api import run as api_run

    options: dict[str, Any] = dict(
        model=model, judge=judge, rubric=rubric, limit=limit, structured=not free_text, max_tokens=max_tokens,
        seed=seed, max_related_works=max_related_works, max_abstract_chars=max_abstract_chars,
        cache=None if no_cache else "default", concurrency=concurrency, protocol=protocol, f1_labels=f1_labels,
        judge_options=_judge_options(max_arguments, grounding_context), temperature=temperature, samples=samples,
    )
    if prompt_variants is not None:
        return _prompt_variants(items or _samples() / "test.json", prompt_variants, out, overwrite, options)
    return api_run(items or _samples() / "test.json", out=out, overwrite=overwrite, **options)


def _prompt_variants(items: Path, variants: str, out: Path, overwrite: bool, options: dict[str, Any]) -> Any:
    """``run --prompt-variants``: the sub-runs, then their comparison (the command's view)."""
    from noveval.benchmarks.rinobench.variants import run_prompt_variants
    from noveval.compare.variants import compare_variants
    from noveval.models.calls import collecting

    runs = run_prompt_variants(items, variants, out=out, overwrite=overwrite, **options)
    if collecting():  # a --batch pass that only collects requests: nothing is scored yet
        return list(runs.values())
    return compare_variants(runs, out=out)


@run_command(batch=True, budget=True)
def score(
    gold: Annotated[Path, typer.Option("--gold", "-g", help=f"Gold items (test.json format), {HF_SOURCE_HELP}.")],
    predictions: Annotated[Path | None, typer.Argument(
        help="Predictions: published [{reasoning, novelty_score}] JSON, our predictions.jsonl, or a run folder "
        "holding it.", show_default=False)] = None,
    predictions_opt: Annotated[Path | None, typer.Option(
        "--predictions", "-p", hidden=True, help="Old spelling of PREDICTIONS.")] = None,
    judge: JudgeOpt = None,
    f1_labels: F1LabelsOpt = "fixed",
    max_arguments: MaxArgumentsOpt = None,
    grounding_context: GroundingOpt = "split",
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Run directory for judgments, per-item rows and scores.")] = None,
    seed: SeedOpt = 0,
    concurrency: ConcurrencyOpt = None,
    no_cache: NoCacheOpt = False,
    overwrite: OverwriteOpt = False,
) -> Path | dict:
    """Score saved RINoBench predictions: F1 1..5/macro, MAE, and with --judge the justification metrics."""
    from noveval.benchmarks.rinobench.api import score as api_score
    from noveval.cli.options import positional_or_alias

    predictions = positional_or_alias([predictions] if predictions else None, [predictions_opt] if predictions_opt else None,
                                      what="predictions", alias_name="--predictions")[0]
    if predictions.is_dir():  # a run folder of `noveval run rinobench`
        predictions = predictions / "predictions.jsonl"
    scores = api_score(
        predictions, gold, judge=judge, out=out, seed=seed, concurrency=concurrency,
        cache=None if no_cache else "default", overwrite=overwrite, f1_labels=f1_labels,
        judge_options=_judge_options(max_arguments, grounding_context),
    )
    return Path(out) if out is not None else scores


@app.command("construct")
@cli_errors
def construct_cmd(
    reviews: Annotated[Path, typer.Option("--reviews", "-r", help="OpenReview-like paper records (JSON array or JSONL), see noveval.benchmarks.rinobench.construct.")],
    out: OutOpt,
    model: ModelOpt = "local",
    binning: Annotated[Binning, typer.Option(help="'fixed' (equal-width edges over the 1-4 rating scale) or 'blended' (released code: 0.7 quantile + 0.3 equal-width).")] = Binning.fixed,
    min_related_works: Annotated[int, typer.Option(help="Drop ideas with fewer related works (paper: 5).")] = 5,
    test_size: Annotated[float, typer.Option(help="Test share of the stratified split (paper: 0.2).")] = 0.2,
    skip_grounding: Annotated[bool, typer.Option("--skip-grounding", help="Skip the LLM grounding filter of gold justifications.")] = False,
    seed: SeedOpt = 0,
    no_cache: NoCacheOpt = False,
) -> None:
    """Build a RINoBench dataset (train.json / test.json) from review records (Section 4.1)."""
    from noveval.benchmarks.rinobench.construct import construct

    manifest = construct(
        reviews, out, model=model, binning=binning.value, min_related_works=min_related_works, test_size=test_size,
        check_grounding=not skip_grounding, seed=seed, cache=None if no_cache else "default",
    )
    typer.echo(json.dumps(manifest["counts"], indent=2))
    typer.echo(f"dataset: {out}", err=True)


def demo(out_dir: Path, model: str = "local", embedder: str = "local", real: bool = False, data_dir: Path | None = None) -> list[Path]:
    """Tiny end-to-end run on the shipped samples: generate, score and judge two items.

    With ``real`` the rubric is read from ``<data_dir>/rinobench/label_descriptions.json``
    (no gold test set is available there, so the items stay the shipped samples).
    """
    from noveval.benchmarks.rinobench.api import run as api_run
    from noveval.benchmarks.rinobench.judge import JudgeOptions

    rubric = None
    if real and data_dir is not None and (Path(data_dir) / "rinobench" / "label_descriptions.json").exists():
        rubric = Path(data_dir) / "rinobench" / "label_descriptions.json"
    path = api_run(
        _samples() / "test.json", model=model, judge=model, out=Path(out_dir) / "run", rubric=rubric, limit=2,
        max_tokens=256, overwrite=True,
        # the demo's time budget: the paper's judge reads every argument; here at most 3 of each kind
        judge_options=JudgeOptions(max_arguments=3, max_tokens=256, max_related_works=3, max_abstract_chars=600),
    )
    return [path]
