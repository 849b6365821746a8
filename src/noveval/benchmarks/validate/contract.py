"""The validity study's run and score (the functions its declaration names).

``run(model, out, options)`` computes every predictor for every rated paper and scores
them against the human ratings; ``score(run)`` recomputes ``scores.json`` from the run
folder's ``per_item.jsonl`` alone (no model call, no fit).

A run folder follows the benchmarks' contract (:mod:`noveval.runs`): ``config.json``,
``predictions.jsonl`` (one row per metric and paper), ``judgments.jsonl`` (raw LLM judge
answers), ``per_item.jsonl`` (one row per rated paper: human target, covariates and every
predictor) and ``scores.json``. Re-running resumes; the predictor signatures in the config
(``predictors``) may change between runs and only the changed predictors are recomputed.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

import numpy as np

from noveval.benchmarks._contract import client_of
from noveval.benchmarks.validate import BENCHMARK
from noveval.benchmarks.validate.analysis import score_rows
from noveval.benchmarks.validate.data import ASPECT, SCALE
from noveval.benchmarks.validate.judges import JUDGES, judge_signature
from noveval.benchmarks.validate.options import ValidateOptions
from noveval.benchmarks.validate.pool import POOL_MODES
from noveval.benchmarks.validate.predictors import metric_signature
from noveval.benchmarks.validate.prepare import prepare
from noveval.benchmarks.validate.stages import per_item_rows, run_judges, run_metrics
from noveval.data.folders import data_folder, searched_text
from noveval.errors import InputError
from noveval.hfdata import is_hf_source
from noveval.io import read_json, write_json
from noveval.metrics.consistency import check_samples
from noveval.models.calls import CALLS_FILE, active_ledger
from noveval.models.chat import ChatClientProtocol
from noveval.models.embed import embedder_departure
from noveval.novelty import METRICS, get_metric
from noveval.options import paper_embedder
from noveval.runs import RunDir

__all__ = ["HIGH", "LOW", "RECONCILED", "inputs", "run", "score", "write_scores"]

log = logging.getLogger("noveval")

HIGH, LOW = 3.5, 2.0
"""AUC groups: papers with mean rating >= HIGH against those with mean <= LOW (1-4 scale)."""

RECONCILED = ("predictors", "model", "judge_limit", "metric_limits", "min_raters", "min_group", "n_resamples",
              "high", "low")
"""Config keys that may change between runs of one folder (they never change a stored row)."""

_ORDER = ("Yin", "RND", "SemNovel", "FastTextLOF", "nn_distance", "topk_distance", "llm_rubric", "llm_direct")
"""Table order of the predictors."""


def inputs(o: ValidateOptions) -> tuple[Path, Path]:
    """``(reviews, corpus)``: the given files, else those of the first data folder that holds them
    (:func:`noveval.data.folders.data_folder`).

    Raises:
        InputError: the corpus file does not exist, or no data folder holds the files not given
            (``options.corpus`` / ``options.reviews``; the message names the folders searched).
    """
    rel = {"reviews": "reviews/neurips-2025.jsonl.gz", "corpus": "corpus/papers.jsonl.gz"}
    needs = [f for k, f in rel.items() if getattr(o, k) is None]
    found = data_folder(needs, o.data_dir)  # the first data folder that holds the files not given
    d = found or Path(".")
    reviews = o.reviews if o.reviews is not None else d / rel["reviews"]
    corpus = o.corpus if o.corpus is not None else d / rel["corpus"]
    if found is None and needs:
        raise InputError(None, None, f"options.{'corpus' if o.corpus is None else 'reviews'}",
                         f"no data folder holds {' and '.join(needs)} ({searched_text(o.data_dir)}): "
                         "noveval data get neurips-reviews corpus, or give the files")

    if not is_hf_source(corpus) and not Path(corpus).exists():
        raise InputError(corpus, None, "options.corpus", "corpus file not found")
    return Path(reviews), Path(corpus)


def _check(o: ValidateOptions) -> list[str]:
    """The selected metrics' canonical names (case-insensitive match), after checking the choices.

    Raises:
        InputError: an unknown metric, pool, judge prompt or metric-limit name (``options.<field>``).
    """
    check_samples(o.samples, o.temperature)
    if o.pool not in POOL_MODES:
        raise InputError(None, None, "options.pool", f"must be one of {', '.join(POOL_MODES)}, got {o.pool!r}")
    names = []
    for m in o.metric:
        hit = [k for k in METRICS if k.lower() == m.lower()]
        if not hit:
            raise InputError(None, None, "options.metric", f"unknown metric {m!r}; choose from {', '.join(METRICS)}")
        names.append(hit[0])
    for j in o.judge_prompt:
        if j not in JUDGES:
            raise InputError(None, None, "options.judge_prompt",
                             f"unknown judge prompt {j!r}; choose from {', '.join(JUDGES)}")
    for k, v in (o.metric_limit or {}).items():
        if k != "*" and k not in METRICS:  # a known metric not selected in this run is ignored
            raise InputError(None, None, "options.metric_limit",
                             f"unknown metric {k!r}; choose from {', '.join(METRICS)}")
        if v < 1:
            raise InputError(None, None, "options.metric_limit", f"must be at least 1, got {v} for {k}")
    return list(dict.fromkeys(names))


def _limit(o: ValidateOptions, name: str) -> int | None:
    """The paper limit of metric ``name`` (its own, else ``"*"``; None: all papers)."""
    lim = o.metric_limit or {}
    return lim.get(name, lim.get("*"))


def _open_run(out: str | Path, config: dict[str, Any], *, overwrite: bool) -> Any:
    """Create or resume the run; the keys in :data:`RECONCILED` may differ from the stored ones."""
    cfg_file = Path(out) / "config.json"
    old = read_json(cfg_file) if cfg_file.exists() and not overwrite else None
    probe = dict(config)
    if isinstance(old, dict):
        for k in RECONCILED:
            if k in old:
                probe[k] = old[k]
    run = RunDir.create(out, probe, overwrite=overwrite)
    if isinstance(old, dict):
        changed = [k for k in RECONCILED if old.get(k) != config.get(k)]
        old_p, new_p = old.get("predictors") or {}, config.get("predictors") or {}
        redo = sorted(p for p in new_p if p in old_p and old_p[p] != new_p[p])
        if redo:
            log.info("validate: %s changed since the last run of this folder; recomputing only %s",
                     ", ".join(redo), "them" if len(redo) > 1 else "it")
        if changed:
            cfg = run.config
            cfg.update({k: config.get(k) for k in RECONCILED})
            write_json(cfg_file, cfg)
    return run


def _judge_client(model: str | ChatClientProtocol | None, o: ValidateOptions) -> ChatClientProtocol | None:
    """The LLM judges' client (None: ``model`` is None or ``"none"``, or no judge prompt)."""
    if model is None or model == "none" or not o.judge_prompt:
        return None
    client: ChatClientProtocol = client_of(model, **o.client_kwargs())
    return client


