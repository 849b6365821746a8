"""RINoBench's judging run and its scores.

:func:`judge_run` judges the items' novelty and scores them when they carry gold (Section
5; :mod:`.system` runs it once, or once per prompt variant); ``score(run, options)`` recomputes the
scores from the run folder's saved predictions alone. :func:`score_predictions` scores
predictions made anywhere (the published ``[{reasoning, novelty_score}]`` files) against a
gold file: ``noveval score rinobench PREDICTIONS --gold test.json``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from noveval.benchmarks._contract import client_of, sample_file
from noveval.benchmarks.rinobench.data import (
    IN_MEMORY,
    Prediction,
    load_items,
    load_predictions,
    load_rubric,
)
from noveval.benchmarks.rinobench.generate import agenerate, protocol_params
from noveval.benchmarks.rinobench.judge import JUDGE_PROMPTS, JudgeOptions
from noveval.benchmarks.rinobench.options import (
    JudgeSettings,
    RINoBenchOptions,
    RINoBenchScoreOptions,
)
from noveval.benchmarks.rinobench.prompts import prompt_hashes
from noveval.benchmarks.rinobench.scoring import align_predictions, ascore
from noveval.errors import InputError
from noveval.hfdata import source_label
from noveval.io import read_json
from noveval.metrics.consistency import check_samples
from noveval.metrics.rinobench import F1_LABEL_MODES
from noveval.models.chat import ChatClientProtocol
from noveval.models.client import run_async
from noveval.runs import RunDir

__all__ = ["SAMPLE", "checked_protocol", "judge_run", "planned_config", "run_config", "score", "score_predictions", "used_prompts"]

SAMPLE = ("rinobench", "test.json")
"""The shipped sample: 4 invented ideas in the published test.json format, with gold."""


def _client(spec: str | ChatClientProtocol, o: RINoBenchOptions | None = None, role: str = "model") -> ChatClientProtocol:
    return client_of(spec, **(o.client_kwargs(role=role) if o is not None else {}))


def checked_protocol(o: RINoBenchOptions) -> dict[str, Any]:
    """The generation settings of ``o``'s protocol (:func:`~noveval.benchmarks.rinobench.generate.protocol_params`).

    Raises:
        InputError: ``samples`` above 1 at temperature 0.
    """
    proto = protocol_params(o.protocol, structured=o.structured, temperature=o.temperature)
    check_samples(o.samples, proto["temperature"], hint="set temperature above 0 (or protocol paper, temperature 1)")
    return proto


def judge_options(o: JudgeSettings) -> JudgeOptions:
    """The judge settings the options give (their :class:`JudgeSettings` part)."""
    return JudgeOptions(**{k: getattr(o, k) for k in JudgeSettings.model_fields})


def _items_source(o: RINoBenchOptions) -> str | Path:
    return o.items if o.items is not None else sample_file(*SAMPLE)


def run_config(o: RINoBenchOptions, sel: Sequence[Any], rub: dict[int, str], client: ChatClientProtocol,
               judge_client: ChatClientProtocol | None, jopts: JudgeOptions, proto: dict[str, Any]) -> dict[str, Any]:
    """The ``config.json`` of a run (what decides whether a run folder resumes).

    The prompt hashes are those of the templates in effect now (overrides included).
    """
    return {
        "benchmark": "rinobench",
        "items": source_label(_items_source(o)),
        "n_items": len(sel),
        "model": client.model_id,
        "judge": judge_client.model_id if judge_client else None,
        "rubric": rub,
        "prompts": prompt_hashes(),
        "protocol": proto["protocol"],
        "params": {
            "prompt": proto["prompt"],
            "structured": proto["structured"],
            "max_tokens": o.max_tokens,
            "temperature": proto["temperature"],
            "seed": o.seed,
            "max_related_works": o.max_related_works,
            "max_abstract_chars": o.max_abstract_chars,
            **({"samples": o.samples} if o.samples > 1 else {}),  # absent for one sample: older runs resume
        },
        "judge_options": jopts.model_dump() if judge_client else None,
        "f1_labels": o.f1_labels,
    }


def used_prompts(o: RINoBenchOptions) -> list[str]:
    """The templates a run renders: the protocol's judging prompt, and the judge's with a judge."""
    return [protocol_params(o.protocol)["prompt"], *(JUDGE_PROMPTS if o.judge is not None else ())]


def planned_config(model: str | ChatClientProtocol, out: Path, o: RINoBenchOptions) -> dict[str, Any]:
    """The ``config.json`` :func:`judge_run` would write (prompt variants check every sub-run up front)."""
    proto = checked_protocol(o)
    items = load_items(_items_source(o))
    sel = items[: o.limit] if o.limit else items
    client = _client(model, o)
    judge = _client(o.judge, o, "judge") if o.judge is not None else None
    return run_config(o, sel, load_rubric(o.rubric), client, judge, judge_options(o), proto)


def judge_run(model: str | ChatClientProtocol, out: Path, o: RINoBenchOptions, *,
              jopts: JudgeOptions | None = None, judge: ChatClientProtocol | None = None) -> Path:
    """One run: judge the items (Section 5), then score them when every selected item has gold.

    Args:
        model: Model spec or client.
        out: Run folder (resumed when it holds the same settings).
        o: The run's options.
        jopts: Judge settings (None: from ``o``; the demo caps them for time).
        judge: A ready judge client (None: built from ``o.judge``).

    Raises:
        InputError: bad items or rubric file, bad options, or a run with other settings in ``out``.
    """
    proto = checked_protocol(o)
    all_items = load_items(_items_source(o))
    sel = all_items[: o.limit] if o.limit else all_items
    rub = load_rubric(o.rubric)
    client = _client(model, o)
    judge_client = judge or (_client(o.judge, o, "judge") if o.judge is not None else None)
    jopts = jopts or judge_options(o)
    rd = RunDir.create(out, run_config(o, sel, rub, client, judge_client, jopts, proto), overwrite=o.overwrite)

    async def go() -> None:
        rows = await agenerate(
            sel, client, rd, rubric=rub, structured=proto["structured"], max_tokens=o.max_tokens, seed=o.seed,
            temperature=proto["temperature"], prompt=proto["prompt"], samples=o.samples,
            max_related_works=o.max_related_works, max_abstract_chars=o.max_abstract_chars,
            progress="rinobench: judging novelty",
        )
        if all(it.novelty_score is not None for it in sel):
            await ascore(
                sel, [Prediction.model_validate(r) for r in rows], run=rd, judge=judge_client, judge_options=jopts,
                model=client.model_id, seed=o.seed, f1_labels=o.f1_labels, protocol=proto["protocol"],
                progress="rinobench: judging justifications",
            )

    run_async(go(), client, judge_client)
    return rd.path


def score(run: Path, options: RINoBenchScoreOptions | None = None) -> dict[str, Any]:
    """Scores of a RINoBench run folder from its saved predictions (nothing is written).

    The gold file, ``f1_labels`` and seed are the run's own (its ``config.json``); give
    ``options.judge`` for the justification metrics.

    Raises:
        InputError: not a RINoBench run folder, or its gold file is gone.
    """
    o = options or RINoBenchScoreOptions()
    rd = RunDir.open(run)
    cfg = rd.config
    if cfg.get("benchmark") != "rinobench":
        raise InputError(rd.path / "config.json", None, "benchmark", f"not a RINoBench run ({cfg.get('benchmark')!r})")
    gold: Any
    if cfg.get("task") == "score":
        predictions, gold, seed = cfg["predictions"], cfg["gold"], int(cfg.get("seed") or 0)
    else:  # the run judged the first n_items items (its limit)
        predictions, seed = rd.path / "predictions.jsonl", int(cfg["params"].get("seed") or 0)
        gold = load_items(cfg["items"])[: int(cfg["n_items"])]
    return score_predictions(predictions, gold, judge=o.judge, judge_options=judge_options(o),
                             f1_labels=cfg.get("f1_labels") or "fixed", seed=seed)


def _saved_protocol(predictions: str | Path) -> str | None:
    """The protocol recorded in the run directory the predictions came from, if any."""
    p = Path(predictions)
    cfg = p.parent / "config.json"
    if p.name != "predictions.jsonl" or not cfg.is_file():
        return None
    c = read_json(cfg)
    if not isinstance(c, dict) or c.get("benchmark") != "rinobench" or c.get("task") == "score":
        return None
    return str(c.get("protocol") or "noveval")  # runs made before protocols existed used ours


def score_predictions(
    predictions: str | Path | Sequence[dict[str, Any]],
    gold: str | Path | Sequence[dict[str, Any]],
    *,
    judge: str | ChatClientProtocol | None = None,
    out: str | Path | None = None,
    judge_options: JudgeOptions | None = None,
    f1_labels: str = "fixed",
    overwrite: bool = False,
    client_kwargs: dict[str, Any] | None = None,
    seed: int = 0,
    n_resamples: int = 1000,
) -> dict[str, Any]:
    """Score saved predictions (published ``[{reasoning, novelty_score}]`` or ours); both inputs are checked first.

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
        client_kwargs: Cache/concurrency settings of the judge client.
        seed: Bootstrap seed.
        n_resamples: Bootstrap resamples.

    Returns:
        The ``scores.json`` dict.

    Raises:
        InputError: a bad file or record (file or ``<in-memory records>``, line, field),
            predictions that do not align with the gold, or an input that is neither a
            path nor a list.
    """
    if f1_labels not in F1_LABEL_MODES:
        raise InputError(None, None, "f1_labels", f"must be one of {', '.join(F1_LABEL_MODES)}, got {f1_labels!r}")
    items = load_items(gold, require_gold=True)
    preds = load_predictions(predictions)
    in_memory = not isinstance(predictions, str | Path)
    pred_label: str | Path = IN_MEMORY if in_memory else predictions  # type: ignore[assignment]
    align_predictions(items, preds, path=pred_label)  # validate before writing anything
    judge_client = client_of(judge, **(client_kwargs or {})) if judge is not None else None
    jopts = judge_options or JudgeOptions()
    rd = None
    if out is not None:
        config = {"benchmark": "rinobench", "task": "score",
                  "predictions": IN_MEMORY if in_memory else str(Path(pred_label).resolve()),
                  "gold": IN_MEMORY if not isinstance(gold, str | Path) else source_label(gold),
                  "judge": judge_client.model_id if judge_client else None,
                  "judge_options": jopts.model_dump() if judge_client else None, "f1_labels": f1_labels, "seed": seed}
        rd = RunDir.create(out, config, overwrite=overwrite)
    return run_async(  # type: ignore[no-any-return]
        ascore(
            items, preds, run=rd, judge=judge_client, judge_options=jopts, predictions_path=pred_label,
            model="predictions" if in_memory else Path(pred_label).stem, n_resamples=n_resamples, seed=seed,
            f1_labels=f1_labels, protocol=None if in_memory else _saved_protocol(pred_label),  # type: ignore[arg-type]
            progress="rinobench: judging justifications",
        ),
        judge_client,
    )
