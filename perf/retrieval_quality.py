"""Retrieval quality of the corpus index on citation gold nobody here wrote.

For each NeurIPS 2025 full text in ``<data>/fulltext``, the references that match corpus
papers published before 2025 are its known prior work (matching rule:
:mod:`noveval.benchmarks.retrieval.gold`). The query is the paper's title + abstract,
searched in an index of the pre-2025 corpus. Reported: recall@10/@50/@100 and nDCG@10 with
95% bootstrap CIs over papers with gold, and paired differences against the first mode,
for the lexical variants below, dense, hybrid (RRF k=60) and hybrid + listwise rerank by
the bundled model.

Lexical modes (CPU only; each index variant is its own folder under ``--out``):

* ``bm25`` — noveval's default lexical index: unigrams + bigrams, title counted twice,
  square-root query term counts (:class:`noveval.index.lexical.LexicalParams`);
* ``bm25-plain`` — the ``bm25s`` baseline (unigrams, title once, linear query counts);
* ``bm25+prf``, ``bm25-plain+prf`` — the same with RM3 pseudo-relevance feedback
  (``--prf-docs``, ``--prf-terms``, ``--prf-weight``);
* ``bm25-unigrams``, ``bm25-title1``, ``bm25-lineartf`` — the default minus one of its
  three changes (ablations).

    python perf/retrieval_quality.py --out /work/scratch/index/rq          # everything
    python perf/retrieval_quality.py --out DIR --modes bm25-plain,bm25,bm25+prf   # lexical only (minutes)
    python perf/retrieval_quality.py --out DIR --universe embedded          # only papers with vectors
    python perf/retrieval_quality.py --out DIR --calibrate-check            # check's thresholds (minutes)
    python perf/retrieval_quality.py --out DIR --modes bm25,bm25+facets,hybrid,hybrid-candidates,hybrid+facets

**Two halves** (issue 36): every table is printed three times — all queries, the *tuning*
half (even positions in the gold list) and the *reporting* half (odd positions). Settings
chosen by the script (the facet weights below) are chosen on the tuning half only; the
reporting half is the honest estimate.

* ``bm25+facets`` — reciprocal rank fusion, weighted, of BM25 rankings for the query facets
  an input already has: the whole text, the title, the claimed contributions
  (:func:`noveval.check.parse.find_contributions` on the abstract) and the authors'
  keywords; optionally times a field prior (the share of each field among the top 20
  hits). Weights and RRF k are chosen by grid search on the tuning half.
* ``hybrid-candidates`` — what ``noveval check --index`` does (issue 36): RRF of the BM25
  top ``--candidates`` and the same candidates re-ranked by dense cosine similarity.
* ``hybrid+facets`` — ``hybrid`` fused with the dense rankings of the title and
  contribution facets (weights chosen on the tuning half).

``--calibrate-check`` sets ``noveval check``'s thresholds from the same gold (the embedder's
vectors of the gold papers, the queries and their contributions; about 5k embeddings):
for every paper, the cosine similarity of its closest *cited* prior work, and for every
contribution (:func:`noveval.check.parse.find_contributions` on the full text) the
similarity of its closest cited work and the best sentence overlap of that work's abstract
(IDF over the paper's BM25 top 300, as ``check`` computes it over its pool). Off-topic
ideas written here (``OFF_TOPIC``) are checked against their BM25 top 100 re-ranked by
similarity, as ``check --index`` ranks its candidates. Writes ``calibration.json``.

``--universe all`` (default) needs every pre-2025 paper's vector (from the vector cache,
or embedded with ``--embed-missing``; hours on 2 CPU cores). ``--universe embedded``
restricts every mode to the papers that have a vector plus all gold papers (embedded
first), a smaller but identical candidate set for all modes. Rankings are saved per mode
in ``--out`` and reused, so an interrupted run resumes.
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S")
log = logging.getLogger("retrieval_quality")


def _pre_corpus(corpus: Path, out: Path, before_year: int) -> Path:
    dst = out / f"corpus-before-{before_year}.jsonl"
    if dst.exists():
        return dst
    n = 0
    with gzip.open(corpus, "rt", encoding="utf-8") as fh, open(dst.with_suffix(".tmp"), "w", encoding="utf-8") as o:
        for line in fh:
            r = json.loads(line)
            y = r.get("year")
            if isinstance(y, int) and y < before_year:
                o.write(line if line.endswith("\n") else line + "\n")
                n += 1
    dst.with_suffix(".tmp").rename(dst)
    log.info("pre-%d corpus: %d papers", before_year, n)
    return dst


OFF_TOPIC = [
    "Coral reefs bleach when sea temperatures rise. We measure symbiotic algae density in 40 reefs over ten years "
    "and propose a satellite index of bleaching risk from sea surface temperature anomalies.",
    "Patent examiners decide slowly. We study the legal reasoning of appeal boards in European patent law and "
    "propose a taxonomy of grounds for refusal drawn from 2,000 published decisions.",
    "Sourdough bread rises unevenly in cold kitchens. We vary hydration, starter age and proofing temperature and "
    "propose a recipe schedule that keeps crumb density constant.",
    "Medieval trade routes shaped the spread of plague. We digitise merchant letters from Venetian archives and map "
    "shipping contacts between ports in the fourteenth century.",
    "Soil erosion on hill farms lowers yields. We test terracing and cover crops on 30 plots in Nepal and model "
    "sediment loss with rainfall intensity.",
    "Children learn to read faster with phonics. We run a classroom trial of a phonics curriculum in 60 primary "
    "schools and measure reading fluency after one year.",
    "Volcanic ash grounds aircraft. We sample ash plumes with drones and relate particle size to distance from the "
    "vent to improve dispersion forecasts.",
    "Orchestras tune differently across countries. We record concert A pitch in 200 performances and relate it to "
    "hall temperature and repertoire period.",
    "Bee colonies collapse under pesticide exposure. We track hive weight and forager return rates near treated "
    "fields across two seasons.",
    "Tax compliance rises with simpler forms. We redesign a municipal tax form and measure filing errors in a "
    "randomised mailing to 10,000 households.",
]
"""Off-topic ideas (our own writing) for the abstention check: the corpus is computer science."""


FACETS = ("title", "contrib", "keywords")
"""Query facets besides the whole text (title + abstract) that an input already has."""


def query_facets(with_gold, fulltext: Path) -> dict[str, list[str]]:  # type: ignore[no-untyped-def]
    """Per query, the facet texts: its title, its claim sentences, its authors' keywords ("" when none)."""
    import ast

    from noveval.check.parse import find_contributions

    kw: dict[str, list[str]] = {}
    with gzip.open(fulltext, "rt", encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            k = r.get("keywords") or []
            if isinstance(k, str):
                try:
                    k = ast.literal_eval(k)
                except (ValueError, SyntaxError):
                    k = [k]
            kw[str(r.get("id"))] = [str(x) for x in k] if isinstance(k, list) else []
    return {"title": [g.title for g in with_gold],
            "contrib": [" ".join(c.text for c in find_contributions([], g.abstract)) for g in with_gold],
            "keywords": ["; ".join(kw.get(g.id) or []) for g in with_gold]}


def weighted_rrf(rankings: dict[str, list[list[int]]], weights: dict[str, float], k: int,
                 depth: int) -> tuple[list[list[int]], list[list[float]]]:
    """Per query, ``sum_f w_f / (k + rank_f)`` over the rankings with a weight, best first (ties: lower row).

    Returns ``(rows, fused scores)`` per query.
    """
    n = len(next(iter(rankings.values())))
    rows_out, scores_out = [], []
    for i in range(n):
        score: dict[int, float] = {}
        for name, w in weights.items():
            if w:
                for r, row in enumerate(rankings[name][i][:depth], 1):
                    score[row] = score.get(row, 0.0) + w / (k + r)
        best = sorted(score.items(), key=lambda x: (-x[1], x[0]))[:depth]
        rows_out.append([row for row, _ in best])
        scores_out.append([v for _, v in best])
    return rows_out, scores_out


def facet_grid(rankings: dict[str, list[list[int]]], base: dict[str, float], extra: dict[str, tuple[float, ...]],
               fields: np.ndarray, depth: int) -> dict[str, list[list[int]]]:
    """Every weighted fusion of ``base`` (fixed weights) with ``extra`` facets (weights from the tuples),
    RRF k in (10, 60), times a field prior with alpha in (0, 0.1, 0.2); keyed by a readable setting."""
    import itertools

    out: dict[str, list[list[int]]] = {}
    names = list(extra)
    for ws in itertools.product(*(extra[n] for n in names)):
        for k in (10, 60):
            rows, scores = weighted_rrf(rankings, {**base, **dict(zip(names, ws))}, k, depth)
            for alpha in (0.0, 0.1, 0.2):
                key = ", ".join(f"{n} {w:g}" for n, w in zip(names, ws)) + f"; k {k}; field prior {alpha:g}"
                out[key] = rows if alpha == 0 else field_prior(rows, scores, fields, alpha)
    return out


def field_prior(runs: list[list[int]], scores: list[list[float]], fields: np.ndarray, alpha: float,
                top: int = 20) -> list[list[int]]:
    """Re-rank by ``score * share^alpha``, share = (hits of the row's field among the top ``top`` + 1) / (top + 5)."""
    out = []
    for rows, sc in zip(runs, scores):
        r = np.asarray(rows, dtype=np.int64)
        if not len(r):
            out.append([])
            continue
        f = fields[r]
        head = f[:top]
        share = np.asarray([(np.sum(head == v) + 1) / (len(head) + 5) for v in f])
        s2 = np.asarray(sc) * share ** alpha
        out.append(r[np.lexsort((r, -s2))].tolist())
    return out


def halves(n: int) -> tuple[list[int], list[int]]:
    """(tuning half: even positions, reporting half: odd positions) of ``n`` queries."""
    return list(range(0, n, 2)), list(range(1, n, 2))


def tune(candidates: dict[str, list[list[int]]], gold, ix: list[int]) -> tuple[str, float]:  # type: ignore[no-untyped-def]
    """The candidate with the best mean recall@10 on the queries ``ix`` (first wins ties)."""
    from noveval.benchmarks.retrieval.evaluate import recall_at_k

    best = max(candidates, key=lambda c: (float(np.mean([recall_at_k(candidates[c][i], gold[i], 10) for i in ix])),
                                          -list(candidates).index(c)))
    return best, float(np.mean([recall_at_k(candidates[best][i], gold[i], 10) for i in ix]))


def calibrate_check(idx, with_gold, fulltext: Path, emb, out: Path) -> dict:  # type: ignore[no-untyped-def]
    """Distributions that set ``noveval check``'s thresholds (see the module docstring)."""
    import gzip

    from noveval.check.evidence import idf_from_texts, overlap, term_set
    from noveval.check.inputs import from_markdown
    from noveval.check.parse import sentences
    from noveval.index import fill_vectors
    from noveval.index.search import row_vectors

    md = {}
    with gzip.open(fulltext, "rt", encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            md[str(r.get("id"))] = str(r.get("fulltext_markdown") or "")
    rows = np.unique(np.asarray([r for g in with_gold for rs in g.gold for r in rs], dtype=np.int64))
    fill_vectors(idx, emb, rows, progress="calibration: gold vectors")
    vec = idx.vectors()
    qv = np.asarray(emb.encode([f"{g.title}\n\n{g.abstract}" for g in with_gold], progress="calibration: queries"))
    best_cited, c_sim, c_ov, n_contrib = [], [], [], []
    for g, q in zip(with_gold, qv):
        gr = np.asarray(sorted({rs[0] for rs in g.gold}), dtype=np.int64)
        gv = np.asarray(vec[gr])
        best_cited.append(float((gv @ q).max()))
        try:
            inp = from_markdown(md.get(g.id, ""), f"{g.id}.md") if md.get(g.id) else None
        except Exception:  # a full text the reader cannot parse: use the abstract alone
            inp = None
        contribs = [c.text for c in inp.contributions] if inp is not None else sentences(g.abstract)[-2:]
        n_contrib.append(len(contribs))
        if not contribs:
            continue
        cv = np.asarray(emb.encode(contribs))
        pool = idx.bm25_search(f"{g.title}\n\n{g.abstract}", 300)[0]
        idf = idf_from_texts([p["abstract"] for p in idx.papers(pool)])
        papers = idx.papers(gr)
        for c, v in zip(contribs, cv):
            j = int(np.argmax(gv @ v))
            c_sim.append(float(gv[j] @ v))
            claim = term_set(c)
            c_ov.append(max([overlap(claim, term_set(s), idf)[0] for s in sentences(papers[j]["abstract"])] or [0.0]))
    off = []
    for t in OFF_TOPIC:
        cand = idx.bm25_search(t, 100)[0]
        v, _m, _n = row_vectors(idx, emb, cand)
        q = np.asarray(emb.encode([t]))[0]
        s = v @ q
        off.append({"text": t[:60], "best_similarity": float(s.max()) if len(s) else None,
                    "closest": idx.paper(int(cand[int(np.argmax(s))]))["title"] if len(s) else None})
    pct = (5, 10, 25, 50, 75, 90, 95)

    def dist(x: list[float]) -> dict:
        a = np.asarray(x, dtype=np.float64)
        return {"n": int(len(a)), **{f"p{p}": round(float(np.percentile(a, p)), 4) for p in pct}}

    offs = [o["best_similarity"] for o in off if o["best_similarity"] is not None]
    sweep = {f"{t:.2f}": {"gold_papers_below": round(float(np.mean(np.asarray(best_cited) < t)), 4),
                          "off_topic_below": round(float(np.mean(np.asarray(offs) < t)), 4)}
             for t in (0.40, 0.45, 0.47, 0.50, 0.55, 0.60)}
    from noveval.check.evidence import EvidenceThresholds

    th = EvidenceThresholds()
    cs, co = np.asarray(c_sim), np.asarray(c_ov)
    anticipated = (cs >= th.anticipated_similarity) & (co >= th.anticipated_overlap)
    partly = ~anticipated & (cs >= th.partly_similarity) & (co >= th.quote_overlap)
    verdicts = {"anticipated": round(float(anticipated.mean()), 4), "partly anticipated": round(float(partly.mean()), 4),
                "new": round(float(1 - anticipated.mean() - partly.mean()), 4)}
    res = {"embedder": emb.model_id, "papers": len(with_gold), "abstention_sweep": sweep,
           "verdicts_against_cited_work_at_default_thresholds": verdicts,
           "best_cited_similarity": dist(best_cited),
           "contribution_best_cited_similarity": dist(c_sim), "contribution_best_cited_overlap": dist(c_ov),
           "contributions_per_paper": dist([float(x) for x in n_contrib]), "off_topic": off}
    (out / "calibration.json").write_text(json.dumps(res, indent=2))
    print(json.dumps(res, indent=2))
    return res


def print_tables(summary: dict, diffs: dict, first: str, n_rr: int | None) -> None:
    """The results as Markdown tables: means with CIs, then paired differences against ``first``."""
    keys = ("recall@10", "recall@50", "recall@100", "ndcg@10")
    print("| retrieval | recall@10 | recall@50 | recall@100 | nDCG@10 |")
    print("|---|---|---|---|---|")
    for mode, row in summary.items():
        if mode != "on_reranked_subset":
            print(f"| {mode} | " + " | ".join(f"{row[k]['mean']:.3f} [{row[k]['ci_low']:.3f}, {row[k]['ci_high']:.3f}]"
                                           for k in keys) + " |")
    for mode, row in diffs.items():
        pairs = row.items() if mode == "rerank_vs_hybrid_on_subset" else [(mode, row)]
        for m2, r2 in pairs:
            label = f"{m2} - hybrid (first {n_rr} queries)" if mode == "rerank_vs_hybrid_on_subset" else \
                f"{m2} - {first} (paired)"
            print(f"| {label} | " + " | ".join(f"{r2[k]['mean']:+.3f} [{r2[k]['ci_low']:+.3f}, {r2[k]['ci_high']:+.3f}]"
                                              for k in keys) + " |")


def facet_modes_runs(args, idx, emb, mask, with_gold, fulltext, queries, qvecs, gold, results, extras,  # type: ignore[no-untyped-def]
                     cached, wanted) -> dict:
    """``bm25+facets``, ``hybrid-candidates`` and ``hybrid+facets`` (see the module docstring); the facet
    weights are chosen on the tuning half, recorded in ``extras``."""
    from noveval.index import rrf
    from noveval.index.dense import exact_search

    fields = np.load(idx.path / "fields.npy")
    tune_ix, _ = halves(len(queries))
    text = query_facets(with_gold, fulltext)
    runs: dict[str, list[list[int]]] = {"bm25": results["bm25"]}
    for f in FACETS:
        runs[f"bm25:{f}"], _ = cached(f"bm25-facet-{f}", lambda f=f: (
            [[int(r) for r in idx.bm25_search(q, args.depth, mask)[0]] if q.strip() else [] for q in text[f]], {}))
    out: dict[str, list[list[int]]] = {}
    if "bm25+facets" in wanted:
        grid = facet_grid(runs, {"bm25": 1.0}, {f"bm25:{f}": (0.0, 0.25, 0.5) for f in FACETS}, fields, args.depth)
        best, score = tune(grid, gold, tune_ix)
        out["bm25+facets"], extras["bm25+facets"] = grid[best], {"chosen_on_tuning_half": best, "tuning_recall@10": score,
                                                                 "configurations": len(grid)}
    if "hybrid-candidates" in wanted or "hybrid+facets" in wanted:
        vec = np.asarray(idx.vectors())

        def cand_runs():  # type: ignore[no-untyped-def]
            res = []
            for q, qv in zip(queries, qvecs):
                rows = idx.bm25_search(q, args.candidates, mask)[0]
                srt = np.sort(rows)
                dense = srt[np.lexsort((srt, -(vec[srt] @ qv)))]
                res.append([r for r, _ in rrf([list(map(int, rows)), list(map(int, dense))], k=args.rrf_k)][: args.depth])
            return res, {"candidates": args.candidates}
        out["hybrid-candidates"], extras["hybrid-candidates"] = cached(f"hybrid-candidates-{args.candidates}", cand_runs)
    if "hybrid+facets" in wanted:
        rows = None if mask.all() else np.flatnonzero(mask)
        for f in ("title", "contrib"):
            fv = np.asarray(emb.encode([t or " " for t in text[f]], progress=f"embedding {f} facets"), dtype=np.float32)
            runs[f"dense:{f}"], _ = cached(f"dense-facet-{f}", lambda fv=fv: (
                [[int(r) for r in exact_search(vec, v, args.depth, rows)[0]] for v in fv], {}))
        runs["dense"] = results["dense"]
        grid = facet_grid(runs, {"bm25": 1.0, "dense": 1.0},
                          {"dense:title": (0.0, 0.25, 0.5), "dense:contrib": (0.0, 0.25, 0.5),
                           "bm25:keywords": (0.0, 0.25, 0.5)}, fields, args.depth)
        best, score = tune(grid, gold, tune_ix)
        out["hybrid+facets"], extras["hybrid+facets"] = grid[best], {"chosen_on_tuning_half": best,
                                                                     "tuning_recall@10": score, "configurations": len(grid)}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    ap.add_argument("--out", type=Path, required=True, help="Work folder (index, rankings, results).")
    ap.add_argument("--before-year", type=int, default=2025)
    ap.add_argument("--modes", default="bm25,dense,hybrid,hybrid+rerank")
    ap.add_argument("--universe", choices=["all", "embedded"], default="all")
    ap.add_argument("--embed-missing", action="store_true", help="Embed every pre-2025 paper the cache lacks.")
    ap.add_argument("--freeze", action="store_true", help="Take no more vectors from the cache (keep the universe "
                    "of an earlier run, so its saved rankings are reused).")
    ap.add_argument("--embedder", default="local")
    ap.add_argument("--rerank-model", default="local")
    ap.add_argument("--rerank-depth", type=int, default=20)
    ap.add_argument("--rerank-limit", type=int, default=None, help="Rerank only the first N queries with gold.")
    ap.add_argument("--depth", type=int, default=100, help="Rows per ranking (and per RRF input).")
    ap.add_argument("--rrf-k", type=int, default=60)
    ap.add_argument("--candidates", type=int, default=300, help="hybrid-candidates: BM25 candidates the dense "
                    "ranking re-ranks (check --index: max(--candidates, --metric-pool) = 300).")
    ap.add_argument("--limit", type=int, default=None, help="First N full texts only.")
    ap.add_argument("--stem", action="store_true", help="BM25 with Snowball stemming (a separate index folder).")
    ap.add_argument("--prf-docs", type=int, default=10)
    ap.add_argument("--prf-terms", type=int, default=20)
    ap.add_argument("--prf-weight", type=float, default=0.5, help="Weight of the original query in RM3.")
    ap.add_argument("--calibrate-check", action="store_true", help="Only compute check's thresholds (calibration.json).")
    args = ap.parse_args(argv)

    from noveval.benchmarks.axioms.pools import paper_text
    from noveval.benchmarks.retrieval import citation_gold, paired_differences, summarize_runs
    from noveval.index import build_index, fill_vectors, open_index, rrf
    from noveval.index.dense import exact_search
    from noveval.index.lexical import LexicalParams, PRFParams
    from noveval.index.store import is_index
    from noveval.models.embed import get_embedder

    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    corpus = args.data_dir / "corpus" / "papers.jsonl.gz"
    fulltext = args.data_dir / "fulltext" / "neurips-2025-fulltext.jsonl.gz"
    if not corpus.exists() or not fulltext.exists():
        log.error("shared data not found under %s", args.data_dir)
        return 2
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    emb = get_embedder(args.embedder)
    pre = _pre_corpus(corpus, out, args.before_year)
    stem = "-stem" if args.stem else ""
    variants = {"": LexicalParams(stem=args.stem), "-plain": LexicalParams.plain(stem=args.stem),
                "-unigrams": replace(LexicalParams(stem=args.stem), bigrams=False),
                "-title1": replace(LexicalParams(stem=args.stem), title_weight=1)}
    timings: dict[str, float] = {}

    def lexical_index(variant: str):  # type: ignore[no-untyped-def]
        ipath = out / f"index{variant}{stem}"
        if not is_index(ipath):
            t0 = time.perf_counter()
            built = build_index(pre, ipath, embedder=emb if variant == "" else None, bm25=variants[variant],
                                log=log.info)
            timings[f"index{variant}_build_s"] = time.perf_counter() - t0
            timings.update({f"index{variant}_{k}_s": v for k, v in built.meta["build_s"].items()})
        return open_index(ipath)

    idx = lexical_index("")
    titles = [p["title"] for p in idx.iter_papers()]
    gold_papers = citation_gold(fulltext, titles, [True] * len(titles))
    if args.limit:
        gold_papers = gold_papers[: args.limit]
    with_gold = [g for g in gold_papers if g.gold]
    n_refs = [len(g.gold) for g in with_gold]
    log.info("gold: %d of %d papers have matched references (%.1f each on average, %d in all)",
             len(with_gold), len(gold_papers), float(np.mean(n_refs)) if n_refs else 0.0, sum(n_refs))
    if args.calibrate_check:
        calibrate_check(idx, with_gold, fulltext, emb, out)
        return 0
    queries = [paper_text(g.title, g.abstract) for g in with_gold]
    gold = [g.gold for g in with_gold]
    gold_rows = np.unique(np.asarray([r for g in gold for rows in g for r in rows], dtype=np.int64))

    need_dense = any(not m.startswith("bm25") for m in modes)
    if need_dense and not args.freeze:
        from noveval.index.build import fill_from_cache

        got = fill_from_cache(idx, emb)
        log.info("dense: %d more vectors from the cache; %d of %d filled", got, *idx.dense_coverage())
        if args.embed_missing:
            fill_vectors(idx, emb)
        elif args.universe == "embedded":
            fill_vectors(idx, emb, gold_rows, progress="embedding gold papers")
    mask = np.ones(idx.n, dtype=bool)
    if args.universe == "embedded":
        mask = idx.filled()
    filled, kept = idx.dense_coverage(mask)
    if need_dense and filled < kept:
        log.error("dense modes need every kept paper's vector: %d of %d filled (use --embed-missing or "
                  "--universe embedded)", filled, kept)
        return 3
    qvecs = np.asarray(emb.encode(queries, progress="embedding queries"), dtype=np.float32) if need_dense else None

    def cached(name: str, fn):  # type: ignore[no-untyped-def]
        f = out / f"rankings-{args.universe}-{name}{'-stem' if args.stem and name != 'dense' else ''}.json"
        if f.exists():
            saved = json.loads(f.read_text())
            if saved["n_queries"] == len(queries) and saved["kept"] == int(mask.sum()):
                return saved["rankings"], saved.get("extra", {})
        t = time.perf_counter()
        runs, extra = fn()
        extra["seconds"] = time.perf_counter() - t
        f.write_text(json.dumps({"n_queries": len(queries), "kept": int(mask.sum()), "rankings": runs, "extra": extra}))
        return runs, extra

    results: dict[str, list[list[int]]] = {}
    extras: dict[str, dict] = {}

    prf = PRFParams(args.prf_docs, args.prf_terms, args.prf_weight)

    def lexical_runs(mode: str):  # type: ignore[no-untyped-def]
        base = mode.removesuffix("+prf")
        variant = {"bm25": "", "bm25-lineartf": ""}.get(base, base.removeprefix("bm25"))
        ix = lexical_index(variant)
        if base == "bm25-lineartf":
            ix.bm25.params = replace(ix.bm25.params, query_tf=1.0)
        p = prf if mode.endswith("+prf") else None

        def go():  # type: ignore[no-untyped-def]
            runs = [[int(r) for r in ix.bm25_search(q, args.depth, mask, prf=p)[0]] for q in queries]
            return runs, {"params": vars(ix.bm25.params), "prf": vars(p) if p else None}
        return go

    def dense_runs():  # type: ignore[no-untyped-def]
        vec = np.asarray(idx.vectors())
        rows = None if mask.all() else np.flatnonzero(mask)
        return [[int(r) for r in exact_search(vec, qv, args.depth, rows)[0]] for qv in qvecs], {}  # type: ignore[union-attr]

    for m in modes:
        if m.startswith("bm25") and m != "bm25" and not m.endswith("+facets"):
            tag = f"-{args.prf_docs}-{args.prf_terms}-{args.prf_weight:g}" if m.endswith("+prf") else ""
            results[m], extras[m] = cached(m.replace("+", "-") + tag, lexical_runs(m))
    if "bm25" in modes or any(m.startswith("hybrid") or m.endswith("+facets") for m in modes):
        results["bm25"], extras["bm25"] = cached("bm25", lexical_runs("bm25"))
    if need_dense:
        results["dense"], extras["dense"] = cached("dense", dense_runs)
    if any(m.startswith("hybrid") for m in modes):
        results["hybrid"], extras["hybrid"] = cached("hybrid", lambda: (
            [[r for r, _ in rrf([b, d], k=args.rrf_k)][: args.depth] for b, d in zip(results["bm25"], results["dense"])], {}))
    facet_modes = [m for m in modes if m.endswith("+facets") or m == "hybrid-candidates"]
    if facet_modes:
        tuned = facet_modes_runs(args, idx, emb, mask, with_gold, fulltext, queries, qvecs, gold, results, extras,
                                 cached, facet_modes)
        results.update(tuned)
    if "hybrid+rerank" in modes:
        def rerank_runs():  # type: ignore[no-untyped-def]
            from noveval.index.rerank import rerank_many
            from noveval.index.search import Hit
            from noveval.models.client import get_client

            client = get_client(args.rerank_model)
            n = len(queries) if args.rerank_limit is None else min(args.rerank_limit, len(queries))
            hl = [[Hit(r, i, 0.0) for i, r in enumerate(run, 1)] for run in results["hybrid"][:n]]
            pl = [idx.papers(run[: args.rerank_depth]) for run in results["hybrid"][:n]]
            rr = rerank_many(client, queries[:n], hl, pl, depth=args.rerank_depth, progress="rerank")
            runs = [[h.row for h in x.hits] for x in rr] + results["hybrid"][n:]
            return runs, {"model": client.model_id, "depth": args.rerank_depth, "reranked": n,
                          "failed": sum(1 for x in rr if x.error), "errors": [x.error for x in rr if x.error][:5],
                          "mean_mentioned": float(np.mean([x.mentioned for x in rr])) if rr else 0.0}
        results["hybrid+rerank"], extras["hybrid+rerank"] = cached(f"rerank-{args.rerank_depth}", rerank_runs)
    show = {m: results[m] for m in modes if m in results}
    n_rr = extras.get("hybrid+rerank", {}).get("reranked")
    summary = summarize_runs(show, gold)
    diffs = paired_differences(show, gold, baseline=modes[0]) if len(show) > 1 else {}
    by_half = {}
    for half, ix in zip(("tuning half (even positions)", "reporting half (odd positions)"), halves(len(queries))):
        sub = {m: [r[i] for i in ix] for m, r in show.items()}
        sg = [gold[i] for i in ix]
        by_half[half] = {"metrics": summarize_runs(sub, sg),
                         "paired_vs_first": paired_differences(sub, sg, baseline=modes[0]) if len(sub) > 1 else {}}
    if n_rr is not None and n_rr < len(queries):  # compare rerank on the queries it saw
        sub = {m: results[m][:n_rr] for m in ("hybrid", "hybrid+rerank")}
        summary["on_reranked_subset"] = summarize_runs(sub, gold[:n_rr])
        diffs["rerank_vs_hybrid_on_subset"] = paired_differences(sub, gold[:n_rr], baseline="hybrid")
    report = {"universe": args.universe, "kept_papers": int(mask.sum()), "index_papers": idx.n,
              "papers_with_gold": len(with_gold), "full_texts": len(gold_papers),
              "mean_gold": float(np.mean(n_refs)) if n_refs else 0.0, "embedder": emb.model_id,
              "bm25": idx.meta["bm25"], "rrf_k": args.rrf_k, "depth": args.depth, "timings": timings,
              "extras": extras, "metrics": summary, "paired_vs_first": diffs, "halves": by_half}
    (out / f"results-{args.universe}{'-stem' if args.stem else ''}.json").write_text(json.dumps(report, indent=2))
    print(f"universe {args.universe}: {int(mask.sum())} papers; {len(with_gold)} of {len(gold_papers)} full texts "
          f"with gold ({report['mean_gold']:.1f} each)")
    print_tables(summary, diffs, modes[0], n_rr)
    for half, got in by_half.items():
        print(f"\n{half}: {len(halves(len(queries))[0 if half.startswith('tuning') else 1])} queries")
        print_tables(got["metrics"], got["paired_vs_first"], modes[0], None)
    for m in ("bm25+facets", "hybrid+facets"):
        if m in extras:
            print(f"{m}: chosen on the tuning half: {extras[m]['chosen_on_tuning_half']} "
                  f"(of {extras[m]['configurations']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
