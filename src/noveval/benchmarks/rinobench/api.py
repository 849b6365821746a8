"""Python API of RINoBench: ``run`` (generate + score) and ``score`` (saved predictions).

Everything the CLI does is one call here::

    from noveval.benchmarks import rinobench
    run_dir = rinobench.run("test.json", model="local", out="runs/rino", judge="local")
    scores = rinobench.score("novelty_predictions-o3.json", "test.json", out="runs/o3")
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from noveval.benchmarks.rinobench.data import load_items, load_predictions, load_rubric
from noveval.benchmarks.rinobench.judge import JudgeOptions
from noveval.hfdata import source_label
from noveval.models.client import run_async

__all__ = ["run", "score"]


def _client(spec: str | Any, **kw: Any) -> Any:
    if not isinstance(spec, str):
        return spec
    from noveval.models.client import get_client

    return get_client(spec, **kw)


def _checked_protocol(protocol: str, structured: bool, temperature: float | None = None, samples: int = 1) -> dict[str, Any]:
    from noveval.benchmarks.rinobench.generate import PROTOCOLS, protocol_params
    from noveval.errors import InputError
    from noveval.metrics.consistency import check_samples

    if protocol not in PROTOCOLS:
        raise InputError(None, None, "--protocol", f"must be one of {', '.join(PROTOCOLS)}, got {protocol!r}")
    if temperature is not None and not 0.0 <= temperature <= 2.0:
        raise InputError(None, None, "--temperature", f"must be in [0, 2], got {temperature}")
    proto = protocol_params(protocol, structured=structured, temperature=temperature)
    check_samples(samples, proto["temperature"], hint="give --temperature above 0 (or --protocol paper, temperature 1)")
    return proto


def _check_f1_labels(f1_labels: str) -> None:
    from noveval.errors import InputError
    from noveval.metrics.rinobench import F1_LABEL_MODES

    if f1_labels not in F1_LABEL_MODES:
        raise InputError(None, None, "--f1-labels", f"must be one of {', '.join(F1_LABEL_MODES)}, got {f1_labels!r}")


def _saved_protocol(predictions: str | Path) -> str | None:
    """The protocol recorded in the run directory the predictions came from, if any."""
    from noveval.io import read_json

    p = Path(predictions)
    cfg = p.parent / "config.json"
    if p.name != "predictions.jsonl" or not cfg.is_file():
        return None
    c = read_json(cfg)
    if not isinstance(c, dict) or c.get("benchmark") != "rinobench" or c.get("task") == "score":
        return None
    return str(c.get("protocol") or "noveval")  # runs made before protocols existed used ours


def _run_config(
    items: str | Path,
    sel: Sequence[Any],
    rub: dict[int, str],
    client: Any,
    judge_client: Any | None,
    jopts: JudgeOptions,
    proto: dict[str, Any],
    *,
    max_tokens: int,
    seed: int,
    max_related_works: int | None,
    max_abstract_chars: int | None,
    samples: int,
    f1_labels: str,
) -> dict[str, Any]:
    """The ``config.json`` of a :func:`run` (what decides whether a run folder resumes).

    The prompt hashes are those of the templates in effect now (overrides included).
    """
    from noveval.benchmarks.rinobench.prompts import prompt_hashes

    return {
        "benchmark": "rinobench",
        "items": source_label(items),
        "n_items": len(sel),
        "model": client.model_id,
        "judge": judge_client.model_id if judge_client else None,
        "rubric": rub,
        "prompts": prompt_hashes(),
        "protocol": proto["protocol"],
        "params": {
            "prompt": proto["prompt"],
            "structured": proto["structured"],
            "max_tokens": max_tokens,
            "temperature": proto["temperature"],
            "seed": seed,
            "max_related_works": max_related_works,
            "max_abstract_chars": max_abstract_chars,
            **({"samples": samples} if samples > 1 else {}),  # absent for one sample: older runs resume
        },
        "judge_options": jopts.model_dump() if judge_client else None,
        "f1_labels": f1_labels,
    }


def run(
    items: str | Path,
    *,
    model: str | Any = "local",
    out: str | Path,
    judge: str | Any | None = None,
    rubric: str | Path | None = None,
    limit: int | None = None,
    protocol: str = "noveval",
    structured: bool = True,
    max_tokens: int = 512,
    seed: int = 0,
    max_related_works: int | None = None,
    max_abstract_chars: int | None = None,
    judge_options: JudgeOptions | None = None,
    f1_labels: str = "fixed",
    overwrite: bool = False,
    cache: str | None = "default",
    concurrency: int | None = None,
    progress: bool = True,
    temperature: float | None = None,
    samples: int = 1,
) -> Path:
    """Run the novelty-judgment task on ``items`` and score it (Section 5).

    Gold scores are optional: without them only ``predictions.jsonl`` is written.

    Args:
        items: A ``test.json``-format file, or ``hf:NAME[:SPLIT]`` (:mod:`noveval.hfdata`).
        model: Model spec (or a ready client).
        out: Run directory (resumed when it holds the same settings).
        judge: Judge model spec/client for the justification metrics (None: skip).
        rubric: ``label_descriptions.json`` (default: Table 1).
        limit: Use only the first N items.
        protocol: ``"noveval"`` (our prompt, temperature 0) or ``"paper"`` (the
            released ``predict_novelty.py`` set-up: temperature 1, a 2-4 sentence
            justification, no schema-constrained decoding); see
            :func:`noveval.benchmarks.rinobench.generate.protocol_params`.
        structured: Ask for schema-constrained JSON answers (ignored by ``"paper"``).
        max_tokens: Answer token budget.
        seed: Sampling and bootstrap seed.
        max_related_works: Show only the first N related works.
        max_abstract_chars: Cut related-work abstracts to this length.
        judge_options: Judge settings.
        f1_labels: ``"fixed"`` (macro-F1 over classes 1..5) or ``"present"`` (the
            released ``eval.py``); see :func:`noveval.metrics.rinobench.f1_labels`.
        overwrite: Replace a run with other settings in ``out``.
        cache: Response cache (``"default"``, a path, or None).
        concurrency: Max requests in flight.
        progress: Show progress.
        temperature: Override the protocol's temperature (None: the protocol's).
        samples: Ask each item this many times (seeds ``seed .. seed + N - 1``) and
            answer the plurality score; ``self_consistency`` is recorded per item and in
            ``scores.json`` (issue 18). Needs a temperature above 0.

    Returns:
        The run directory.

    Raises:
        InputError: bad items/rubric file, or a run with other settings in ``out``.
    """
    from noveval.benchmarks.rinobench.generate import agenerate
    from noveval.benchmarks.rinobench.scoring import ascore
    from noveval.runs import RunDir

    proto = _checked_protocol(protocol, structured, temperature, samples)
    _check_f1_labels(f1_labels)
    all_items = load_items(items)
    sel = all_items[:limit] if limit else all_items
    rub = load_rubric(rubric)
    client = _client(model, cache=cache, concurrency=concurrency)
    judge_client = _client(judge, cache=cache, concurrency=concurrency) if judge is not None else None
    jopts = judge_options or JudgeOptions()
    config = _run_config(items, sel, rub, client, judge_client, jopts, proto, max_tokens=max_tokens, seed=seed,
                         max_related_works=max_related_works, max_abstract_chars=max_abstract_chars,
                         samples=samples, f1_labels=f1_labels)
    rd = RunDir.create(out, config, overwrite=overwrite)

    async def go() -> None:
        rows = await agenerate(
            sel, client, rd, rubric=rub, structured=proto["structured"], max_tokens=max_tokens, seed=seed,
            temperature=proto["temperature"], prompt=proto["prompt"], samples=samples,
            max_related_works=max_related_works, max_abstract_chars=max_abstract_chars,
            progress="rinobench: judging novelty" if progress else None,
        )
        if all(it.novelty_score is not None for it in sel):
            from noveval.benchmarks.rinobench.data import Prediction

            preds = [Prediction.model_validate(r) for r in rows]
            await ascore(
                sel, preds, run=rd, judge=judge_client, judge_options=jopts, model=client.model_id, seed=seed,
                f1_labels=f1_labels, protocol=proto["protocol"],  # type: ignore[arg-type]
                progress="rinobench: judging justifications" if progress else None,
            )

    run_async(go(), client, judge_client)
    return rd.path


def score(
    predictions: str | Path | Sequence[dict[str, Any]],
    gold: str | Path | Sequence[dict[str, Any]],
    *,
    judge: str | Any | None = None,
    out: str | Path | None = None,
    judge_options: JudgeOptions | None = None,
    f1_labels: str = "fixed",
    overwrite: bool = False,
    cache: str | None = "default",
    concurrency: int | None = None,
    seed: int = 0,
    n_resamples: int = 1000,
    progress: bool = True,
) -> dict[str, Any]:
    """Score saved predictions (published ``[{reasoning, novelty_score}]`` or ours).

    Both inputs are fully validated before anything is written.

    Args:
        predictions: Predictions file (aligned with the gold by id, else by order), or a
            list of ``{reasoning, novelty_score[, id]}`` dicts.
        gold: Gold ``test.json``-format file, ``hf:NAME[:SPLIT]``, or a list of records in
            that format.
        judge: Judge model spec/client for the justification metrics (None: skip).
        out: Run directory for judgments / per-item rows / scores (None: write nothing).
        judge_options: Judge settings.
        f1_labels: ``"fixed"`` (macro-F1 over classes 1..5) or ``"present"`` (the
            released ``eval.py``: scikit-learn's default label set for the macro
            average, per-class F1 only for the gold classes).
        overwrite: Replace a run with other settings in ``out``.
        cache: Response cache for the judge.
        concurrency: Max judge requests in flight.
        seed: Bootstrap seed.
        n_resamples: Bootstrap resamples.
        progress: Show progress.

    Returns:
        The ``scores.json`` dict.

    Raises:
        InputError: a bad file or record (file or ``<in-memory records>``, line, field),
            predictions that do not align with the gold, or an input that is neither a
            path nor a list.
    """
    from noveval.benchmarks.rinobench.data import IN_MEMORY
    from noveval.benchmarks.rinobench.scoring import align_predictions, ascore

    _check_f1_labels(f1_labels)
    items = load_items(gold, require_gold=True)
    preds = load_predictions(predictions)
    in_memory = not isinstance(predictions, str | Path)
    pred_label: str | Path = IN_MEMORY if in_memory else predictions  # type: ignore[assignment]
    align_predictions(items, preds, path=pred_label)  # validate before writing anything
    judge_client = _client(judge, cache=cache, concurrency=concurrency) if judge is not None else None
    jopts = judge_options or JudgeOptions()
    rd = None
    if out is not None:
        from noveval.runs import RunDir

        rd = RunDir.create(
            out,
            {
                "benchmark": "rinobench",
                "task": "score",
                "predictions": IN_MEMORY if in_memory else str(Path(pred_label).resolve()),
                "gold": IN_MEMORY if not isinstance(gold, str | Path) else source_label(gold),
                "judge": judge_client.model_id if judge_client else None,
                "judge_options": jopts.model_dump() if judge_client else None,
                "f1_labels": f1_labels,
                "seed": seed,
            },
            overwrite=overwrite,
        )
    return run_async(
        ascore(
            items, preds, run=rd, judge=judge_client, judge_options=jopts, predictions_path=pred_label,
            model="predictions" if in_memory else Path(pred_label).stem, n_resamples=n_resamples, seed=seed,
            f1_labels=f1_labels, protocol=None if in_memory else _saved_protocol(pred_label),  # type: ignore[arg-type]
            progress="rinobench: judging justifications" if progress else None,
        ),
        judge_client,
    )
