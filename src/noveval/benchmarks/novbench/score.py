"""Score NovBench predictions: the four dimensions of Section 3.2 per paper.

For each paper (record) and its generated evaluation text:

* **Relevance** = AvgIMS (Eq. 1) between the novelty-description sentences and the
  generated items; IMS = 1 + 4·clip(cos, 0, 1) over an embedding model (default the
  bundled all-MiniLM-L6-v2; pass ``local:/path`` to a SPICED model).
* **Coverage** (Eq. 3) of the gold items by the generated items, τ = 0.7.
* **Correctness** = DistAcc (Eq. 2) of the positive/neutral/negative proportions.
* **Clarity** (Eqs. 4-7): ``clarity`` is the paper variant (KC token-level, LS, FS with
  perplexities from a causal LM — the bundled SmolLM2-135M by default, distilgpt2
  in the paper); ``clarity_reference`` is the released-code variant
  (0.5·KC substring + 0.5·LS).

Items shorter than 10 characters or "none" are dropped on both sides; an empty
generated evaluation scores 0 on every metric. The "Human" row scores the gold
evaluation as if it were a prediction: Relevance and Clarity are defined, Coverage
and DistAcc are not (they would be 1 by construction; Table 2 shows "-").
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from noveval.benchmarks.novbench.data import NovBenchRecord
from noveval.benchmarks.novbench.evaluation_text import parse_evaluation
from noveval.metrics import novbench as M

__all__ = [
    "METRICS",
    "PRIMARY_METRIC",
    "score_outputs",
    "score_human",
    "aggregate",
    "load_predictions",
    "score_run",
]

METRICS: tuple[str, ...] = ("relevance", "coverage", "clarity", "clarity_reference", "dist_acc")
PRIMARY_METRIC = "relevance"


class _Vectors:
    """Embeds each distinct text once (the embedder caches across runs)."""

    def __init__(self, embedder: Any, texts: Sequence[str]) -> None:
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


def _score(
    records: Sequence[NovBenchRecord],
    items_by_id: dict[str, list[tuple[str, str]]],
    *,
    embedder: Any,
    perplexity: Any | None,
    tau: float,
    human: bool,
    extra: dict[str, dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    gold = {r.id: (r.gold.labelled_items() if r.gold else []) for r in records}
    texts: list[str] = []
    for r in records:
        texts += r.paper_novelty + [t for _, t in items_by_id[r.id]] + [t for _, t in gold[r.id]]
    vec = _Vectors(embedder, texts)
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
            row = {"id": r.id, "relevance": M.avg_ims(vec.cos(r.paper_novelty, texts_m))}
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
                finite = [p for p in ps if np.isfinite(p)]
                row["fluency"] = M.fluency_score(finite)
                row["clarity"] = (row["kc_token"] + row["length_score"] + row["fluency"]) / 3.0
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
    embedder: Any,
    perplexity: Any | None = None,
    tau: float = M.COVERAGE_TAU,
) -> list[dict[str, Any]]:
    """Score generated evaluation texts against the gold (Section 3.2, Eqs. 1-7).

    Args:
        records: The records (need ``paper_novelty``; Coverage/DistAcc need a gold
            ``output_format``, else they are None for that record).
        outputs: Record id -> generated text (None / missing text = empty output).
        embedder: Sentence embedder (:func:`noveval.models.get_embedder`).
        perplexity: A :class:`noveval.models.perplexity.PerplexityScorer` for the
            paper Clarity variant; None skips it (``clarity`` is then None).
        tau: Coverage threshold.

    Returns:
        One row per record: ``relevance`` [1, 5] (0 for empty output), ``coverage``,
        ``dist_acc``, ``clarity``, ``clarity_reference`` (all [0, 1]), the Clarity
        components ``kc_token, kc_substring, length_score, fluency``, ``n_items``,
        ``n_gold``, ``headers_found`` and the predicted sentiment ``distribution``.
    """
    items: dict[str, list[tuple[str, str]]] = {}
    extra: dict[str, dict[str, Any]] = {}
    for r in records:
        ev = parse_evaluation(outputs.get(r.id) or "")
        items[r.id] = ev.labelled_items()
        extra[r.id] = {"headers_found": ev.found_headers}
    return _score(
        records, items, embedder=embedder, perplexity=perplexity, tau=tau, human=False, extra=extra
    )


def score_human(
    records: Sequence[NovBenchRecord],
    *,
    embedder: Any,
    perplexity: Any | None = None,
) -> list[dict[str, Any]]:
    """The "Human" row of Table 2: score each gold evaluation as a prediction.

    Returns:
        Rows as :func:`score_outputs`, with ``coverage`` and ``dist_acc`` None.
    """
    items = {r.id: (r.gold.labelled_items() if r.gold else []) for r in records}
    return _score(
        records, items, embedder=embedder, perplexity=perplexity, tau=M.COVERAGE_TAU, human=True
    )


def aggregate(
    per_item: Sequence[dict[str, Any]], *, n_resamples: int = 1000, seed: int = 0
) -> dict[str, dict[str, Any]]:
    """Means with 95% bootstrap CIs of every metric (None values are left out)."""
    from noveval.metrics.bootstrap import summarize

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
    from noveval.errors import InputError
    from noveval.io import read_json, read_records

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


def score_run(
    predictions: str | Path,
    data: str | Path,
    *,
    embedder: str = "local",
    ppl_model: str | None = None,
    clarity: str = "both",
    tau: float = M.COVERAGE_TAU,
    out: str | Path | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """Score a run (or a predictions file) and write ``per_item.jsonl`` + ``scores.json``.

    Args:
        predictions: Run directory or predictions JSON/JSONL.
        data: The NovBench records file the predictions answer.
        embedder: Embedding spec for Relevance/Coverage (``local`` = MiniLM;
            ``local:/path`` for a SPICED model).
        ppl_model: Causal LM for the Fluency Score (None = bundled SmolLM2-135M).
        clarity: ``paper``, ``reference`` or ``both`` (``reference`` skips perplexity).
        tau: Coverage threshold.
        out: Where to write (default: the run directory, or the predictions file's folder).
        seed: Bootstrap seed.

    Returns:
        The scores dict (as written to ``scores.json``), with the Human row under
        ``extra.human``.

    Raises:
        InputError: bad files, or prediction ids that are not in ``data``.
    """
    from noveval.benchmarks.novbench.data import load_records
    from noveval.errors import InputError
    from noveval.io import make_dir, write_json
    from noveval.models import get_embedder
    from noveval.runs import RunDir

    if clarity not in ("paper", "reference", "both"):
        raise InputError(None, None, "--clarity", "must be paper, reference or both")
    outputs, config = load_predictions(predictions)
    by_id = {r.id: r for r in load_records(data)}
    unknown = [i for i in outputs if i not in by_id]
    if unknown:
        raise InputError(predictions, None, "id", f"{len(unknown)} prediction id(s) not in {data}: {unknown[:3]}")
    records = [by_id[i] for i in outputs]
    emb = get_embedder(embedder)
    ppl = None
    if clarity in ("paper", "both"):
        from noveval.models.perplexity import PerplexityScorer

        ppl = PerplexityScorer(ppl_model)
    per_item = score_outputs(records, outputs, embedder=emb, perplexity=ppl, tau=tau)
    human = score_human(records, embedder=emb, perplexity=ppl)
    p = Path(predictions)
    out_dir = Path(out) if out else (p if p.is_dir() else p.parent)
    scores = {
        "benchmark": "novbench",
        "model": config.get("model"),
        "metrics": aggregate(per_item, seed=seed),
        "primary_metric": PRIMARY_METRIC,
        "greater_is_better": True,
        "cache": {},
        "extra": {
            "prompting": config.get("prompting"),
            "data": str(Path(data).name),
            "n_items": len(per_item),
            "empty_outputs": sum(1 for r in per_item if r["n_items"] == 0),
            "no_format": sum(1 for r in per_item if r.get("headers_found") == 0),
            "embedder": emb.model_id,
            "perplexity_model": ppl.model_id if ppl is not None else None,
            "tau": tau,
            "clarity": clarity,
            "human": aggregate(human, seed=seed),
        },
    }
    make_dir(out_dir, "--out")
    if (out_dir / "config.json").exists():
        run = RunDir.open(out_dir)
        run.write("per_item", per_item)
        run.write_scores(scores)
    else:
        from noveval.io import write_jsonl

        write_jsonl(out_dir / "per_item.jsonl", per_item)
        write_json(out_dir / "scores.json", scores)
    return scores