def _signatures(o: ValidateOptions, metrics: dict[str, Any], embedder_id: str,
                client: ChatClientProtocol | None) -> dict[str, str]:
    """Predictor -> signature (what determines its values; a changed one is recomputed)."""
    sigs = {n: metric_signature(m, embedder_id) for n, m in metrics.items()}
    if client is not None:
        for j in o.judge_prompt:
            sigs[f"llm_{j}"] = judge_signature(j, client.model_id, max_tokens=o.max_tokens, seed=o.seed,
                                               related_works=o.related_works, max_abstract_chars=o.max_abstract_chars,
                                               temperature=o.temperature, samples=o.samples)
    return sigs


def embedder_records(o: ValidateOptions, resolved: dict[str, Any]) -> dict[str, Any]:
    """``embedder_resolved`` and, when it departs from the paper setting ValidateOptions declares, ``embedder_note``."""
    note = embedder_departure(resolved, paper_embedder(o))
    if note:
        log.warning("validate: %s", note)
    return {"embedder_resolved": resolved, **({"embedder_note": note} if note else {})}


def _config(o: ValidateOptions, files: tuple[Path, Path], prep: Any, metrics: dict[str, Any],
            signatures: dict[str, str], client: ChatClientProtocol | None) -> dict[str, Any]:
    """The run's ``config.json`` (the keys in :data:`RECONCILED` may change between runs of one folder)."""
    reviews, corpus = files
    return {
        "benchmark": "validate",
        "reviews": str(reviews.resolve()),
        "corpus": str(corpus.resolve()),
        "aspect": ASPECT,
        "scale": list(SCALE),
        "limit": o.limit,
        "n_papers": len(prep.rated),
        "embedder": prep.embedder_id,
        **embedder_records(o, prep.embedder_resolved),
        "model": client.model_id if client else None,
        "pool": {"mode": o.pool, "size": o.pool_size, "field": o.field, "max_corpus": o.max_corpus,
                 "top_k": o.top_k,
                 # only under --limit without --max-corpus (older run folders resume unchanged)
                 **({"candidate_cap": prep.cands.summary["candidate_cap"]}
                    if prep.cands.summary.get("candidate_cap") else {})},
        "seed": o.seed,
        "predictors": signatures,
        "judge_limit": o.judge_limit or None,
        "metric_limits": {n: _limit(o, n) for n in metrics if _limit(o, n) is not None} or None,
        "min_raters": o.min_raters,
        "min_group": o.min_group,
        "n_resamples": o.resamples,
        "high": HIGH,
        "low": LOW,
    }


