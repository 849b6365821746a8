"""The validity study's planned work (``noveval eval --plan``): embedding the candidates, the LLM judges.

The rated papers are the run's (``--limit``); the prior candidates are those
:func:`~noveval.benchmarks.validate.pool.build_candidates` keeps (published before the newest
rated paper, with an abstract), sampled as the run samples them under ``--limit``
(:func:`~noveval.benchmarks.validate.prepare.candidate_cap`); the texts already in the
vector cache are counted as cached (no work). Each judged paper gets one request per judge
prompt and sample, built by the run's own
:func:`~noveval.benchmarks.validate.judges.build_request`; the prior works it will be shown
(its nearest candidates, known only after embedding) are stood in for by as many
candidates of the corpus, cut as the run cuts them.
"""

from __future__ import annotations

from noveval.benchmarks.validate.data import ASPECT, SCALE, load_rated_papers
from noveval.benchmarks.validate.judges import build_request
from noveval.benchmarks.validate.options import ValidateOptions
from noveval.plan import SystemPlan, cached_texts, request_call

__all__ = ["plan"]


def plan(options: ValidateOptions) -> SystemPlan:
    """The run's judge requests and embedding work, no model call."""
    import numpy as np

    from noveval.benchmarks.validate.contract import inputs
    from noveval.benchmarks.validate.prepare import candidate_cap
    from noveval.corpus import load_corpus, paper_text

    o = options
    reviews, corpus_path = inputs(o)
    papers = load_rated_papers(reviews, aspect=ASPECT, scale=SCALE)
    rated = [p for p in (papers[: o.limit] if o.limit else papers) if p.ratings]
    corpus = load_corpus(corpus_path)
    years = np.asarray(corpus.years)
    before = max((p.year for p in rated if p.year is not None), default=0)
    keep = (years > 0) & (years < before) & np.array([bool(a.strip()) for a in corpus.abstracts], dtype=bool)
    if o.field is not None:
        keep &= np.array([f.lower() == o.field.lower() for f in corpus.fields], dtype=bool)
    rows = np.flatnonzero(keep)
    cap, _ = candidate_cap(o, len(rated))
    if cap is not None and len(rows) > cap:
        rows = np.sort(np.random.default_rng(o.seed).choice(rows, size=cap, replace=False))
    texts = [paper_text(corpus.titles[i], corpus.abstracts[i]) for i in rows]
    texts += [paper_text(p.title, p.abstract) for p in rated]
    works = [{"title": corpus.titles[i], "abstract": corpus.abstracts[i], "year": int(years[i])}
             for i in rows[: o.related_works]]
    judged = rated[: o.judge_limit] if o.judge_limit else rated
    gen = o.generation()
    calls = [request_call(build_request(j, p.title, p.abstract, works, max_abstract_chars=o.max_abstract_chars,
                                        max_tokens=o.max_tokens, seed=o.seed, temperature=o.temperature), gen, "judge")
             for p in judged for j in o.judge_prompt for _ in range(max(1, o.samples))]
    notes = ["the judges' prior works stood in for by corpus candidates (the nearest are known after embedding)"]
    if o.metric:
        notes.append(f"not estimated: the corpus metrics' CPU time ({', '.join(o.metric)}; no model call)")
    return SystemPlan("validate", items=len(rated), calls=calls, embed_texts=len(texts),
                      embed_cached=cached_texts(o.embedder, texts), embedder=o.embedder,
                      local_models=[f"{o.embedder} (MiniLM: candidates and papers)"], notes=notes)
