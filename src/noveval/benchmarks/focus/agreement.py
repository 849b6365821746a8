"""Agreement of the focus annotator with human labels (cf. "Mind the Blind Spots" 4.2, A.2.4).

The paper reports Cohen's kappa of its annotator against two authors' labels on 327
points (Table 2) and confusion matrices (Figures 13-14). Those labels are not
public, so we check against public sentence-level labels:

* **DISAPERE** (``labels/disapere.jsonl.gz``, ICLR 2019-20 review sentences) --
  its ``aspect`` label is mapped to our aspects (:data:`DISAPERE_ASPECT_MAP`) and
  its ``polarity`` picks the prompt (positive -> strength prompt, negative ->
  weakness prompt). Sentences with no aspect, no polarity, ``arg_other`` or
  ``asp_replicability`` (reproducibility details fit both Clarity and Validity in
  Appendix A.2.2) are left out.
* **MReD** (``labels/mred-meta-review-sentences.jsonl.gz``) -- sentences labelled
  ``strength`` or ``weakness``; the model classifies polarity with an enum-
  constrained prompt (``prompts/polarity.txt``).

Caveat: DISAPERE labels sentences, not self-contained points, and its aspect
scheme differs from ours, so kappa here is a lower bound on agreement with the
paper's own codebook, not a reproduction of Table 2.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from noveval.benchmarks.focus.annotate import parse_label, prompt_messages

DISAPERE_ASPECT_MAP: dict[str, str] = {
    "asp_originality": "Novelty",
    "asp_clarity": "Clarity",
    "asp_soundness-correctness": "Validity",
    "asp_substance": "Validity",
    "asp_meaningful-comparison": "Validity",
    "asp_motivation-impact": "Impact",
}
"""DISAPERE aspect -> our aspect. Substance (enough experiments/results) and
meaningful comparison (baselines, prior work) are completeness/rigour, i.e.
Validity in Appendix A.2.2 (Figure 12 lists "prior work not comprehensively
surveyed" and "experiment does not show effectiveness compared to existing
methods" under Validity)."""

_POLARITY = {"pol_positive": "strength", "pol_negative": "weakness"}

__all__ = ["DISAPERE_ASPECT_MAP", "aspect_messages", "disapere_items", "kappa_report", "mred_items",
           "polarity_messages", "run_agreement"]


def _read_gz_jsonl(path: Path) -> list[dict[str, Any]]:
    from noveval.io import read_jsonl

    return read_jsonl(path)


def disapere_items(path: str | Path, *, n: int | None = 400, seed: int = 0) -> list[dict[str, Any]]:
    """Mapped DISAPERE review sentences, a seeded random subsample of ``n``."""
    items = []
    for rec in _read_gz_jsonl(Path(path)):
        for s in rec.get("review_sentences", []):
            aspect = DISAPERE_ASPECT_MAP.get(s.get("aspect", ""))
            polarity = _POLARITY.get(s.get("polarity", ""))
            if aspect and polarity and s.get("text", "").strip():
                items.append({"id": f"{s['review_id']}:{s['sentence_index']}", "text": s["text"],
                              "polarity": polarity, "gold": aspect, "gold_raw": s["aspect"]})
    items.sort(key=lambda r: r["id"])
    if n and n < len(items):
        items = random.Random(seed).sample(items, n)
    return items


def mred_items(path: str | Path, *, n: int | None = 200, seed: int = 0) -> list[dict[str, Any]]:
    """MReD meta-review sentences labelled strength/weakness, subsampled."""
    items = [
        {"id": f"{r['meta_review_id']}:{i}", "text": r["sentence"], "gold": r["label"]}
        for i, r in enumerate(_read_gz_jsonl(Path(path)))
        if r.get("label") in ("strength", "weakness")
    ]
    if n and n < len(items):
        items = random.Random(seed).sample(items, n)
    return items


def aspect_messages(polarity: str, text: str) -> list[dict[str, str]]:
    """Chat messages asking for the aspect of one DISAPERE sentence (the annotator's aspect prompt)."""
    return prompt_messages(f"aspect_{polarity}", point=text)


def polarity_messages(text: str) -> list[dict[str, str]]:
    """Chat messages asking whether one MReD meta-review sentence is a strength or a weakness."""
    return prompt_messages("polarity", point=text)


def kappa_report(gold: list[str], pred: list[str | None], labels: list[str]) -> dict[str, Any]:
    """Cohen's kappa (parse failures count as disagreement), accuracy and confusion matrix.

    Returns:
        ``{"kappa" in [-1, 1] (1 best), "accuracy", "n", "failures", "labels",
        "confusion" (rows gold, columns predicted; last column = failure)}``.
    """
    from sklearn.metrics import cohen_kappa_score, confusion_matrix

    pred_f = [p if p is not None else "<failure>" for p in pred]
    all_labels = list(labels) + ["<failure>"]
    kappa = float(cohen_kappa_score(gold, pred_f, labels=all_labels)) if gold else float("nan")
    cm = confusion_matrix(gold, pred_f, labels=all_labels).tolist() if gold else []
    return {
        "kappa": kappa,
        "accuracy": sum(g == p for g, p in zip(gold, pred_f, strict=True)) / max(1, len(gold)),
        "n": len(gold),
        "failures": sum(p is None for p in pred),
        "labels": all_labels,
        "confusion": cm[: len(labels)],
    }


def run_agreement(
    data_dir: str | Path,
    *,
    model: str = "local",
    n_disapere: int = 400,
    n_mred: int = 200,
    seed: int = 0,
    out: str | Path | None = None,
) -> dict[str, Any]:
    """Annotate the subsamples with ``model`` and report kappa and confusion matrices."""
    from noveval.benchmarks.focus.annotate import label_schema
    from noveval.metrics.focus import ASPECTS
    from noveval.models.chat import ChatRequest, GenerationParams
    from noveval.models.client import get_client

    data = Path(data_dir)
    client = get_client(model)
    result: dict[str, Any] = {"model": client.model_id, "seed": seed,
                              "disapere_map": DISAPERE_ASPECT_MAP}
    if n_disapere:
        items = disapere_items(data / "labels" / "disapere.jsonl.gz", n=n_disapere, seed=seed)
        reqs = [
            ChatRequest(
                messages=aspect_messages(it["polarity"], it["text"]),
                params=GenerationParams(max_tokens=32, json_schema=label_schema("aspect", it["polarity"])),
                tag="focus-agreement",
            )
            for it in items
        ]
        resps = client.complete_many(reqs, progress="agreement: DISAPERE")
        preds = [parse_label(r.text, "aspect", it["polarity"])[0] if r.ok else None
                 for r, it in zip(resps, items, strict=True)]
        labels = list(ASPECTS) + ["Irrelevant"]
        result["disapere"] = kappa_report([it["gold"] for it in items], preds, labels)
        result["disapere"]["gold_counts"] = {
            lab: sum(it["gold"] == lab for it in items) for lab in labels}
    if n_mred:
        items = mred_items(data / "labels" / "mred-meta-review-sentences.jsonl.gz", n=n_mred, seed=seed)
        schema = {"type": "object", "properties": {"polarity": {"type": "string",
                  "enum": ["strength", "weakness"]}}, "required": ["polarity"]}
        reqs = [
            ChatRequest(messages=polarity_messages(it["text"]),
                        params=GenerationParams(max_tokens=16, json_schema=schema),
                        tag="focus-agreement")
            for it in items
        ]
        resps = client.complete_many(reqs, progress="agreement: MReD")
        preds = []
        for r in resps:
            try:
                v = json.loads(r.text or "").get("polarity") if r.ok else None
            except (json.JSONDecodeError, AttributeError):
                v = None
            preds.append(v if v in ("strength", "weakness") else None)
        result["mred"] = kappa_report([it["gold"] for it in items], preds, ["strength", "weakness"])
    if out:
        from noveval.io import write_json

        write_json(out, result)
    return result