class _MetricFits:
    """The call ledger's name for metric fits: a failed fit makes the run incomplete like a failed call."""


_FITS = _MetricFits()


def _book_fits(rd: Any) -> None:
    """Book the run's failed metric fits (and earlier ones that no longer fail) in the active call ledger.

    The ledger decides whether a run is complete (``scores.json`` ``complete``, exit code 3):
    a failed fit stays unresolved in the run's ``calls.json`` until a later run computes it
    (or drops it: a changed metric signature, a metric no longer selected).
    """
    ledger = active_ledger()
    if ledger is None:
        return
    ledger.register(_FITS, "metric fit", role="metric", probe=None)
    f = Path(rd.path) / CALLS_FILE
    saved = read_json(f) if f.is_file() else None
    unresolved = saved.get("unresolved") if isinstance(saved, dict) else None
    earlier = {k for k in (unresolved or {}) if k.startswith("fit:")}
    failed = {f"fit:{r['id']}": str(r["error"]) for r in rd.rows("predictions") if r.get("error")}
    for key, error in failed.items():
        ledger.record(_FITS, key, cached=False, error=error)
    for key in sorted(earlier - set(failed)):
        ledger.record(_FITS, key, cached=False)


def _predict(rd: Any, prep: Any, o: ValidateOptions, metrics: dict[str, Any], signatures: dict[str, str],
             client: ChatClientProtocol | None) -> tuple[dict[str, dict[str, Any]], list[int], dict[str, float]]:
    """Every predictor of the rated papers: ``(values, judged positions, timings)``."""
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    order = np.random.default_rng(o.seed).permutation(len(prep.rated))
    subsets = {n: sorted(order[: _limit(o, n) or len(order)].tolist()) for n in metrics}
    values = run_metrics(rd, prep, metrics, signatures, subsets, o)
    timings["metrics_s"] = time.perf_counter() - t0
    for r in rd.rows("predictions"):
        key = f"metric_{r.get('predictor')}_compute_s"
        timings[key] = timings.get(key, 0.0) + float(r.get("seconds") or 0.0)
    _book_fits(rd)
    judged: list[int] = []
    if client is not None:
        t0 = time.perf_counter()
        judged = sorted(order[: o.judge_limit or len(order)].tolist())
        values.update(run_judges(rd, prep, client, signatures, judged, o))
        timings["judges_s"] = time.perf_counter() - t0
    return values, judged, timings


def run(model: str | ChatClientProtocol | None, out: Path, options: ValidateOptions) -> Path:
    """Compute every predictor for every rated paper into ``out`` and score them (resumable).

    Args:
        model: Chat model spec or client of the LLM judges (None or ``"none"``: no judges).
        out: Run folder (resumed when it holds the same settings).
        options: The run's options (inputs default to the data folder's files).

    Returns:
        The run folder.

    Raises:
        InputError: bad files or options (nothing is written then).
    """
    from noveval.models.embed import get_embedder

    o = options
    metric_names = _check(o)
    files = inputs(o)
    prep = prepare(*files, o, get_embedder(o.embedder))
    metrics = {n: get_metric(n, **({"bucket": o.fasttext_bucket} if n == "FastTextLOF" else {})) for n in metric_names}
    client = _judge_client(model, o)
    signatures = _signatures(o, metrics, prep.embedder_id, client)
    rd = _open_run(out, _config(o, files, prep, metrics, signatures, client), overwrite=o.overwrite)
    values, judged, timings = _predict(rd, prep, o, metrics, signatures, client)
    rd.write("per_item", per_item_rows(prep, o, values, set(judged)))
    extra = {
        "pool": prep.pool_summary(o.pool, o.pool_size),
        "papers": {"in_file": prep.papers_in_file, "selected": prep.papers_selected, "rated": len(prep.rated),
                   "unrated": prep.papers_selected - len(prep.rated), "judged": len(judged)},
        "timings_s": {k: round(v, 2) for k, v in {**prep.timings, **timings}.items()},
        "cache": client.stats if client is not None else None,
    }
    write_scores(rd, extra=extra)
    return Path(rd.path)


