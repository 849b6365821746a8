"""Text metrics against the reference libraries on fixed strings."""

import pytest
from rouge_score import rouge_scorer
from sacrebleu.metrics import BLEU

from noveval.metrics.text import bertscore_f1, bleu4, corpus_bleu4, rouge_f1

PREDS = ["The method is novel and the experiments are thorough.",
         "Limited novelty; the writing is unclear in places."]
REFS = ["The proposed method is novel, and experiments are extensive and thorough.",
        "The writing is unclear and the novelty over prior work is limited."]


def test_rouge_matches_rouge_score():
    for kind in ("rougeL", "rouge1"):
        sc = rouge_scorer.RougeScorer([kind], use_stemmer=True)
        expected = [sc.score(r, p)[kind].fmeasure for p, r in zip(PREDS, REFS, strict=True)]
        assert rouge_f1(PREDS, REFS, kind=kind) == pytest.approx(expected)
    assert rouge_f1(["a b c"], ["a b c"]) == [1.0]


def test_bleu_matches_sacrebleu():
    bleu = BLEU(max_ngram_order=4, smooth_method="exp", effective_order=True)
    expected = [bleu.sentence_score(p, [r]).score / 100 for p, r in zip(PREDS, REFS, strict=True)]
    assert bleu4(PREDS, REFS) == pytest.approx(expected)
    assert bleu4([REFS[0]], [REFS[0]]) == [pytest.approx(1.0)]
    assert corpus_bleu4(PREDS, REFS) == pytest.approx(
        BLEU().corpus_score(PREDS, [REFS]).score / 100)


def test_length_mismatch():
    with pytest.raises(ValueError):
        rouge_f1(["a"], [])


@pytest.mark.slow
def test_bertscore_bundled_minilm():
    f = bertscore_f1(PREDS + [REFS[0]], REFS + [REFS[0]])
    assert len(f) == 3
    assert all(0 < x <= 1.0 + 1e-5 for x in f)
    assert f[2] == pytest.approx(1.0, abs=1e-4)
    assert f[0] > 0.5
