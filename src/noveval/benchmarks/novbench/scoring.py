"""Score NovBench predictions: the four dimensions of Section 3.2 per paper.

For each paper (record) and its generated evaluation text:

* **Relevance** = AvgIMS (Eq. 1) between the novelty-description sentences and the
  generated items; IMS = 1 + 4·clip(cos, 0, 1) over an embedding model. The paper
  used SPICED (``copenlu/spiced``, Wright et al. 2022) here; noveval's default is the
  bundled all-MiniLM-L6-v2, so Relevance is not comparable with Table 2 unless a local
  SPICED folder is passed (``relevance_embedder="local:/path/to/spiced"``).
* **Coverage** (Eq. 3) of the gold items by the generated items, τ = 0.7, over the
  ``embedder`` (all-MiniLM-L6-v2, as the released code).
* **Correctness** = DistAcc (Eq. 2) of the positive/neutral/negative proportions.
* **Clarity** (Eqs. 4-7): ``clarity`` is the paper variant (KC token-level, LS, FS with
  perplexities from a causal LM — the bundled SmolLM2-135M by default, distilgpt2
  in the paper) and **the one comparable with Table 2**: the authors' own result files
  fit Eq. 7, not their released ``comment_evaluate.py``. ``clarity_reference`` is that
  released formula (0.5·KC substring + 0.5·LS), kept for comparison with the code.
  A sentence whose perplexity is not finite contributes 0 to FS (Eq. 6), counted in
  ``n_ppl_nonfinite``.

``scores.json`` names the embedders, the perplexity model and the comparable Clarity
variant in ``extra`` (``embedder``, ``relevance_embedder``, ``perplexity_model``,
``clarity_comparable_to_paper``, ``models_note``).

Items shorter than 10 characters or "none" are dropped on both sides; an empty
generated evaluation scores 0 on every metric. The "Human" row scores the gold
evaluation as if it were a prediction: Relevance and Clarity are defined, Coverage
and DistAcc are not (they would be 1 by construction; Table 2 shows "-").
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from noveval.benchmarks.novbench import BENCHMARK
from noveval.benchmarks.novbench.data import NovBenchRecord, load_records
from noveval.benchmarks.novbench.evaluation_text import parse_evaluation
from noveval.benchmarks.novbench.options import NovBenchScoreOptions
from noveval.errors import InputError
from noveval.hfdata import is_hf_source
from noveval.io import make_dir, read_json, read_records, write_json, write_jsonl
from noveval.metrics import novbench as M
from noveval.metrics.bootstrap import summarize
from noveval.models.embed import embedder_departure, resolved_embedder
from noveval.models.perplexity import PerplexityScorer
from noveval.models.types import EmbedderProtocol
from noveval.options import paper_embedder
from noveval.runs import RunDir

log = logging.getLogger("noveval")

__all__ = [
    "METRICS",
    "PRIMARY_METRIC",
    "CLARITY_NOTE",
    "models_note",
    "score_outputs",
    "score_human",
    "aggregate",
    "load_predictions",
    "score_run",
]

METRICS: tuple[str, ...] = ("relevance", "coverage", "clarity", "clarity_reference", "dist_acc")
PRIMARY_METRIC = "relevance"

CLARITY_NOTE = (
    "clarity (Eq. 7, (KC + LS + FS)/3) is the variant comparable with NovBench Table 2: the authors' "
    "result files give the COLING 2020 gold 0.5327, which Eq. 7 fits; their released comment_evaluate.py "
    "formula (clarity_reference, 0.5 KC + 0.5 LS) gives 0.7996 on the same gold."
)
"""Why ``clarity`` and not ``clarity_reference`` is compared with the paper (docs/novbench.md)."""


def models_note(embedder: str, relevance_embedder: str, perplexity_model: str | None) -> str:
    """One line naming the models behind a NovBench table (shown beside every table).

    Args:
        embedder: Embedding model id used for Coverage.
        relevance_embedder: Embedding model id used for Relevance.
        perplexity_model: Perplexity model id for FS (None: paper Clarity not computed).
    """
    rel = relevance_embedder if relevance_embedder != embedder else f"{embedder} (also Coverage)"
    parts = [f"Relevance embedder: {rel}" + ("" if "spiced" in relevance_embedder.lower() else " (paper: SPICED)")]
    if relevance_embedder != embedder:
        parts.append(f"Coverage embedder: {embedder}")
    parts.append(
        f"FS perplexity model: {perplexity_model} (paper: distilgpt2)" if perplexity_model
        else "FS perplexity: not computed (paper Clarity skipped)"
    )
    return "; ".join(parts)


class _Vectors:
    """Embeds each distinct text once (the embedder caches across runs)."""

    def __init__(self, embedder: EmbedderProtocol, texts: Sequence[str]) -> None:
        uniq = list(dict.fromkeys(t for t in texts))
        vecs = embedder.encode(uniq, progress="embedding") if uniq else np.zeros((0, 1))
        self._index = {t: i for i, t in enumerate(uniq)}
        self._vecs = np.asarray(vecs, dtype=float)

    def cos(self, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
        if not a or not b:
            return np.zeros((len(a), len(b)))
        va = self._vecs[[self._index[t] for t in a]]
        vb = self._vecs[[self._index[t] for t in b]]
        va = va / np.maximum(np.linalg.norm(va, axis=1, keepdims=True), 1e-12)
        vb = vb / np.maximum(np.linalg.norm(vb, axis=1, keepdims=True), 1e-12)
        return va @ vb.T


def _zero_row(rid: str) -> dict[str, Any]:
    return {
        "id": rid,
        "relevance": 0.0,
        "coverage": 0.0,
        "clarity": 0.0,
        "clarity_reference": 0.0,
        "dist_acc": 0.0,
        "kc_token": 0.0,
        "kc_substring": 0.0,
        "length_score": 0.0,
        "fluency": 0.0,
    }


def _gold_items(r: NovBenchRecord, placeholders: str) -> list[tuple[str, str]]:
    if not r.output_format:
        return []
    return parse_evaluation(r.output_format, placeholders=placeholders).labelled_items()  # type: ignore[arg-type]


def _score(
    records: Sequence[NovBenchRecord],
    items_by_id: dict[str, list[tuple[str, str]]],
    *,
    embedder: EmbedderProtocol,
    relevance_embedder: Any | None,
    perplexity: Any | None,
    tau: float,
    human: bool,
    placeholders: str,
    extra: dict[str, dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    gold = {r.id: _gold_items(r, placeholders) for r in records}
    texts: list[str] = []
    for r in records:
        texts += r.paper_novelty + [t for _, t in items_by_id[r.id]] + [t for _, t in gold[r.id]]
    vec = _Vectors(embedder, texts)
    rel_vec = vec
    if relevance_embedder is not None and relevance_embedder is not embedder:
        rel_texts = [t for r in records for t in r.paper_novelty + [x for _, x in items_by_id[r.id]]]
        rel_vec = _Vectors(relevance_embedder, rel_texts)
    ppl: dict[str, float] = {}
    if perplexity is not None:
        gen = list(dict.fromkeys(t for r in records for _, t in items_by_id[r.id]))
        ppl = dict(zip(gen, perplexity.perplexity(gen), strict=True)) if gen else {}
    rows = []
    for r in records:
        items = items_by_id[r.id]
        g = gold[r.id]
        texts_m = [t for _, t in items]
        if not items:
            row = _zero_row(r.id)
            if human:
                row["coverage"] = row["dist_acc"] = None
            if perplexity is None:  # the paper variant was not asked for
                row["clarity"] = row["fluency"] = None
        else:
            kws = M.extract_keywords(r.paper_novelty)
            row = {"id": r.id, "relevance": M.avg_ims(rel_vec.cos(r.paper_novelty, texts_m))}
            if human:
                row["coverage"] = None
                row["dist_acc"] = None
            else:
                row["coverage"] = M.coverage(vec.cos([t for _, t in g], texts_m), tau=tau) if g else None
                row["dist_acc"] = M.dist_acc([lab for lab, _ in g], [lab for lab, _ in items]) if g else None
            row["kc_token"] = M.keyword_coverage(texts_m, kws, match="token")
            row["kc_substring"] = M.keyword_coverage(texts_m, kws, match="substring")
            row["length_score"] = M.length_score(texts_m)
            if perplexity is not None:
                ps = [ppl[t] for t in texts_m]
                row["fluency"] = M.fluency_score(ps)  # Eq. 6: a non-finite PPL adds 0
                row["n_ppl_nonfinite"] = sum(1 for x in ps if not np.isfinite(x))
                row["clarity"] = M.clarity(texts_m, kws, perplexities=ps, variant="paper")
            else:
                row["fluency"] = None
                row["clarity"] = None
            row["clarity_reference"] = M.clarity(texts_m, kws, variant="reference")
        row["n_items"] = len(items)
        row["n_gold"] = len(g)
        row["distribution"] = M.sentiment_distribution([lab for lab, _ in items])
        if extra and r.id in extra:
            row.update(extra[r.id])
        rows.append(row)
    return rows


def score_outputs(
    records: Sequence[NovBenchRecord],
    outputs: dict[str, str | None],
    *,
    embedder: EmbedderProtocol,
    relevance_embedder: Any | None = None,
    perplexity: Any | None = None,
    tau: float = M.COVERAGE_TAU,
    placeholders: str = "drop",
) -> list[dict[str, Any]]:
    """Score generated evaluation texts against the gold (Section 3.2, Eqs. 1-7).

    Args:
        records: The records (need ``paper_novelty``; Coverage/DistAcc need a gold
            ``output_format``, else they are None for that record).
        outputs: Record id -> generated text (None / missing text = empty output).
        embedder: Sentence embedder (:func:`noveval.models.get_embedder`) for Coverage,
            and for Relevance unless ``relevance_embedder`` is given.
        relevance_embedder: Embedder for Relevance only (the paper: SPICED).
        perplexity: A :class:`noveval.models.perplexity.PerplexityScorer` for the
            paper Clarity variant; None skips it (``clarity`` is then None).
        tau: Coverage threshold.
        placeholders: ``"drop"`` or ``"keep"`` "nothing here" items on both sides
            (:func:`~noveval.benchmarks.novbench.evaluation_text.parse_evaluation`).

    Returns:
        One row per record: ``relevance`` [1, 5] (0 for empty output), ``coverage``,
        ``dist_acc``, ``clarity``, ``clarity_reference`` (all [0, 1]), the Clarity
        components ``kc_token, kc_substring, length_score, fluency``, ``n_items``,
        ``n_gold``, ``headers_found``, ``n_ppl_nonfinite`` (with perplexities) and the
        predicted sentiment ``distribution``.
    """
    items: dict[str, list[tuple[str, str]]] = {}
    extra: dict[str, dict[str, Any]] = {}
    for r in records:
        ev = parse_evaluation(outputs.get(r.id) or "", placeholders=placeholders)  # type: ignore[arg-type]
        items[r.id] = ev.labelled_items()
        extra[r.id] = {"headers_found": ev.found_headers}
    return _score(
        records, items, embedder=embedder, relevance_embedder=relevance_embedder, perplexity=perplexity,
        tau=tau, human=False, placeholders=placeholders, extra=extra,
    )


def score_human(
    records: Sequence[NovBenchRecord],
    *,
    embedder: EmbedderProtocol,
    relevance_embedder: Any | None = None,
    perplexity: Any | None = None,
    placeholders: str = "drop",
) -> list[dict[str, Any]]:
    """The "Human" row of Table 2: score each gold evaluation as a prediction.

    Args: as :func:`score_outputs`.

    Returns:
        Rows as :func:`score_outputs`, with ``coverage`` and ``dist_acc`` None.
    """
    items = {r.id: _gold_items(r, placeholders) for r in records}
    return _score(
        records, items, embedder=embedder, relevance_embedder=relevance_embedder, perplexity=perplexity,
        tau=M.COVERAGE_TAU, human=True, placeholders=placeholders,
    )


def aggregate(
    per_item: Sequence[dict[str, Any]], *, n_resamples: int = 1000, seed: int = 0
) -> dict[str, dict[str, Any]]:
    """Means with 95% bootstrap CIs of every metric (None values are left out)."""
    return summarize(per_item, list(METRICS), n_resamples=n_resamples, seed=seed)


def load_predictions(path: str | Path) -> tuple[dict[str, str | None], dict[str, Any]]:
    """Read predictions from a run directory or a JSON/JSONL file.

    Each row needs ``id`` and the generated text in ``output`` (``prediction`` or
    ``text`` are accepted too; ``null`` means a failed/empty generation).

    Returns:
        ``(id -> text, config)``; config is the run's ``config.json`` or ``{}``.

    Raises:
        InputError: missing file, a row without id / text field, duplicate ids.
    """
    p = Path(path)
    config: dict[str, Any] = {}
    if p.is_dir():
        if (p / "config.json").exists():
            config = read_json(p / "config.json")
        p = p / "predictions.jsonl"
    rows = read_records(p, _PredictionRow)
    out: dict[str, str | None] = {}
    for i, r in enumerate(rows):
        if r.id in out:
            raise InputError(p, i + 1, "id", f"duplicate prediction id {r.id!r}")
        out[r.id] = r.text()
    return out, config


class _PredictionRow(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str
    output: str | None = None
    prediction: str | None = None
    text_: str | None = Field(default=None, alias="text")

    @field_validator("id", mode="before")
    @classmethod
    def _id(cls, v: Any) -> Any:
        return str(v) if isinstance(v, int) else v

    @model_validator(mode="after")
    def _has_text(self) -> _PredictionRow:
        fields = set(self.model_fields_set)
        if not fields & {"output", "prediction", "text_"}:
            raise ValueError("row needs the generated text in 'output' (or 'prediction' / 'text')")
        return self

    def text(self) -> str | None:
        return self.output if self.output is not None else self.prediction or self.text_


def score_run(predictions: str | Path, options: NovBenchScoreOptions | None = None, *,
              out: str | Path | None = None) -> dict[str, Any]:
    """Score a run (or a predictions file) and write ``per_item.jsonl`` + ``scores.json``.

    Args:
        predictions: Run directory or predictions JSON/JSONL.
        options: Scoring options (None: the defaults): the records file (``data``; None:
            the one a run folder recorded), embedders, perplexity model, Clarity variant,
            τ, placeholders and the bootstrap seed (None: the run's, else 0).
        out: Where to write (default: the run directory, or the predictions file's folder).

    Returns:
        The scores dict (as written to ``scores.json``), with the Human row under
        ``extra.human``.

    Raises:
        InputError: bad files, no records file known, or prediction ids that are not in
            the records.
    """
    o = options or NovBenchScoreOptions()
    outputs, config = load_predictions(predictions)
    data = _records_file(predictions, o, config)
    seed = o.seed if o.seed is not None else int(config.get("seed") or 0)
    records = _answered_records(predictions, outputs, data)
    emb, rel_emb, ppl = _scoring_models(o)
    kw: dict[str, Any] = {"embedder": emb, "relevance_embedder": rel_emb, "perplexity": ppl,
                          "placeholders": o.placeholders}
    per_item = score_outputs(records, outputs, tau=o.tau, **kw)
    human = score_human(records, **kw)
    scores = _scores_dict(config, per_item, human, o, data=data, seed=seed, models=(emb, rel_emb, ppl))
    p = Path(predictions)
    _write(Path(out) if out else (p if p.is_dir() else p.parent), per_item, scores)
    return scores


def _records_file(predictions: str | Path, o: NovBenchScoreOptions, config: dict[str, Any]) -> str | Path:
    """``o.data``, else the records file the run recorded."""
    if o.data is not None:
        return o.data
    if config.get("records"):
        return str(config["records"])
    p = Path(predictions)
    if p.is_dir():
        raise InputError(p / "config.json", None, "options.data",
                         "the run does not record its records file (made by an older noveval): give the records "
                         "file it answered")
    raise InputError(p, None, "options.data", "a predictions file needs the records file it answers")


def _answered_records(predictions: str | Path, outputs: dict[str, str | None],
                      data: str | Path) -> list[NovBenchRecord]:
    """The records the predictions answer, in the predictions' order."""
    by_id = {r.id: r for r in load_records(data)}
    unknown = [i for i in outputs if i not in by_id]
    if unknown:
        raise InputError(predictions, None, "id", f"{len(unknown)} prediction id(s) not in {data}: {unknown[:3]}")
    return [by_id[i] for i in outputs]


def _scoring_models(o: NovBenchScoreOptions) -> tuple[Any, Any, Any | None]:
    """The embedder (Coverage), the Relevance embedder and the perplexity scorer (None: no paper Clarity)."""
    from noveval.models import get_embedder

    emb = get_embedder(o.embedder)
    rel = o.relevance_embedder
    rel_emb = get_embedder(rel) if rel and rel != o.embedder else emb
    ppl = None
    if o.clarity in ("paper", "both"):
        ppl = PerplexityScorer(o.ppl_model)
    return emb, rel_emb, ppl


def _scores_dict(config: dict[str, Any], per_item: list[dict[str, Any]], human: list[dict[str, Any]],
                 o: NovBenchScoreOptions, *, data: str | Path, seed: int, models: tuple[Any, Any, Any | None],
                 ) -> dict[str, Any]:
    """The ``scores.json`` dict (Table 2's row and the Human row, the models named)."""
    emb, rel_emb, ppl = models
    ppl_id = ppl.model_id if ppl is not None else None
    resolved = resolved_embedder(emb)
    departs = embedder_departure(resolved, paper_embedder(o))
    if departs:
        log.warning("novbench: %s", departs)
    extra = {
        "prompting": config.get("prompting"),
        "data": str(data) if is_hf_source(data) else str(Path(data).name),
        "n_items": len(per_item),
        "empty_outputs": sum(1 for r in per_item if r["n_items"] == 0),
        "no_format": sum(1 for r in per_item if r.get("headers_found") == 0),
        "embedder": emb.model_id,
        "relevance_embedder": rel_emb.model_id,
        "perplexity_model": ppl_id,
        "embedder_resolved": resolved,
        "relevance_embedder_resolved": resolved_embedder(rel_emb),
        "perplexity_resolved": perplexity_resolved(ppl),
        **({"embedder_note": departs} if departs else {}),
        "models_note": models_note(emb.model_id, rel_emb.model_id, ppl_id) + (f" NOTE: {departs}." if departs else ""),
        "tau": o.tau,
        "clarity": o.clarity,
        "clarity_comparable_to_paper": "clarity" if ppl is not None else None,
        "clarity_note": CLARITY_NOTE,
        "fluency_nonfinite": "zero (Eq. 6: 1/(1+inf) = 0)",
        "n_ppl_nonfinite": sum(int(r.get("n_ppl_nonfinite") or 0) for r in per_item),
        "placeholders": o.placeholders,
        "human": aggregate(human, seed=seed),
    }
    return BENCHMARK.make_scores(config.get("model"), aggregate(per_item, seed=seed), extra=extra, cache={})


def perplexity_resolved(ppl: Any | None) -> dict[str, Any] | None:
    """What the Fluency Score's LM resolved to: ``{"id", "model", "precision", "max_tokens"}`` (None: not used)."""
    if ppl is None:
        return None
    path = getattr(ppl, "model_path", None)
    precision = "Q4_1" if path is None else ("gguf" if str(path).endswith(".gguf") else "fp32")
    return {"id": ppl.model_id, "model": ppl.model_id.rsplit("@", 1)[0], "precision": precision,
            "max_tokens": getattr(ppl, "max_tokens", None)}


def _write(out_dir: Path, per_item: list[dict[str, Any]], scores: dict[str, Any]) -> None:
    """``per_item.jsonl`` and ``scores.json`` into ``out_dir`` (through the run folder when it is one)."""
    make_dir(out_dir, "out")
    if (out_dir / "config.json").exists():
        run = RunDir.open(out_dir)
        run.write("per_item", per_item)
        run.write_scores(scores)
    else:
        write_jsonl(out_dir / "per_item.jsonl", per_item)
        write_json(out_dir / "scores.json", scores)