def score(run: Path, options: None = None) -> dict[str, Any]:
    """(Re)compute ``scores.json`` of a validity run from its ``per_item.jsonl`` (no model call, no fit).

    Args:
        run: The run folder.
        options: None (the analysis settings are the run's own).

    Returns:
        The ``scores.json`` dict (also written).

    Raises:
        InputError: not a validity run folder, or it has no per-item rows yet.
    """
    rd = RunDir.open(run)
    if rd.config.get("benchmark") != "validate":
        raise InputError(rd.path / "config.json", None, "benchmark",
                         f"not a validity run ({rd.config.get('benchmark')!r})")
    return write_scores(rd)


def _predictor_names(rows: list[dict[str, Any]], predictors: list[str]) -> list[str]:
    """The predictors to report, in table order: the run's own and the two retrieval signals."""
    present = {k for r in rows for k in (r.get("predictors") or {})}
    names = [p for p in _ORDER if p in present and (p in predictors or p in ("nn_distance", "topk_distance"))]
    return names + sorted(p for p in present if p not in names and p in predictors)


def _failures(rd: Any, current: list[dict[str, Any]]) -> dict[str, int]:
    """Failed metric fits and judge calls recorded in the run's rows."""
    out = {"metrics": sum(1 for r in rd.rows("predictions") if r.get("error")),
           "judge_calls": sum(1 for r in current if r.get("error"))}
    out["total"] = out["metrics"] + out["judge_calls"]
    return out


def write_scores(rd: Any, *, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """Score the run's ``per_item.jsonl`` rows and write ``scores.json``.

    Args:
        rd: The :class:`~noveval.runs.RunDir`.
        extra: Run facts to keep in ``extra`` (pool, papers, timings, cache); default: the
            ones already in scores.json.

    Returns:
        The ``scores.json`` dict.
    """
    cfg = rd.config
    rows = rd.rows("per_item")
    if not rows:
        raise InputError(rd.file("per_item"), None, None, "no per-item rows: the run has not finished its first pass")
    sigs = cfg.get("predictors") or {}
    res = score_rows(rows, predictors=_predictor_names(rows, list(sigs)), min_raters=int(cfg.get("min_raters", 3)),
                     min_group=int(cfg.get("min_group", 80)), high=float(cfg.get("high", HIGH)),
                     low=float(cfg.get("low", LOW)), n_resamples=int(cfg.get("n_resamples", 1000)),
                     seed=int(cfg.get("seed", 0)), top_k=(cfg.get("pool") or {}).get("top_k"))
    current = [r for r in rd.rows("judgments") if sigs.get(f"llm_{r.get('judge')}") == r.get("signature")]
    failures = _failures(rd, current)
    parse: dict[str, dict[str, int]] = {}
    for r in current:
        if not r.get("error"):
            parse.setdefault(r["judge"], {}).setdefault(str(r.get("parse_status")), 0)
            parse[r["judge"]][str(r.get("parse_status"))] += 1
    kept = {k: v for k, v in (rd.scores.get("extra") or {}).items() if k in ("pool", "papers", "timings_s", "cache")}
    emb = {k: cfg[k] for k in ("embedder_resolved", "embedder_note") if cfg.get(k)}
    res_emb = cfg.get("embedder_resolved") or {}
    note = (f"Embedder: {res_emb.get('id')} ({res_emb.get('precision')}, {res_emb.get('max_tokens')} tokens)."
            if res_emb else f"Embedder: {cfg.get('embedder')}.") + (f" NOTE: {cfg['embedder_note']}." if cfg.get("embedder_note") else "")
    scores = BENCHMARK.make_scores(
        cfg.get("model") or "none", res["metrics"],
        extra={**kept, **(extra or {}), **res["extra"], "judge_parse_status": parse, **emb, "models_note": note},
        embedder=cfg.get("embedder"), aspect=cfg.get("aspect"), complete=not failures["total"], failures=failures,
        predictors=cfg.get("predictors"))
    rd.write_scores(scores)
    return scores
