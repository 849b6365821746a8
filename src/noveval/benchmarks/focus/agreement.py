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

Self-consistency (``samples=N``; issue 18), as in ``noveval run focus``:
each sentence's prompt is asked N times at a temperature above 0, sample ``k`` with
seed ``seed + k`` (:func:`~noveval.benchmarks.focus.annotate.annotation_seeds`); the
label scored against the human one is the plurality of the parsed samples
(:func:`sampled_label`), and each sentence records the share of the N samples that gave
it (:func:`consistency_summary` averages them). One sample at temperature 0 sends the
requests this module always sent (seed 0), so cached replies stay valid.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from noveval.benchmarks._contract import client_of
from noveval.benchmarks.focus.annotate import (
    annotation_seeds,
    label_schema,
    parse_label,
    prompt_messages,
)
from noveval.benchmarks.focus.options import AgreementOptions
from noveval.data.folders import data_folder, searched_text
from noveval.errors import InputError
from noveval.io import read_jsonl, write_json
from noveval.metrics.consistency import vote_labels
from noveval.models.calls import note_answer
from noveval.models.chat import ChatClientProtocol, ChatRequest, GenerationParams
from noveval.models.structured import find_json_object
from noveval.models.types import ModelLike

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

__all__ = ["AGREEMENT_FILES", "DISAPERE_ASPECT_MAP", "POLARITY_SCHEMA", "agreement_data", "aspect_messages", "consistency_summary", "disapere_items",
           "kappa_report", "mred_items", "parse_polarity", "polarity_messages", "run_agreement", "sampled_label"]

POLARITY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {"polarity": {"type": "string",
                                   "enum": ["strength", "weakness"]}}, "required": ["polarity"]}
"""JSON schema of the MReD polarity reply (part of every cached request: do not reorder)."""


def _read_gz_jsonl(path: Path) -> list[dict[str, Any]]:
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


def parse_polarity(text: str | None) -> str | None:
    """The polarity of a reply to the MReD prompt (``{"polarity": ...}``), None when unusable.

    The object is found by noveval's one JSON extractor
    (:func:`noveval.models.structured.find_json_object`).
    """
    v = (find_json_object(text) or {}).get("polarity")
    return v if v in ("strength", "weakness") else None


def sampled_label(labels: Sequence[str | None], errors: Sequence[str | None], seeds: Sequence[int]) -> dict[str, Any]:
    """One sentence's label from its N samples, and how consistent they were.

    The label is the plurality of the parsed samples
    (:func:`noveval.metrics.consistency.vote_labels`: an unparseable sample abstains but
    counts in the share; a tie goes to the earliest sample). A sentence any of whose
    sample calls failed has no label (a failure in kappa, as a failed one-sample call is)
    and no share.

    Args:
        labels: Each sample's parsed label (None: unparseable or failed), in seed order.
        errors: Each sample's call error (None: answered).
        seeds: The samples' seeds.

    Returns:
        ``{"label", "self_consistency", "samples": [{"seed", "label", "error"}], "error"}``:
        ``self_consistency`` is the share of the N samples giving the label, in (0, 1],
        best 1 (unanimous); None when no sample parsed or a call failed.
    """
    failed = [f"seed {s}: {e}" for s, e in zip(seeds, errors, strict=True) if e]
    label, share = (None, None) if failed else vote_labels(labels)
    return {
        "label": label,
        "self_consistency": share,
        "samples": [{"seed": s, "label": lab, "error": e} for s, lab, e in zip(seeds, labels, errors, strict=True)],
        "error": "; ".join(failed) or None,
    }


def consistency_summary(rows: Sequence[dict[str, Any]], *, samples: int, temperature: float) -> dict[str, Any]:
    """Self-consistency of a sampled annotator over the sentences of one label set.

    Args:
        rows: Per-sentence rows with ``self_consistency`` (:func:`sampled_label`).
        samples: Samples per sentence.
        temperature: Their temperature.

    Returns:
        ``{"samples", "temperature", "n", "mean", "unanimous"}``: ``n`` sentences with a
        share, ``mean`` their mean share in (0, 1] (best 1), ``unanimous`` the share of
        them whose every sample gave the same label (None when ``n`` is 0).
    """
    shares = [float(r["self_consistency"]) for r in rows if isinstance(r.get("self_consistency"), (int, float))]
    return {
        "samples": samples,
        "temperature": temperature,
        "n": len(shares),
        "mean": sum(shares) / len(shares) if shares else None,
        "unanimous": sum(v == 1.0 for v in shares) / len(shares) if shares else None,
    }


def _annotate(
    client: ChatClientProtocol,
    items: Sequence[dict[str, Any]],
    ask: Callable[[dict[str, Any]], tuple[list[dict[str, str]], dict[str, Any]]],
    parse: Callable[[str | None, dict[str, Any]], str | None],
    *,
    max_tokens: int,
    seeds: Sequence[int],
    temperature: float,
    progress: str,
) -> tuple[list[str | None], list[dict[str, Any]] | None]:
    """Ask every item's prompt once per seed; the labels, and per-item rows when sampling.

    Returns:
        ``(labels, rows)``: one label per item (None: failed or unparseable; the vote
        with several seeds) and, with several seeds, one row per item (``id``, ``gold``
        and :func:`sampled_label`'s fields); None with one seed.
    """
    reqs = []
    for it in items:
        messages, schema = ask(it)
        reqs += [ChatRequest(messages=messages, tag="focus-agreement",
                             params=GenerationParams(temperature=temperature, max_tokens=max_tokens, seed=s,
                                                     json_schema=schema))
                 for s in seeds]
    resps = client.complete_many(reqs, progress=progress)
    n = len(seeds)

    def read(r: Any, it: Any) -> Any:
        label = parse(r.text, it) if r.ok else None
        note_answer(client, r, usable=label is not None, role="annotator")
        return label

    groups = [resps[k * n:(k + 1) * n] for k in range(len(items))]
    if n == 1:
        return [read(g[0], it) for g, it in zip(groups, items, strict=True)], None
    rows = [{"id": it["id"], "gold": it["gold"],
             **sampled_label([read(r, it) for r in g], [r.error for r in g], seeds)}
            for g, it in zip(groups, items, strict=True)]
    return [r["label"] for r in rows], rows


