"""FastTextLOF variants against independent implementations written here (issue 14, item 8).

The reference implementation below follows Jeon et al.'s public code (``paper_novelty``):
gensim ``preprocess_string`` with the code's filter list, a fastText model trained on every
title of the corpus including the scored one, the plain float32 mean of the word vectors,
and scikit-learn's ``LocalOutlierFactor(n_neighbors=10)`` over all documents.
"""

from __future__ import annotations

import numpy as np
import pytest
from gensim.models import FastText
from gensim.parsing.preprocessing import (
    preprocess_string,
    remove_stopwords,
    strip_multiple_whitespaces,
    strip_numeric,
    strip_punctuation,
    strip_short,
    strip_tags,
)
from sklearn.neighbors import LocalOutlierFactor

from noveval.benchmarks.axioms.pools import sample_paths
from noveval.corpus import load_corpus
from noveval.novelty import FastTextLOF, get_metric
from noveval.novelty.fasttext_lof import reference_tokens

BUCKET = 20_000
# the fastText library's train_unsupervised defaults (minCount 1, Liu & Zhai), one thread
FT = dict(vector_size=100, window=5, epochs=5, negative=5, min_n=3, max_n=6, bucket=BUCKET, sg=1, min_count=1,
          alpha=0.05, sample=1e-4, workers=1)
# noveval's metric before issue 14 used gensim's learning rate and sub-sampling
FT_OLD = {**FT, "alpha": 0.025, "sample": 1e-3}


@pytest.fixture(scope="module")
def titles() -> list[str]:
    corpus_path, _ = sample_paths()
    return load_corpus(corpus_path).titles[:140]


def jeon_reference(focal: str, pool: list[str], seed: int) -> float:
    """Jeon et al.'s algorithm: corpus = pool + scored title, docvec = mean word vector, LOF k=10."""
    filters = [strip_tags, strip_punctuation, strip_multiple_whitespaces, strip_numeric, remove_stopwords, strip_short]
    docs = [preprocess_string(t, filters=filters) for t in [*pool, focal]]
    model = FastText(seed=seed, **FT)
    model.build_vocab(corpus_iterable=docs)
    model.train(corpus_iterable=docs, total_examples=len(docs), epochs=model.epochs)
    docvecs = np.array([np.array([model.wv[w] for w in d]).mean(axis=0) for d in docs])
    lof = LocalOutlierFactor(n_neighbors=10).fit(docvecs)
    return float(-lof.negative_outlier_factor_[-1])


def normalized_reference(focal: str, pool: list[str], seed: int) -> float:
    """noveval's pre-issue-14 metric: \\w+ lower-case tokens, pool-only model, mean of unit vectors, LOF k=20."""
    import re

    def toks(t: str) -> list[str]:
        return re.findall(r"\w+", t.lower())

    model = FastText(sentences=[toks(t) or ["<empty>"] for t in pool], seed=seed, **FT_OLD)

    def vec(t: str) -> np.ndarray:
        v = np.array([model.wv[w] for w in toks(t)], dtype=np.float64)
        return (v / np.linalg.norm(v, axis=1, keepdims=True)).mean(axis=0)

    x = np.array([vec(t) for t in [*pool, focal]])
    return float(-LocalOutlierFactor(n_neighbors=20).fit(x).negative_outlier_factor_[-1])


@pytest.mark.parametrize("seed", [0, 7])
def test_reference_variant_equals_jeon_et_al_algorithm(titles, seed):
    pool, focals = titles[:120], titles[120:132]
    m = FastTextLOF(bucket=BUCKET, seed=seed)
    assert (m.variant, m.n_neighbors) == ("reference", 10)
    ours = m.score_many(focals, pool)
    ref = np.array([jeon_reference(f, pool, seed) for f in focals])
    # float32 document vectors: the two LOF computations agree to float32 rounding
    np.testing.assert_allclose(ours, ref, rtol=1e-6)
    assert len(set(np.round(ref, 4))) > 5  # a real spread of scores, not a constant
    assert m.score(focals[0], pool) == ours[0]


def test_normalized_variant_equals_the_previous_metric(titles):
    pool, focals = titles[:100], titles[100:106]
    m = FastTextLOF(variant="normalized", bucket=BUCKET)
    assert m.n_neighbors == 20
    ref = np.array([normalized_reference(f, pool, 0) for f in focals])
    np.testing.assert_allclose(m.score_many(focals, pool), ref, rtol=1e-7)


def test_the_two_variants_rank_differently(titles):
    pool, focals = titles[:100], titles[100:130]
    a = FastTextLOF(bucket=BUCKET).score_many(focals, pool)
    b = FastTextLOF(variant="normalized", bucket=BUCKET).score_many(focals, pool)
    assert not np.allclose(a, b)


def test_reference_tokens_keep_case_and_drop_short_numeric_and_stop_words():
    title = "Deep Reinforcement-Learning for 3D SLAM: A Survey of <b>RL</b> on GPUs"
    assert reference_tokens(title) == ["Deep", "Reinforcement", "Learning", "SLAM", "Survey", "GPUs"]
    m = FastTextLOF()
    assert m.tokens(title) == reference_tokens(title)
    assert FastTextLOF(variant="normalized").tokens(title)[:3] == ["deep", "reinforcement", "learning"]


def test_reference_trains_on_the_scored_title():
    m = FastTextLOF(bucket=BUCKET)
    assert m.training_titles("F", ["a", "b"]) == ["a", "b", "F"]
    assert FastTextLOF(variant="normalized").training_titles("F", ["a", "b"]) == ["a", "b"]
    wv = m.train(["graph neural networks", "Zyzzogeton protocol"])
    assert "Zyzzogeton" in wv.key_to_index  # case kept, the scored title's word is in the vocabulary


def test_untokenisable_title_scores_without_error(titles):
    m = FastTextLOF(bucket=BUCKET)
    s = m.score("On AI", titles[:30])  # every token is short: zero vector, no NaN
    assert np.isfinite(s)


def test_variant_validation_and_registry():
    with pytest.raises(ValueError, match="variant"):
        FastTextLOF(variant="paper")
    assert FastTextLOF(n_neighbors=5).n_neighbors == 5
    assert get_metric("fasttextlof").variant == "reference"
    assert get_metric("FastTextLOF", variant="normalized").n_neighbors == 20
