"""BM25 with ``bm25s``: the lexical part of version 1 indexes (read as they are), and
:func:`rank_scores`, the ranking every mode uses. New indexes use
:mod:`noveval.index.lexical`, which computes the same scores from term frequencies so
that papers can be added; a ``bm25s`` index cannot grow.

Scoring is ``bm25s``'s default "lucene" BM25 (Robertson et al.; Lucene's variant, which
drops the constant ``(k1 + 1)`` numerator factor and so leaves rankings unchanged):

``score(q, d) = sum over distinct query terms t in d of idf(t) * tf(t,d) /
(tf(t,d) + k1 * (1 - b + b * |d| / avgdl))`` with ``idf(t) = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))``,
``k1 = 1.5``, ``b = 0.75``. Range [0, inf); greater is more relevant; 0 means no query term
occurs in the document. Tokens: lower-cased ``\\w\\w+`` words, English stopwords removed,
and, with ``stem=True``, Snowball English stems (PyStemmer). Stemming is off by
default: on the citation-gold benchmark it lowered recall@10 from 0.153 to 0.142
(docs/results.md).

Rankings are made here from the full score vector (``BM25.get_scores``), so filters are
applied before ranking and ties are broken by row (the lower row first): the order is
deterministic and hand-checkable.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from noveval.errors import ConfigError

__all__ = ["BM25Params", "BM25Index", "rank_scores"]


@dataclass(frozen=True)
class BM25Params:
    """How the BM25 part was built (recorded in ``index.json``).

    Attributes:
        k1: Term-frequency saturation.
        b: Length normalisation.
        stopwords: Stopword list name given to ``bm25s.tokenize``.
        stem: Snowball English stemming (needs PyStemmer; off by default, see the module docstring).
    """

    k1: float = 1.5
    b: float = 0.75
    stopwords: str = "en"
    stem: bool = False


def _bm25s() -> Any:
    try:
        import bm25s
    except ImportError as e:
        raise ConfigError("the corpus index needs bm25s: pip install 'noveval[index]'") from e
    return bm25s


def _stemmer(params: BM25Params) -> Any:
    if not params.stem:
        return None
    try:
        import Stemmer
    except ImportError as e:
        raise ConfigError("BM25 stemming needs PyStemmer: pip install 'noveval[index]' (or build without --stem)") from e
    return Stemmer.Stemmer("english")


def rank_scores(scores: np.ndarray, k: int, mask: np.ndarray | None = None, *, positive_only: bool = True) -> np.ndarray:
    """Rows of the ``k`` highest scores, best first; ties broken by the lower row.

    Args:
        scores: (n,) scores.
        k: How many rows to return (fewer when fewer qualify).
        mask: (n,) bool; False rows are never returned (filters before ranking).
        positive_only: Drop rows scoring <= 0 (BM25: no query term matched).

    Returns:
        int64 row indices.
    """
    s = np.asarray(scores, dtype=np.float64)
    ok = np.ones(len(s), dtype=bool) if mask is None else np.asarray(mask, dtype=bool).copy()
    if positive_only:
        ok &= s > 0
    ok &= np.isfinite(s)
    cand = np.flatnonzero(ok)
    if len(cand) == 0 or k <= 0:
        return np.zeros(0, dtype=np.int64)
    if len(cand) > k:
        part = cand[np.argpartition(-s[cand], k - 1)[:k]]
        kth = s[part].min()
        cand = cand[s[cand] >= kth]  # keep every row tied with the k-th score, then order stably
    order = np.lexsort((cand, -s[cand]))
    return cand[order][:k].astype(np.int64)


class BM25Index:
    """A built or loaded ``bm25s`` retriever plus the tokenizer settings that built it.

    Args:
        retriever: The ``bm25s.BM25`` object.
        params: Its :class:`BM25Params`.
    """

    def __init__(self, retriever: Any, params: BM25Params) -> None:
        self.retriever = retriever
        self.params = params
        self._stem = _stemmer(params)
        self._vocab: dict[str, int] = getattr(retriever, "vocab_dict", None) or {}

    @classmethod
    def build(cls, texts: Sequence[str], params: BM25Params | None = None) -> BM25Index:
        """Tokenize and index ``texts`` (row i = text i)."""
        bm25s = _bm25s()
        params = params or BM25Params()
        stem = _stemmer(params)
        tok = bm25s.tokenize(list(texts), stopwords=params.stopwords, stemmer=stem, show_progress=False)
        r = bm25s.BM25(k1=params.k1, b=params.b)
        r.index(tok, show_progress=False)
        return cls(r, params)

    def save(self, folder: Path) -> None:
        """Write the sparse matrices and vocabulary under ``folder``."""
        self.retriever.save(str(folder), show_progress=False)

    @classmethod
    def load(cls, folder: Path, params: BM25Params) -> BM25Index:
        """Memory-map a saved index."""
        bm25s = _bm25s()
        return cls(bm25s.BM25.load(str(folder), mmap=True, show_progress=False), params)

    def tokens(self, query: str) -> list[str]:
        """The query's tokens that occur in the index vocabulary."""
        bm25s = _bm25s()
        toks = bm25s.tokenize([query], stopwords=self.params.stopwords, stemmer=self._stem,
                              return_ids=False, show_progress=False)[0]
        return [t for t in toks if t in self._vocab]

    def scores(self, query: str) -> np.ndarray:
        """(n,) BM25 score of every row for ``query`` (zeros when no token is known)."""
        toks = self.tokens(query)
        n = int(self.retriever.scores["num_docs"])
        if not toks:
            return np.zeros(n, dtype=np.float32)
        return np.asarray(self.retriever.get_scores(toks), dtype=np.float32)

    def search(self, query: str, k: int, mask: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Top ``k`` rows (best first) and their scores; rows without any query term are not returned."""
        s = self.scores(query)
        rows = rank_scores(s, k, mask)
        return rows, s[rows]
