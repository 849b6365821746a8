"""``noveval axioms run``: the benchmark end to end (Liu & Zhai 2026, §5-6.1, Table 2).

Per task: build the row space and focal papers, the Ax2 paraphrases and Ax3 extended
neighbours (new texts), embed every text once, score every metric on every variant,
decide the nine checks, append one ``per_item.jsonl`` row per focal paper. A task whose
focal papers are all in ``per_item.jsonl`` is skipped on resume. Then the table
(pass rates per metric × axiom × task, averaged by field and overall) goes to
``scores.json`` and a heatmap to ``heatmap.png``.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from noveval.benchmarks.axioms import BENCHMARK, engine
from noveval.benchmarks.axioms.axioms import AXIOMS, decide, seed_agreement
from noveval.benchmarks.axioms.options import AX2_MAX_TOKENS, AX3_MAX_TOKENS, AxiomsOptions
from noveval.benchmarks.axioms.paraphrase import prompt_hash
from noveval.benchmarks.axioms.plots import heatmap
from noveval.benchmarks.axioms.pools import (
    DEFAULT_TASKS,
    SAMPLE_TASKS,
    FocalItem,
    PoolRules,
    References,
    TaskData,
    TaskSpec,
    add_row,
    build_task,
    cited_split,
    distant_pool,
    load_references,
    newest_slice,
    oldest_slice,
    replace_row,
    select_focals,
)
from noveval.corpus import Corpus, load_corpus
from noveval.io import write_json, write_text
from noveval.models.calls import collecting
from noveval.models.embed import (
    embedder_departure,
    longer_embedder,
    recorded_embedder,
    resolved_embedder,
)
from noveval.models.types import EmbedderLike, EmbedderProtocol, as_embedder
from noveval.novelty import RND, FastTextLOF, SemNovel, Yin
from noveval.novelty.fitcache import default_fit_cache
from noveval.options import paper_embedder
from noveval.progress import track
from noveval.runs import RunDir

log = logging.getLogger("noveval")

_SENT = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\[])")


AX3_UNSEEN_WARN = 0.1
"""Share of invisible Ax3 edits above which a run warns (and its table says so)."""

MAX_FULLTEXT = 20
"""At most this many focal papers per task are drawn from the papers with a full text (Ax5/6)."""
FULLTEXT_SHARE = 0.2
"""... and at most ``ceil(FULLTEXT_SHARE * n_focal)`` of them (see ``select_focals``)."""


@dataclass(frozen=True, kw_only=True)
class AxiomsConfig:
    """Everything that determines a run's results (stored in ``config.json``).

    Derived from :class:`~noveval.benchmarks.axioms.options.AxiomsOptions` in one place,
    :func:`noveval.benchmarks.axioms.contract.build_config` (the defaults are the options');
    the field names are the ``config.json`` keys of every run so far (existing run folders
    resume).

    Attributes:
        corpus: Corpus file.
        fulltext: Full-text file with reference lists (None: Ax5/6 never apply).
        tasks: The tasks, in run order.
        n_focal: Focal papers per task (``options.focal``).
        seed: Focal sampling, paraphrase requests, fastText, first t-SNE seed.
        min_base: Least base-pool size of a focal paper.
        max_fulltext: At most this many focal papers from the full-text papers.
        fulltext_share: ... and at most ``ceil(fulltext_share * n_focal)``.
        rules: Pool rules (Ax5-8 applicability, slice sizes).
        metrics: Metric names, canonical.
        embedder: Embedding model spec.
        paraphrase_model: Chat model of the Ax2 paraphrases (None: Ax2 skipped).
        ax2_limit: Paraphrase only the first N focal papers per task.
        ax2_max_tokens: Answer tokens of each paraphrase request (``options.ax2_max_tokens``;
            absent from ``config.json`` at the default, so earlier runs resume).
        semnovel_mode: ``exact`` or ``approx`` (``options.semnovel``).
        fasttext_mode: ``exact`` or ``approx`` (``options.fasttext``).
        n_jobs: Processes for t-SNE / fastText fits (``options.jobs``).
        rnd_p: RND neighbours P (Wang et al. 2025: 100).
        rnd_q: RND density neighbours Q (Wang et al. 2025: 50).
        ft_bucket: fastText hashing buckets.
        fasttext_variant: ``reference`` (Jeon et al.'s code) or ``normalized`` (noveval <= issue 14).
        semnovel_metric: t-SNE input metric of SemNovel: ``cosine`` or ``euclidean``.
        semnovel_seeds: SemNovel is scored with t-SNE seeds ``seed, seed + 1, ...`` (this
            many); pass rates are mean ± SD over them, and ``scores``/``checks`` of
            ``per_item.jsonl`` hold the first (``options.seeds``).
        ax3_position: Where Ax3 fragments go in the neighbour's abstract: ``append``
            (§5.2) or ``prepend`` (embedders with a short context cut appended text).
    """

    corpus: str
    fulltext: str | None
    tasks: list[TaskSpec]
    n_focal: int
    seed: int
    min_base: int
    max_fulltext: int = MAX_FULLTEXT
    fulltext_share: float = FULLTEXT_SHARE
    rules: PoolRules
    metrics: list[str]
    embedder: str
    paraphrase_model: str | None
    ax2_limit: int | None
    semnovel_mode: str
    fasttext_mode: str
    n_jobs: int
    rnd_p: int
    rnd_q: int
    ft_bucket: int
    fasttext_variant: str
    semnovel_metric: str
    semnovel_seeds: int
    ax3_position: str
    ax2_max_tokens: int = AX2_MAX_TOKENS

    def to_json(self) -> dict:
        """The ``config`` of ``config.json`` (``ax2_max_tokens`` only when not the default)."""
        d = asdict(self)
        d["tasks"] = [asdict(t) for t in self.tasks]
        if self.ax2_max_tokens == AX2_MAX_TOKENS:
            del d["ax2_max_tokens"]
        return d


def sentences(text: str) -> list[str]:
    """Abstract sentences (regex split after ., ! or ? before an upper-case start)."""
    return [s.strip() for s in _SENT.split(text.strip()) if s.strip()]


def metric_seeds(cfg: AxiomsConfig, name: str) -> list[int]:
    """Seeds a metric is scored with: ``semnovel_seeds`` of them for SemNovel, else ``[seed]``."""
    n = max(1, cfg.semnovel_seeds) if name == "SemNovel" else 1
    return [cfg.seed + i for i in range(n)]


def metric_objects(cfg: AxiomsConfig, seed: int | None = None) -> dict:
    """Metric instances for a config (``seed``: the seed of the seeded metrics; default ``cfg.seed``)."""
    s = cfg.seed if seed is None else seed
    objs = {"Yin": Yin(), "RND": RND(p=cfg.rnd_p, q=cfg.rnd_q),
            "SemNovel": SemNovel(seed=s, metric=cfg.semnovel_metric),
            "FastTextLOF": FastTextLOF(variant=cfg.fasttext_variant, bucket=cfg.ft_bucket, seed=cfg.seed)}
    return {m: objs[m] for m in cfg.metrics}


def tfidf_nearest(task: TaskData, items: Sequence[FocalItem]) -> dict[str, int]:
    """Row of the TF-IDF-nearest base-pool abstract for each focal paper (§5.2, Ax3)."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    n = len(task.rows)
    vec = TfidfVectorizer(sublinear_tf=True).fit(task.abstracts[:n])
    mat = vec.transform(task.abstracts[:n])
    out = {}
    for it in items:
        sims = (mat[it.base] @ mat[it.local].T).toarray().ravel()
        out[it.item_id] = int(it.base[int(np.argmax(sims))])
    return out


def build_variants(task: TaskData, items: Sequence[FocalItem], rules: PoolRules,
                   paraphrases: dict[str, tuple[str, str] | None], *,
                   ax3_position: str = "append") -> tuple[dict, dict]:
    """All pool variants of every focal paper, adding the new texts to the row space.

    Returns:
        ``(variants, extra_rows)``: item id -> variant -> rows, and item id -> new-text rows
        (``paraphrase``, ``cov1/2/4``) plus the replaced neighbour (``nn``).
    """
    nearest = tfidf_nearest(task, items)
    variants: dict[str, dict[str, np.ndarray]] = {}
    extra: dict[str, dict[str, int]] = {}
    for it in items:
        vs: dict[str, np.ndarray] = {"base": it.base, "copy": add_row(it.base, it.local)}
        ex: dict[str, int] = {}
        para = paraphrases.get(it.item_id)
        if para is not None:
            ex["paraphrase"] = task.add_text(f"para::{it.item_id}", para[0], para[1], it.year)
            vs["paraphrase"] = add_row(it.base, ex["paraphrase"])
        sents = sentences(task.abstracts[it.local])
        if len(sents) >= 4:
            nn = nearest[it.item_id]
            ex["nn"] = nn
            for k in (1, 2, 4):
                frag = " ".join(sents[:k])
                nab = task.abstracts[nn]
                ab = f"{frag} {nab.lstrip()}" if ax3_position == "prepend" else f"{nab.rstrip()} {frag}"
                ex[f"cov{k}"] = task.add_text(f"cov{k}:{ax3_position}::{it.item_id}", task.titles[nn], ab, int(task.years[nn]))
                vs[f"cov{k}"] = replace_row(it.base, nn, ex[f"cov{k}"])
        d = distant_pool(task, it.year)
        if d is not None:
            vs["distant"] = d
        cs = cited_split(it, rules)
        if cs is not None:
            vs["minus_cited"], vs["cited_only"] = cs
        o = oldest_slice(task, it.base, rules)
        if o is not None:
            vs["oldest"] = o
        nw = newest_slice(task, it.year, rules)
        if nw is not None:
            vs["newest"] = nw
        variants[it.item_id] = vs
        extra[it.item_id] = ex
    return variants, extra


def ax3_unseen(emb: np.ndarray, extra: dict[str, dict[str, int]]) -> dict[str, int]:
    """How many Ax3 edits the embedder cannot see (edited text embeds exactly as the original).

    An embedder truncates long inputs (the bundled MiniLM at 256 word pieces), so
    sentences appended to a long neighbour abstract may change nothing; such an edit
    makes ``Ax3<base`` fail for every metric. Returns ``{"edits", "unseen"}`` over the
    ``cov1``/``cov2``/``cov4`` texts.
    """
    edits = unseen = 0
    for ex in extra.values():
        if "nn" not in ex:
            continue
        for k in ("cov1", "cov2", "cov4"):
            edits += 1
            unseen += bool(np.array_equal(emb[ex[k]], emb[ex["nn"]]))
    return {"edits": edits, "unseen": unseen}


def score_task(cfg: AxiomsConfig, task: TaskData, items: Sequence[FocalItem], variants: dict,
               extra: dict, emb: np.ndarray, *, fit_cache=None,
               timings: dict | None = None) -> dict[str, dict[int, dict]]:
    """Scores of every configured metric: metric -> seed -> item id -> variant -> score.

    Every metric has one seed (``cfg.seed``) except SemNovel (:func:`metric_seeds`).
    ``fit_cache``: dict or :class:`~noveval.novelty.fitcache.FitCache` of exact
    t-SNE fits and fastText/LOF scores (default: none kept)."""
    out: dict[str, dict[int, dict]] = {}
    sim = engine.LazySim(emb)  # shared by RND and Yin
    for name in cfg.metrics:
        seeds = metric_seeds(cfg, name)
        for seed in seeds:
            m = metric_objects(cfg, seed)[name]
            t0 = time.perf_counter()
            tag = task.spec.name if len(seeds) == 1 else f"{task.spec.name}, seed {seed}"
            if name in ("RND", "Yin"):
                res = engine.score_embedding_fast(m, emb, items, variants, sim=sim)
            elif name == "SemNovel":
                if cfg.semnovel_mode == "approx":
                    res = engine.score_semnovel_approx(m, emb, items, variants, extra)
                else:
                    res = engine.score_semnovel_exact(
                        m, emb, items, variants, n_jobs=cfg.n_jobs, cache=fit_cache,
                        progress=f"SemNovel t-SNE fits ({tag})")
            elif name == "FastTextLOF":
                res = engine.score_fasttext(
                    m, task, items, variants, n_jobs=cfg.n_jobs, approx=cfg.fasttext_mode == "approx",
                    extra_rows=extra, cache=fit_cache,
                    progress=f"FastTextLOF models ({tag})")
            out.setdefault(name, {})[seed] = res
            if timings is not None:
                timings[name] = timings.get(name, 0.0) + time.perf_counter() - t0
    return out


def _clean(scores: dict[str, float]) -> dict[str, float | None]:
    return {v: (None if s != s else s) for v, s in scores.items()}


def item_rows(task: TaskData, items: Sequence[FocalItem], scores: dict[str, dict[int, dict]]) -> list[dict]:
    """``per_item.jsonl`` rows: variant scores and check decisions per metric.

    ``scores``/``checks`` hold each metric's first seed; a metric scored with several seeds
    also has ``by_seed[metric][str(seed)] = {"scores", "checks"}`` for every seed.
    """
    rows = []
    for it in items:
        sc, ch, by_seed = {}, {}, {}
        for m, per_seed in scores.items():
            seeds = list(per_seed)
            runs = {s: _clean(per_seed[s][it.item_id]) for s in seeds}
            sc[m] = runs[seeds[0]]
            ch[m] = decide(sc[m], title_only=(m == "FastTextLOF"))
            if len(seeds) > 1:
                by_seed[m] = {str(s): {"scores": runs[s], "checks": decide(runs[s], title_only=(m == "FastTextLOF"))}
                              for s in seeds}
        row = {"id": it.item_id, "task": it.task, "field": it.field, "paper_id": it.paper_id,
               "year": it.year, "n_base": len(it.base), "n_refs": it.n_refs, "scores": sc, "checks": ch}
        if by_seed:
            row["by_seed"] = by_seed
        rows.append(row)
    return rows


# ------------------------------------------------------------------ table


def _rate(vals: list[bool | None]) -> tuple[float | None, int]:
    xs = [v for v in vals if v is not None]
    return (100.0 * sum(xs) / len(xs) if xs else None, len(xs))


def _mean(xs: Sequence[float | None]) -> float | None:
    ys = [x for x in xs if x is not None]
    return float(np.mean(ys)) if ys else None


def _sd(xs: Sequence[float | None]) -> float | None:
    ys = [x for x in xs if x is not None]
    return float(np.std(ys, ddof=1)) if len(ys) > 1 else None


def _seeds(rows: Sequence[dict], m: str) -> list[str | None]:
    """A metric's seeds in ``by_seed`` (first-seen order), or ``[None]`` for the plain checks."""
    seen: dict[str, None] = {}
    for r in rows:
        for s in (r.get("by_seed") or {}).get(m, {}):
            seen.setdefault(s, None)
    return list(seen) or [None]


def _checks(r: dict, m: str, seed: str | None) -> dict:
    if seed is None:
        return r["checks"].get(m, {})
    return (r.get("by_seed") or {}).get(m, {}).get(seed, {}).get("checks", {})


def table(rows: Sequence[dict], metrics: Sequence[str]) -> dict:
    """Table 2: pass rates (%) per metric × axiom for each task, field (mean over its tasks)
    and overall (mean over tasks); ``Avg`` = mean over the applicable checks; ``n`` counts.

    A metric scored with several seeds (``by_seed`` in the rows) gets the whole table once
    per seed; its cells are the mean over seeds, ``sd`` holds the sample standard deviation
    over seeds (same shape: ``sd["by_field"][field][metric]``, ``sd["overall"][metric]``),
    ``per_seed[metric][seed]`` the overall row of each seed, ``seeds[metric]`` the seeds and
    ``seed_agreement[metric]`` :func:`~noveval.benchmarks.axioms.axioms.seed_agreement` over
    all rows (axiom -> (share of checks every seed decides alike, checks)).
    """
    tasks: dict[str, str] = {}
    for r in rows:
        tasks.setdefault(r["task"], r["field"])
    fields = sorted(set(tasks.values()))
    groups = {**{f: [t for t in tasks if tasks[t] == f] for f in fields}, "__all__": list(tasks)}
    by_task: dict = {t: {} for t in tasks}
    agg: dict = {g: {} for g in groups}
    sd: dict = {g: {} for g in groups}
    per_seed: dict = {}
    seeds_of: dict = {}
    stable: dict = {}
    for m in metrics:
        seeds = _seeds(rows, m)
        task_cells: dict[str, list[dict]] = {t: [] for t in tasks}
        n_of: dict[str, dict] = {}
        group_cells: dict[str, list[dict]] = {g: [] for g in groups}
        for seed in seeds:
            for t in tasks:
                tr = [r for r in rows if r["task"] == t]
                cell, n = {}, {}
                for a in AXIOMS:
                    cell[a], n[a] = _rate([_checks(r, m, seed).get(a) for r in tr])
                cell["Avg"] = _mean([cell[a] for a in AXIOMS])
                task_cells[t].append(cell)
                n_of.setdefault(t, n)
            for g, ts in groups.items():
                c = {a: _mean([task_cells[t][-1][a] for t in ts]) for a in AXIOMS}
                c["Avg"] = _mean([c[a] for a in AXIOMS])
                group_cells[g].append(c)
        cols = [*AXIOMS, "Avg"]
        for t in tasks:
            by_task[t][m] = {"rates": {c: _mean([x[c] for x in task_cells[t]]) for c in cols}, "n": n_of[t]}
            if seeds != [None]:
                by_task[t][m]["sd"] = {c: _sd([x[c] for x in task_cells[t]]) for c in cols}
        for g in groups:
            agg[g][m] = {c: _mean([x[c] for x in group_cells[g]]) for c in cols}
            if seeds != [None]:
                sd[g][m] = {c: _sd([x[c] for x in group_cells[g]]) for c in cols}
        if seeds != [None]:
            seeds_of[m] = seeds
            per_seed[m] = dict(zip([str(s) for s in seeds], group_cells["__all__"], strict=True))
            stable[m] = seed_agreement([{str(s): _checks(r, m, s) for s in seeds} for r in rows])
    out = {
        "columns": [*AXIOMS, "Avg"],
        "by_task": by_task,
        "by_field": {f: agg[f] for f in fields},
        "overall": agg["__all__"],
        "tasks": tasks,
    }
    if seeds_of:
        out["seeds"] = seeds_of
        out["sd"] = {"by_field": {f: sd[f] for f in fields}, "overall": sd["__all__"]}
        out["per_seed"] = per_seed
        out["seed_agreement"] = stable
    return out


def format_table(tab: dict, metrics: Sequence[str]) -> str:
    """Markdown rendering of the field and overall rows (Table 2's shape); a metric scored
    with several seeds shows ``mean ± SD`` over its seeds."""
    cols = tab["columns"]
    lines = ["| Field | Metric | " + " | ".join(cols) + " |", "|" + ("-" * 3 + "|") * (len(cols) + 2)]
    sd = tab.get("sd") or {}
    blocks = [(f, res, (sd.get("by_field") or {}).get(f, {})) for f, res in tab["by_field"].items()]
    blocks.append(("All", tab["overall"], sd.get("overall") or {}))
    for f, res, sds in blocks:
        for m in metrics:
            vals = []
            for c in cols:
                v = res[m][c]
                if v is None:
                    vals.append("–")
                    continue
                d = 1 if c == "Avg" else 0
                e = (sds.get(m) or {}).get(c)
                vals.append(f"{v:.{d}f}" + ("" if e is None else f" ± {e:.{d}f}"))
            lines.append(f"| {f} | {m} | " + " | ".join(vals) + " |")
    if tab.get("seeds"):
        lines.append("")
        for m, ss in tab["seeds"].items():
            line = f"{m}: mean ± SD over seeds {', '.join(str(s) for s in ss)}"
            agree = (tab.get("seed_agreement") or {}).get(m)
            if agree and agree["all"][0] is not None:
                per = ", ".join(f"{a} {100 * agree[a][0]:.0f}%" for a in AXIOMS if agree[a][0] is not None)
                line += (f"; every seed decides alike on {100 * agree['all'][0]:.1f}% of "
                         f"{agree['all'][1]} checks ({per})")
            lines.append(line)
    return "\n".join(lines)


# ------------------------------------------------------------------ orchestration


Paraphraser = Callable[[list[tuple[str, str]]], list[tuple[str, str] | None]]
"""``[(title, abstract)] -> [(title, abstract) | None]`` (None: no usable paraphrase)."""


def run_axioms(cfg: AxiomsConfig, out_dir: str | Path, *, corpus: Corpus | None = None,
                  refs: References | None = None, embedder: EmbedderLike | None = None, paraphraser: Paraphraser | None = None,
                  overwrite: bool = False) -> dict:
    """Run (or resume) the benchmark into ``out_dir``; returns the ``scores.json`` dict ({} in a batch's collect pass).

    Args:
        cfg: The run's configuration (:func:`~noveval.benchmarks.axioms.contract.build_config`).
        out_dir: Run directory (``config.json``, ``per_item.jsonl``, ``scores.json``,
            ``heatmap.png``, ``table.md``).
        corpus, refs: Preloaded data (tests); loaded from ``cfg`` otherwise.
        embedder: Object with ``encode(texts, batch_size=..., progress=...)``; default
            ``get_embedder(cfg.embedder)``.
        paraphraser: Writes the Ax2 paraphrases of ``cfg.paraphrase_model``
            (:func:`~noveval.benchmarks.axioms.contract.paraphraser_of`); None: Ax2 skipped.
        overwrite: Discard a run with other settings in ``out_dir``.

    Raises:
        InputError: a bad corpus or full-text file, or a run with other settings in
            ``out_dir`` (nothing is written then).
    """
    conf = cfg.to_json()
    emb = as_embedder(cfg.embedder if embedder is None else embedder)
    long_emb = ax3_embedder(cfg, emb)
    conf.update(embedder_records(emb, long_emb))
    if cfg.paraphrase_model:  # the Ax2 prompt in effect, checked before any call or output

        conf["prompts"] = {"paraphrase": prompt_hash()}
    corpus = corpus or load_corpus(cfg.corpus)  # inputs first: a bad file leaves no run folder behind
    refs = refs if refs is not None else (load_references(cfg.fulltext, corpus) if cfg.fulltext else References())
    rd = RunDir.create(out_dir, {"benchmark": "axioms", "config": conf}, overwrite=overwrite)  # resumes a run with this config
    done = rd.done("per_item")  # finished focal papers (a torn last line is skipped, as in every run)
    fit_cache = default_fit_cache() if {"SemNovel", "FastTextLOF"} & set(cfg.metrics) else None
    timings: dict[str, float] = {}
    stats: dict[str, dict] = {}
    with track(len(cfg.tasks), "axioms: tasks") as tracker:
        for spec in cfg.tasks:
            t0 = time.perf_counter()
            task, items = _task(cfg, spec, corpus, refs)
            if not (items and all(it.item_id in done for it in items)):
                para = _paraphrases(cfg, task, items, paraphraser)
                if not collecting():  # a batch's collect pass only gathers the paraphrase requests
                    rows, stats[spec.name] = _score(cfg, task, items, para, (emb, long_emb), fit_cache, timings, t0)
                    for row in rows:
                        if row["id"] not in done:
                            rd.append("per_item", row)
                            done[row["id"]] = row
            tracker.advance()
    if collecting():
        return {}
    order = [it for spec in cfg.tasks for it in done.values() if it["task"] == spec.name]
    rd.write("per_item", order)
    return write_results(rd.path, order, cfg.metrics, model=cfg.paraphrase_model, embedder=conf,
                         timings={k: round(v, 2) for k, v in timings.items()}, task_stats=stats)


def ax3_embedder(cfg: AxiomsConfig, emb: EmbedderProtocol) -> EmbedderProtocol | None:
    """The embedder of the Ax3 neighbours and their edited copies, when it is not ``emb`` itself.

    Under ``append`` (§5.2) with a local sentence-transformers embedder reading fewer than
    :data:`~noveval.benchmarks.axioms.options.AX3_MAX_TOKENS` tokens: the same model and
    precision at that many, so the fragments appended to a long abstract count (the paper's
    BGE-M3 reads 8,192 tokens). None otherwise (``prepend``, a remote server, a long model).
    """
    return longer_embedder(emb, AX3_MAX_TOKENS) if cfg.ax3_position == "append" else None


def embedder_records(emb: EmbedderProtocol, long_emb: EmbedderProtocol | None) -> dict[str, Any]:
    """What the run records of its embedders (``config.json`` and ``scores.json``; issue 35).

    ``embedder_resolved``: model id, precision and tokens read
    (:func:`~noveval.models.embed.resolved_embedder`); ``ax3_embedder_resolved`` when the Ax3
    texts use another (:func:`ax3_embedder`); ``embedder_note`` when the embedder departs from
    the one :class:`~noveval.benchmarks.axioms.options.AxiomsOptions` declares for the paper.
    """
    res = resolved_embedder(emb)
    out: dict[str, Any] = {"embedder_resolved": res}
    if long_emb is not None:
        out["ax3_embedder_resolved"] = resolved_embedder(long_emb)
    note = embedder_departure(res, paper_embedder(AxiomsOptions))
    if note:
        log.warning("axioms: %s", note)
        out["embedder_note"] = note
    return out


def _task(cfg: AxiomsConfig, spec: TaskSpec, corpus: Corpus, refs: References) -> tuple[TaskData, list[FocalItem]]:
    """A task's row space and focal papers (its distant field from the run's tasks, else the known task sets)."""
    distant = next(t for t in (*cfg.tasks, *DEFAULT_TASKS, *SAMPLE_TASKS) if t.name == spec.distant)
    task = build_task(corpus, spec, distant, refs, seed=cfg.seed)
    items = select_focals(corpus, task, refs, n=cfg.n_focal, seed=cfg.seed, min_base=cfg.min_base,
                          max_fulltext=cfg.max_fulltext, fulltext_share=cfg.fulltext_share)
    return task, items


def _paraphrases(cfg: AxiomsConfig, task: TaskData, items: Sequence[FocalItem],
                 paraphraser: Paraphraser | None) -> dict[str, tuple[str, str] | None]:
    """The Ax2 paraphrases of the first ``cfg.ax2_limit`` focal papers (None: not usable)."""
    if paraphraser is None:
        return {}
    todo = items if cfg.ax2_limit is None else items[: cfg.ax2_limit]
    res = paraphraser([(task.titles[it.local], task.abstracts[it.local]) for it in todo])
    return {it.item_id: r for it, r in zip(todo, res, strict=True)}


def _score(cfg: AxiomsConfig, task: TaskData, items: Sequence[FocalItem], para: dict[str, tuple[str, str] | None],
           embedders: tuple[EmbedderProtocol, EmbedderProtocol | None], fit_cache: Any, timings: dict[str, float],
           t0: float) -> tuple[list[dict], dict]:
    """One task's ``per_item`` rows and statistics: variants, embeddings, every metric, the checks.

    ``embedders``: the run's embedder and the Ax3 one (:func:`ax3_embedder`; None: the run's).
    ``t0``: when the task began (``prep_s`` counts from there to the embeddings).
    """
    name = task.spec.name
    variants, extra = build_variants(task, items, cfg.rules, para, ax3_position=cfg.ax3_position)
    emb = np.asarray(embedders[0].encode(task.texts, batch_size=64, progress=f"embed {name}"))
    if embedders[1] is not None:
        ax3_rows = sorted({ex[k] for ex in extra.values() if "nn" in ex for k in ("nn", "cov1", "cov2", "cov4")})
        emb = emb.copy()
        emb[ax3_rows] = np.asarray(embedders[1].encode([task.texts[r] for r in ax3_rows], batch_size=64,
                                                       progress=f"embed {name}: Ax3 neighbours, longer window"))
    t_prep = time.perf_counter() - t0
    scores = score_task(cfg, task, items, variants, extra, emb, fit_cache=fit_cache, timings=timings)
    hidden = ax3_unseen(emb, extra)
    stats = {"items": len(items), "rows": len(task.texts), "prep_s": round(t_prep, 2), "ax3_unseen": hidden,
             "paraphrases": {"asked": len(para), "usable": sum(v is not None for v in para.values())}}
    log.info("axioms %s: %d of %d Ax3 edits invisible to the embedder", name, hidden["unseen"], hidden["edits"])
    if hidden["edits"] and hidden["unseen"] / hidden["edits"] > AX3_UNSEEN_WARN:
        log.warning("axioms %s: %d of %d Ax3 edits leave the neighbour's embedding unchanged (text past the "
                    "embedder's input limit): Ax3 fails for them whatever the metric; embed with more tokens "
                    "(-e local:bf16@512)", name, hidden["unseen"], hidden["edits"])
    log.info("axioms %s: %d focal papers, %d texts, prep %.1fs, cumulative metric time %s",
             name, len(items), len(task.texts), t_prep, timings)
    return item_rows(task, items, scores), stats


def write_results(out: Path, rows: Sequence[dict], metrics: Sequence[str], *, model: str | None,
                  embedder: dict | str | None, timings: dict, task_stats: dict, outcome: dict | None = None) -> dict:
    """Write a run's ``scores.json``, ``table.md`` and ``heatmap.png`` from its ``per_item`` rows.

    The headline metric of each scorer is its overall ``Avg`` pass rate (%, 0-100, higher
    is better: the share of applicable axiom checks it passes, §6.1). ``embedder``: the
    run's config (its ``embedder`` spec and the :func:`embedder_records`), or a bare spec
    (older runs). ``outcome``: the run's recorded ``complete``/``calls``/``cost`` keys, kept
    when re-scoring (a run whose paraphrase calls failed stays marked incomplete).

    Returns:
        The ``scores.json`` dict.
    """
    conf = embedder if isinstance(embedder, dict) else {"embedder": embedder}
    tab = table(rows, metrics)
    recorded = {k: conf[k] for k in ("embedder_resolved", "ax3_embedder_resolved", "embedder_note", "ax3_position")
                if conf.get(k)}
    notes = run_notes(conf, task_stats)
    scores_json = BENCHMARK.make_scores(
        model, {m: {"mean": tab["overall"][m]["Avg"], "n": len(rows)} for m in metrics},
        extra={"table": tab, "timings_s": timings, "task_stats": task_stats, **recorded,
               "ax3_unseen": ax3_total(task_stats), **({"models_note": " ".join(notes)} if notes else {})},
        embedder=recorded_embedder(conf), **(outcome or {}))
    write_json(Path(out) / "scores.json", scores_json)
    write_text(Path(out) / "table.md", format_table(tab, metrics) + "".join(f"\n\n{n}" for n in notes) + "\n")
    heatmap(tab, metrics, Path(out) / "heatmap.png")
    return scores_json


def ax3_total(task_stats: dict) -> dict[str, int]:
    """Ax3 edits and invisible ones (:func:`ax3_unseen`) summed over the tasks' statistics."""
    tot = {"edits": 0, "unseen": 0}
    for st in task_stats.values():
        for k in tot:
            tot[k] += int(((st or {}).get("ax3_unseen") or {}).get(k) or 0)
    return tot


def run_notes(conf: dict, task_stats: dict) -> list[str]:
    """What a reader of the table must know: the embedders, invisible Ax3 edits, deviations."""
    res = conf.get("embedder_resolved") or {}
    ax3 = conf.get("ax3_embedder_resolved") or {}
    notes = [f"Embedder: {res.get('id') or conf.get('embedder')}"
             + (f" ({res.get('precision')}, {res.get('max_tokens')} tokens)" if res.get("max_tokens") else "")
             + (f"; Ax3 neighbours and their edited copies: {ax3['id']} ({ax3.get('max_tokens')} tokens)"
                if ax3 else "") + " (paper: BGE-M3, 8,192 tokens)."]
    tot = ax3_total(task_stats)
    if tot["edits"]:
        share = tot["unseen"] / tot["edits"]
        notes.append(f"Ax3: {tot['unseen']} of {tot['edits']} edits ({100 * share:.1f}%) invisible to the embedder"
                     + (" - their Ax3 checks fail whatever the metric." if share > AX3_UNSEEN_WARN else "."))
    if conf.get("ax3_position") == "prepend":
        notes.append("Ax3 fragments prepended to the neighbour's abstract: a deviation from the paper (§5.2 appends).")
    if conf.get("embedder_note"):
        notes.append(f"NOTE: {conf['embedder_note']}.")
    return notes