AGREEMENT_FILES = {"disapere": "labels/disapere.jsonl.gz", "mred": "labels/mred-meta-review-sentences.jsonl.gz"}
"""The label files :func:`run_agreement` reads, under the data folder."""


def agreement_data(options: AgreementOptions) -> Path:
    """The data folder holding the label files the options' subsamples need.

    Raises:
        InputError: no searched folder holds them (``--data-dir``; nothing is called or written).
    """
    needs = [f for key, f in AGREEMENT_FILES.items() if (options.n_disapere if key == "disapere" else options.n_mred)]
    d = data_folder(needs, options.data_dir)
    if d is None:
        raise InputError(None, None, "options.data_dir",
                         f"no data folder holds {' and '.join(needs)} ({searched_text(options.data_dir)}): "
                         "noveval data get disapere mred, or pass --data-dir")
    return d


def run_agreement(model: ModelLike, out: Path, options: AgreementOptions) -> Path:
    """Annotate the subsamples with ``model`` and write the report of kappa and confusion matrices to ``out`` (JSON).

    Run it through :func:`~noveval.benchmarks._runner.run_task` with ``one_file=True`` (endpoint
    check, call ledger, unusable-answer tally: mostly unparseable labels are not a result), as
    ``noveval focus agreement`` does.

    Args:
        model: The annotator (a model spec or a chat client).
        out: The report file (JSON).
        options: The subsample sizes and seed, the data folder, the sampling (``temperature``,
            ``samples``: ask each prompt N times, seeds ``seed .. seed + N - 1``, and score the
            plurality label) and the shared run options.

    Returns:
        ``out``, holding ``{"model", "seed", "disapere_map", "disapere", "mred"}`` (each set:
        :func:`kappa_report`, DISAPERE also ``gold_counts``). With ``samples > 1`` the
        report also has ``samples`` and each set ``self_consistency``
        (:func:`consistency_summary`) and ``items`` (per sentence: ``id``, ``gold`` and
        :func:`sampled_label`'s fields); ``temperature`` is there when not 0.

    Raises:
        InputError: no data folder holds the label files.
    """
    data = agreement_data(options)
    seed, samples, temperature = options.seed, options.samples, options.temperature
    seeds = annotation_seeds(seed, samples, temperature)
    client = client_of(model, **options.client_kwargs())
    result: dict[str, Any] = {"model": client.model_id, "seed": seed,
                              # absent at the defaults: the report reads as it always did
                              **({"temperature": temperature} if temperature else {}),
                              **({"samples": samples} if samples > 1 else {}),
                              "disapere_map": DISAPERE_ASPECT_MAP}
    sets = []
    if options.n_disapere:
        sets.append(("disapere", _disapere(result, client, data, options.n_disapere, seed, seeds, temperature)))
    if options.n_mred:
        sets.append(("mred", _mred(result, client, data, options.n_mred, seed, seeds, temperature)))
    for key, rows in sets:
        if rows is not None:  # N samples: the vote's consistency, per set and per sentence
            result[key]["self_consistency"] = consistency_summary(rows, samples=samples, temperature=temperature)
            result[key]["items"] = rows
    write_json(out, result)
    return Path(out)


def _disapere(result: dict[str, Any], client: ChatClientProtocol, data: Path, n: int, seed: int,
              seeds: Sequence[int], temperature: float) -> list[dict[str, Any]] | None:
    """Annotate the DISAPERE subsample's aspects into ``result["disapere"]``; the per-sentence rows when sampling."""
    from noveval.metrics.focus import ASPECTS

    items = disapere_items(data / "labels" / "disapere.jsonl.gz", n=n, seed=seed)
    preds, rows = _annotate(
        client, items, lambda it: (aspect_messages(it["polarity"], it["text"]), label_schema("aspect", it["polarity"])),
        lambda text, it: parse_label(text, "aspect", it["polarity"])[0],
        max_tokens=32, seeds=seeds, temperature=temperature, progress="agreement: DISAPERE")
    labels = list(ASPECTS) + ["Irrelevant"]
    result["disapere"] = kappa_report([it["gold"] for it in items], preds, labels)
    result["disapere"]["gold_counts"] = {lab: sum(it["gold"] == lab for it in items) for lab in labels}
    return rows


def _mred(result: dict[str, Any], client: ChatClientProtocol, data: Path, n: int, seed: int,
          seeds: Sequence[int], temperature: float) -> list[dict[str, Any]] | None:
    """Classify the MReD subsample's polarity into ``result["mred"]``; the per-sentence rows when sampling."""
    items = mred_items(data / "labels" / "mred-meta-review-sentences.jsonl.gz", n=n, seed=seed)
    preds, rows = _annotate(
        client, items, lambda it: (polarity_messages(it["text"]), POLARITY_SCHEMA),
        lambda text, _it: parse_polarity(text),
        max_tokens=16, seeds=seeds, temperature=temperature, progress="agreement: MReD")
    result["mred"] = kappa_report([it["gold"] for it in items], preds, ["strength", "weakness"])
    return rows
