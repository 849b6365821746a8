"""BM25 over term-frequency segments: built once, grown by appending, queried with weights.

Why not ``bm25s``'s own index: it stores per-(document, term) *scores*, which depend on
the corpus size, document frequencies and the mean length, so adding papers means
rebuilding it. This index stores raw term frequencies in segments (one per build or
``index add``) plus global document frequencies and lengths, and computes the score at
query time. Scores equal ``bm25s``'s "lucene" BM25 on the same tokens (tested):

``score(q, d) = sum over query terms t of w(t) * idf(t) * tf(t,d) / (tf(t,d) + k1 * (1 - b + b * |d| / avgdl))``,
``idf(t) = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))``; range [0, inf), greater is more
relevant, 0 when no query term occurs. ``w(t)`` is the query term's count raised to
``query_tf`` (1 = linear, as ``bm25s``; 0.5 = square root, the default since it
measured better on citation gold, docs/results.md).

Tokens (:class:`Tokenizer`): lower-cased ``\\w\\w+`` words, English stopwords removed
(``bm25s``'s list), optional Snowball stems, and optionally the bigrams of adjacent
remaining words (``"graph neural"``). A document is its title's tokens ``title_weight``
times plus its abstract's tokens.

Layout under ``INDEX/lexical/`` (every file of a generation is written before the state
file that names it, and ``index.json`` names the state last, so a killed ``add`` leaves
the previous generation intact)::

    state-G.json       generation G: parameters, N, total length, segments, file names
    terms-G.npy        uint64 (V,) sorted 64-bit hashes of the terms (blake2b)
    termids-G.npy      int32 (V,) term id of each sorted hash
    df-G.npy           int32 (V,) document frequency by term id
    doclen-G.npy       float32 (N,) document length (tokens, title counted title_weight times)
    seg-K/             one segment: CSC postings of rows [start, end)
        indptr.npy     int64 (V_K + 1,) by term id (terms created later have no postings here)
        docs.npy       int32 row of each posting
        tf.npy         uint16 term frequency of each posting

Pseudo-relevance feedback (:func:`rm3_weights`) follows RM3 (Abdul-Jaleel et al. 2004;
Lavrenko & Croft 2001): the top ``fb_docs`` first-pass documents, weighted by their
normalised score, give a relevance model ``P(t|R) = sum_d P(d|q) tf(t,d)/|d|``; its
``fb_terms`` most probable terms are mixed with the query,
``w'(t) = orig_weight * P(t|q) + (1 - orig_weight) * P(t|R)``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from itertools import chain, filterfalse, islice
from pathlib import Path
from typing import Any

import numpy as np

from noveval.errors import ConfigError
from noveval.index.bm25 import rank_scores

__all__ = ["LexicalParams", "PRFParams", "Tokenizer", "LexicalIndex", "term_hash", "rm3_weights"]

_TOKEN = re.compile(r"(?u)\b\w\w+\b")
_JOIN = "{} {}".format


@dataclass(frozen=True)
class LexicalParams:
    """How the lexical part was built and is queried (recorded in ``index.json`` under ``bm25``).

    Attributes:
        k1: Term-frequency saturation (BM25).
        b: Length normalisation (BM25).
        stopwords: Stopword list name (``bm25s``'s lists; ``"en"``).
        stem: Snowball English stems (needs PyStemmer).
        bigrams: Also index the bigrams of adjacent non-stopword words.
        title_weight: How many times the title's tokens count.
        query_tf: Exponent on a query term's count (1 linear, 0.5 square root).
    """

    k1: float = 1.5
    b: float = 0.75
    stopwords: str = "en"
    stem: bool = False
    bigrams: bool = True
    title_weight: int = 2
    query_tf: float = 0.5

    @classmethod
    def plain(cls, stem: bool = False) -> LexicalParams:
        """The plain ``bm25s`` setting (unigrams, title once, linear query counts): the old default."""
        return cls(stem=stem, bigrams=False, title_weight=1, query_tf=1.0)

    @classmethod
    def from_meta(cls, meta: dict[str, Any]) -> LexicalParams:
        """Parameters recorded in ``index.json`` (keys this version does not know are ignored)."""
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in meta.items() if k in known})


@dataclass(frozen=True)
class PRFParams:
    """RM3 pseudo-relevance feedback settings (see the module docstring).

    Attributes:
        fb_docs: First-pass documents used as feedback.
        fb_terms: Expansion terms kept.
        orig_weight: Weight of the original query in the mix, in [0, 1].
    """

    fb_docs: int = 10
    fb_terms: int = 20
    orig_weight: float = 0.5


def term_hash(term: str) -> int:
    """64-bit hash of a term (blake2b, 8 bytes, little-endian), stable across processes."""
    return int.from_bytes(hashlib.blake2b(term.encode("utf-8"), digest_size=8).digest(), "little")


def _stopwords(name: str) -> frozenset[str]:
    if not name:
        return frozenset()
    try:
        from bm25s.tokenization import _infer_stopwords
    except ImportError as e:
        raise ConfigError("the corpus index needs bm25s: pip install 'noveval[index]'") from e
    return frozenset(_infer_stopwords(name))


class Tokenizer:
    """Text -> tokens under :class:`LexicalParams` (the same for documents and queries).

    Args:
        params: The settings (stopwords, stem, bigrams).
    """

    def __init__(self, params: LexicalParams) -> None:
        self.params = params
        self._stop = _stopwords(params.stopwords)
        self._stem_cache: dict[str, str] = {}
        self._stemmer: Any = None
        if params.stem:
            try:
                import Stemmer
            except ImportError as e:
                raise ConfigError("BM25 stemming needs PyStemmer: pip install 'noveval[index]'") from e
            self._stemmer = Stemmer.Stemmer("english")

    def __call__(self, text: str) -> list[str]:
        """Tokens of ``text``: words, then (with bigrams) the bigrams of adjacent words."""
        words = list(filterfalse(self._stop.__contains__, _TOKEN.findall(text.lower())))
        if self._stemmer is not None:
            cache = self._stem_cache
            for w in words:
                if w not in cache:
                    cache[w] = self._stemmer.stemWord(w)
            words = [cache[w] for w in words]
        if self.params.bigrams and len(words) > 1:
            return words + list(map(_JOIN, words, words[1:]))
        return words

    def document(self, title: str, abstract: str) -> list[str]:
        """A paper's tokens: the title's ``title_weight`` times, then the abstract's."""
        return self(title) * max(1, self.params.title_weight) + self(abstract)



def _save(path: Path, arr: np.ndarray) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        np.save(fh, arr)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


class _Vocab(dict):  # type: ignore[type-arg]
    """term -> id; a term not yet in it gets the next id (from ``start``) and is listed in ``new``.

    Lookups of known terms stay in C (``dict.__getitem__``); only new terms call Python.
    """

    def __init__(self, start: int = 0) -> None:
        super().__init__()
        self.start = start
        self.new: list[str] = []

    def __missing__(self, key: str) -> int:
        j = self.start + len(self.new)
        self.new.append(key)
        self[key] = j
        return j

    @property
    def n_terms(self) -> int:
        """Terms known after this vocabulary's additions."""
        return self.start + len(self.new)


def _segment(docs_tokens: Iterable[list[str]], first_row: int, vocab: _Vocab,
             chunk: int = 20_000) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """CSC postings of documents (rows ``first_row ..``) and their lengths; new terms get the next ids in ``vocab``.

    Documents are consumed ``chunk`` at a time, so only their term ids stay in memory.
    """
    get = vocab.__getitem__
    ids: list[np.ndarray] = []
    lengths: list[int] = []
    it = iter(docs_tokens)
    while True:
        part = list(islice(it, chunk))
        if not part:
            break
        lens = [len(x) for x in part]
        ids.append(np.fromiter(map(get, chain.from_iterable(part)), dtype=np.int64, count=sum(lens)))
        lengths.extend(lens)
    n_terms = vocab.n_terms
    length = np.asarray(lengths, dtype=np.int64)
    if not length.sum():
        return {"indptr": np.zeros(n_terms + 1, dtype=np.int64), "docs": np.zeros(0, dtype=np.int32),
                "tf": np.zeros(0, dtype=np.uint16)}, length.astype(np.float32)
    keys = np.concatenate(ids)
    ids.clear()
    keys <<= 32
    keys += np.repeat(np.arange(first_row, first_row + len(length), dtype=np.int64), length)
    keys, tf = np.unique(keys, return_counts=True)  # sorted by term, then row: CSC order
    counts = np.bincount(keys >> 32, minlength=n_terms)
    indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    return {"indptr": indptr, "docs": (keys & 0xFFFFFFFF).astype(np.int32),
            "tf": np.minimum(tf, 65535).astype(np.uint16)}, length.astype(np.float32)


class LexicalIndex:
    """The lexical part of an index (see the module docstring).

    Open one with :meth:`open`; make one with :meth:`build` and grow it with :meth:`add`.

    Args:
        folder: ``INDEX/lexical``.
        state: The parsed state file.
    """

    def __init__(self, folder: Path, state: dict[str, Any]) -> None:
        self.folder = Path(folder)
        self.state = state
        self.params = LexicalParams.from_meta(state["params"])
        self.tokenize = Tokenizer(self.params)
        f = state["files"]
        self._hashes = np.load(self.folder / f["terms"], mmap_mode="r")
        self._ids = np.load(self.folder / f["termids"], mmap_mode="r")
        self.df = np.load(self.folder / f["df"], mmap_mode="r")
        self.doclen = np.load(self.folder / f["doclen"], mmap_mode="r")
        self.n_docs = int(state["n_docs"])
        self.avgdl = float(state["total_len"]) / max(self.n_docs, 1)
        self._segs: list[dict[str, Any]] = []
        for s in state["segments"]:
            d = self.folder / s["name"]
            self._segs.append({"indptr": np.load(d / "indptr.npy", mmap_mode="r"),
                               "docs": np.load(d / "docs.npy", mmap_mode="r"),
                               "tf": np.load(d / "tf.npy", mmap_mode="r")})

    # ----------------------------------------------------------------- making

    @classmethod
    def open(cls, folder: str | Path, state_name: str) -> LexicalIndex:
        """Open generation ``state_name`` (a ``state-G.json`` under ``folder``)."""
        folder = Path(folder)
        return cls(folder, json.loads((folder / state_name).read_text(encoding="utf-8")))

    @classmethod
    def build(cls, folder: str | Path, papers: Sequence[dict[str, Any]], params: LexicalParams) -> str:
        """Write generation 1 for ``papers`` (dicts with ``title``/``abstract``) under ``folder``.

        Returns:
            The state file's name (to record in ``index.json``).
        """
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        tok = Tokenizer(params)
        vocab = _Vocab()
        seg, lengths = _segment((tok.document(p["title"], p["abstract"]) for p in papers), 0, vocab)
        return _write_generation(folder, 1, params, vocab, [("seg-1", 0, len(lengths), seg)], [], lengths)

    def add(self, papers: Sequence[dict[str, Any]]) -> str:
        """Write the next generation: the current one plus a segment for ``papers`` (rows ``n_docs ..``).

        Costs the new papers' tokenisation and the vocabulary's size, not a rebuild.

        Returns:
            The new state file's name.
        """
        g = int(self.state["generation"]) + 1
        docs = [self.tokenize.document(p["title"], p["abstract"]) for p in papers]
        vocab = _Vocab(len(self._hashes))
        uniq = list({t for d in docs for t in d})
        for t, j in zip(uniq, self.term_ids(uniq)):
            if j >= 0:
                dict.__setitem__(vocab, t, int(j))
        seg, new_len = _segment(docs, self.n_docs, vocab)
        old = [(s["name"], s["rows"][0], s["rows"][1], None) for s in self.state["segments"]]
        return _write_generation(self.folder, g, self.params, vocab, [*old, (f"seg-{g}", self.n_docs,
                                                                          self.n_docs + len(docs), seg)],
                                 [self.df], np.concatenate([np.asarray(self.doclen), new_len]))

    # --------------------------------------------------------------- querying

    def term_ids(self, terms: Sequence[str]) -> np.ndarray:
        """Ids of ``terms`` in the index (int64; -1 where unknown)."""
        if not terms:
            return np.zeros(0, dtype=np.int64)
        h = np.fromiter((term_hash(t) for t in terms), dtype=np.uint64, count=len(terms))
        pos = np.minimum(np.searchsorted(self._hashes, h), max(len(self._hashes) - 1, 0))
        if len(self._hashes) == 0:
            return np.full(len(terms), -1, dtype=np.int64)
        hit = np.asarray(self._hashes[pos]) == h
        return np.where(hit, np.asarray(self._ids[pos], dtype=np.int64), -1)

    def term_id(self, term: str) -> int | None:
        """Id of a term in the index (None when unknown)."""
        j = int(self.term_ids([term])[0])
        return None if j < 0 else j

    def query_weights(self, query: str) -> dict[int, float]:
        """Known query terms -> weight (count ** ``query_tf``)."""
        counts = Counter(self.tokenize(query))
        terms = list(counts)
        return {int(j): float(counts[t]) ** self.params.query_tf for t, j in zip(terms, self.term_ids(terms)) if j >= 0}

    def tokens(self, query: str) -> list[str]:
        """The query's tokens that occur in the index."""
        toks = self.tokenize(query)
        return [t for t, j in zip(toks, self.term_ids(toks)) if j >= 0]

    def weighted_scores(self, weights: dict[int, float]) -> np.ndarray:
        """(n,) float32 BM25 scores for term id -> weight."""
        n, k1, b = self.n_docs, self.params.k1, self.params.b
        if not weights:
            return np.zeros(n, dtype=np.float32)
        docs_l, contrib_l = [], []
        for j, w in weights.items():
            df = float(self.df[j])
            idf = np.log(1.0 + (n - df + 0.5) / (df + 0.5))
            for s in self._segs:
                if j + 1 >= len(s["indptr"]):
                    continue
                a, e = int(s["indptr"][j]), int(s["indptr"][j + 1])
                if a == e:
                    continue
                d = np.asarray(s["docs"][a:e])
                tf = np.asarray(s["tf"][a:e], dtype=np.float64)
                norm = k1 * (1.0 - b + b * np.asarray(self.doclen[d], dtype=np.float64) / self.avgdl)
                docs_l.append(d)
                contrib_l.append(w * idf * tf / (tf + norm))
        if not docs_l:
            return np.zeros(n, dtype=np.float32)
        return np.bincount(np.concatenate(docs_l), weights=np.concatenate(contrib_l), minlength=n).astype(np.float32)

    def scores(self, query: str) -> np.ndarray:
        """(n,) BM25 score of every row for ``query`` (zeros when no token is known)."""
        return self.weighted_scores(self.query_weights(query))

    def search(self, query: str, k: int, mask: np.ndarray | None = None, *,
               prf: PRFParams | None = None, texts: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """Top ``k`` rows (best first; ties: lower row) and scores; with ``prf``, after RM3 expansion.

        Args:
            query: Query text.
            k: Rows returned.
            mask: Rows kept (filters apply before ranking, also to the feedback documents).
            prf: RM3 settings, or None for plain BM25.
            texts: ``rows -> [(title, abstract)]`` for the feedback documents (needed with ``prf``).
        """
        w = self.query_weights(query)
        s = self.weighted_scores(w)
        if prf is not None and w:
            fb = rank_scores(s, prf.fb_docs, mask)
            if len(fb):
                w = rm3_weights(w, [self.tokenize.document(t, a) for t, a in texts(fb)], s[fb], self.term_id, prf)
                s = self.weighted_scores(w)
        rows = rank_scores(s, k, mask)
        return rows, s[rows]


def _write_generation(folder: Path, g: int, params: LexicalParams, vocab: _Vocab,
                      segments: list[tuple[str, int, int, dict[str, np.ndarray] | None]], old_df: list[Any],
                      doclen: np.ndarray) -> str:
    """Write generation ``g``'s files (new segment, terms, df, lengths), then its state file."""
    n_terms = vocab.n_terms
    df = np.zeros(n_terms, dtype=np.int64)
    if old_df:
        df[: len(old_df[0])] = np.asarray(old_df[0])
    for name, _a, _b, seg in segments:
        if seg is None:
            continue
        d = folder / name
        d.mkdir(exist_ok=True)
        for key, arr in seg.items():
            _save(d / f"{key}.npy", arr)
        counts = np.diff(seg["indptr"])
        df[: len(counts)] += counts
    new = vocab.new
    hashes = np.fromiter((term_hash(t) for t in new), dtype=np.uint64, count=len(new))
    ids = np.arange(vocab.start, vocab.start + len(new), dtype=np.int64)
    if g > 1:
        prev = json.loads((folder / f"state-{g - 1}.json").read_text(encoding="utf-8"))["files"]
        hashes = np.concatenate([np.load(folder / prev["terms"]), hashes])
        ids = np.concatenate([np.load(folder / prev["termids"]).astype(np.int64), ids])
    order = np.argsort(hashes, kind="stable")
    files = {"terms": f"terms-{g}.npy", "termids": f"termids-{g}.npy", "df": f"df-{g}.npy", "doclen": f"doclen-{g}.npy"}
    _save(folder / files["terms"], hashes[order])
    _save(folder / files["termids"], ids[order].astype(np.int32))
    _save(folder / files["df"], df.astype(np.int32))
    _save(folder / files["doclen"], doclen.astype(np.float32))
    state = {"generation": g, "params": asdict(params), "n_docs": int(len(doclen)), "total_len": float(doclen.sum()),
             "n_terms": int(n_terms), "files": files,
             "segments": [{"name": name, "rows": [int(a), int(b)]} for name, a, b, _ in segments]}
    name = f"state-{g}.json"
    tmp = folder / (name + ".tmp")
    tmp.write_text(json.dumps(state, indent=1), encoding="utf-8")
    os.replace(tmp, folder / name)
    return name


def rm3_weights(query: dict[int, float], feedback: Sequence[list[str]], scores: np.ndarray, term_id: Any,
                prf: PRFParams) -> dict[int, float]:
    """RM3: mix the query's term distribution with the feedback documents' relevance model.

    Args:
        query: Term id -> weight of the original query.
        feedback: Token lists of the feedback documents (best first).
        scores: Their first-pass scores (``P(d|q)`` is proportional).
        term_id: ``term -> id or None``.
        prf: Settings.

    Returns:
        Term id -> weight, summing to 1.
    """
    s = np.asarray(scores, dtype=np.float64)
    pdq = s / s.sum() if s.sum() > 0 else np.full(len(s), 1.0 / max(len(s), 1))
    rel: dict[str, float] = {}
    for toks, p in zip(feedback, pdq):
        if not toks:
            continue
        inv = p / len(toks)
        for t, c in Counter(toks).items():
            rel[t] = rel.get(t, 0.0) + c * inv
    expansion: dict[int, float] = {}
    for t, v in sorted(rel.items(), key=lambda x: (-x[1], x[0])):
        j = term_id(t)
        if j is not None:
            expansion[j] = v
            if len(expansion) == prf.fb_terms:
                break
    zq: float = sum(query.values()) or 1.0
    ze: float = sum(expansion.values()) or 1.0
    out = {j: prf.orig_weight * w / zq for j, w in query.items()}
    for j, p_rel in expansion.items():
        out[j] = out.get(j, 0.0) + (1.0 - prf.orig_weight) * p_rel / ze
    return out
