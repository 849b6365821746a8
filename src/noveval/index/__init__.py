"""A persistent corpus index for retrieval and corpus-scale novelty metrics.

One folder holds BM25 over title + abstract (term-frequency segments that grow with
``index add``, :mod:`noveval.index.lexical`), dense vectors (a memory-mapped
float32 matrix, filled resumably; optional faiss HNSW with measured recall), metadata for
year/field filters and the embedder's identity. ``noveval index build|add|info|embed|ann|search``
manage it; ``noveval check --index`` and ``noveval novelty score --index`` read it.
Heavy dependencies (``bm25s``, ``PyStemmer``, ``faiss-cpu``) are the ``index`` extra,
imported only when used.
"""

from noveval.index.bm25 import BM25Index, BM25Params, rank_scores
from noveval.index.build import add_papers, build_index, fill_from_cache, fill_vectors, read_corpus
from noveval.index.lexical import LexicalIndex, LexicalParams, PRFParams
from noveval.index.search import MODES, Hit, SearchResult, rrf, search
from noveval.index.store import CorpusIndex, is_index, open_index

__all__ = [
    "BM25Index", "BM25Params", "CorpusIndex", "Hit", "LexicalIndex", "LexicalParams", "MODES", "PRFParams",
    "SearchResult", "add_papers", "build_index",
    "fill_from_cache", "fill_vectors", "is_index", "open_index", "rank_scores", "read_corpus", "rrf", "search",
]
