"""The axiomatic benchmark's Python entry points of the benchmark contract (:mod:`noveval.benchmarks`).

``run(model, out, *, data=None, options=None)`` runs (or resumes) the benchmark of
Liu & Zhai (2026, §5-6.1, Table 2) as ``noveval run axioms`` does: ``model`` writes the
Ax2 paraphrases (``"none"`` skips Ax2), ``data`` is the corpus (None: the shipped
synthetic sample corpus with its two tasks and scaled-down pool rules).
``score(run)`` rebuilds the pass-rate table, ``scores.json``, ``table.md`` and the
heatmap from ``per_item.jsonl`` alone (no model call, no metric recomputed).

:func:`build_config` is the one place the options become an
:class:`~noveval.benchmarks.axioms.run.AxiomsConfig`; the CLI uses it too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from noveval.benchmarks._contract import as_options

__all__ = ["AxiomsOptions", "build_config", "metric_names", "run", "score", "combined_table"]


class AxiomsOptions(BaseModel):
    """Options of an axioms run (the ``noveval run axioms`` flags of the same names).

    Attributes:
        fulltext: Full texts with reference lists (Ax5/6); None: Ax5/6 not applicable.
            Ignored for the shipped sample, which brings its own.
        tasks: Restrict to these task names (default: all tasks of the corpus' task set).
        metrics: Metric names (Yin, RND, SemNovel, FastTextLOF; any case). Default: all four.
        embedder: Embedding model spec (``local``: the bundled all-MiniLM-L6-v2).
        n_focal: Focal papers per task (paper: 100; the sample has 6 per task at most).
        ax2_limit: Paraphrase only the first N focal papers per task.
        semnovel_mode: ``exact`` (refit t-SNE per pool variant) or ``approx``.
        fasttext_mode: ``exact`` (retrain per pool content) or ``approx``.
        fasttext_variant: ``reference`` (Jeon et al.'s code) or ``normalized``.
        semnovel_metric: t-SNE input metric, ``cosine`` (reference code) or ``euclidean``.
        seeds: SemNovel t-SNE seeds (``seed``, ``seed + 1``, ...).
        ax3_position: ``append`` (§5.2) or ``prepend`` Ax3 fragments.
        ax56_rule: ``ours`` (>= 5 references found in the pool) or ``paper`` (any found).
        rnd_p, rnd_q: RND's P and Q (None: 100 and 50; 20 and 5 on the sample).
        jobs: Processes for t-SNE / fastText fits.
        seed: Sampling, example selection and the first t-SNE seed.
        progress: Show progress.
    """

    model_config = ConfigDict(extra="forbid")

    fulltext: str | None = None
    tasks: list[str] | None = None
    metrics: list[str] | None = None
    embedder: str = "local"
    n_focal: int = Field(100, ge=1)
    ax2_limit: int | None = Field(None, ge=1)
    semnovel_mode: Literal["exact", "approx"] = "exact"
    fasttext_mode: Literal["exact", "approx"] = "exact"
    fasttext_variant: Literal["reference", "normalized"] = "reference"
    semnovel_metric: Literal["cosine", "euclidean"] = "cosine"
    seeds: int = Field(3, ge=1)
    ax3_position: Literal["append", "prepend"] = "append"
    ax56_rule: Literal["ours", "paper"] = "ours"
    rnd_p: int | None = Field(None, ge=1)
    rnd_q: int | None = Field(None, ge=1)
    jobs: int = Field(2, ge=1)
    seed: int = 0
    progress: bool = True


def metric_names(names: Sequence[str] | None) -> list[str]:
    """Canonical metric names (case-insensitive match; None: all four, in table order).

    Raises:
        InputError: an unknown metric (field ``--metric``).
    """
    from noveval.benchmarks.axioms.run import METRIC_ORDER
    from noveval.io import canonical_names

    return canonical_names(names or METRIC_ORDER, METRIC_ORDER)


def build_config(corpus: str | Path, fulltext: str | Path | None, opts: AxiomsOptions, *,
                 paraphrase_model: str | None, sample: bool = False) -> Any:
    """The :class:`~noveval.benchmarks.axioms.run.AxiomsConfig` of a corpus and options.

    ``sample`` selects the shipped sample's tasks and its scaled-down rules (pools of 20-40
    papers instead of 100-500); otherwise the six default tasks and the paper's rules.
    A ``fulltext`` that does not exist is left out (Ax5/6 then never apply).

    Raises:
        InputError: an unknown task (field ``--task``) or metric (``--metric``).
    """
    from noveval.benchmarks.axioms.pools import AX56_RULES, DEFAULT_TASKS, SAMPLE_TASKS, PoolRules
    from noveval.benchmarks.axioms.run import AxiomsConfig
    from noveval.errors import InputError

    if sample:
        specs = list(SAMPLE_TASKS)
        rules = PoolRules(min_refs=20, min_cited=5, ax7_min_pool=40, ax8_min_newer=10, slice_size=20)
        min_base, p, q, bucket = 20, 20, 5, 20_000
    else:
        specs, rules, min_base, p, q, bucket = list(DEFAULT_TASKS), PoolRules(), 100, 100, 50, 2_000_000
    if opts.tasks:
        unknown = set(opts.tasks) - {t.name for t in specs}
        if unknown:
            raise InputError(None, None, "--task", f"unknown task(s): {', '.join(sorted(unknown))}")
        specs = [t for t in specs if t.name in opts.tasks]
    return AxiomsConfig(
        corpus=str(corpus), fulltext=str(fulltext) if fulltext is not None and Path(fulltext).exists() else None,
        tasks=specs, n_focal=opts.n_focal, seed=opts.seed, min_base=min_base,
        rules=replace(rules, min_cited=AX56_RULES[opts.ax56_rule]), metrics=metric_names(opts.metrics),
        embedder=opts.embedder, paraphrase_model=paraphrase_model, ax2_limit=opts.ax2_limit,
        semnovel_mode=opts.semnovel_mode, fasttext_mode=opts.fasttext_mode, n_jobs=opts.jobs,
        rnd_p=opts.rnd_p or p, rnd_q=opts.rnd_q or q, ft_bucket=bucket, ax3_position=opts.ax3_position,
        fasttext_variant=opts.fasttext_variant, semnovel_metric=opts.semnovel_metric, semnovel_seeds=opts.seeds)


def run(model: str | Any, out: str | Path, *, data: str | Path | None = None,
        options: AxiomsOptions | dict[str, Any] | None = None) -> Path:
    """Run (or resume) the axiomatic benchmark into ``out``; finished tasks are not redone.

    Args:
        model: Chat model spec or client that writes the Ax2 paraphrases; ``"none"`` or
            None skips Ax2.
        out: Run folder (``config.json``, ``per_item.jsonl``, ``scores.json``,
            ``table.md``, ``heatmap.png``).
        data: Corpus JSONL(.gz) of papers (id, title, abstract, year, field); None: the
            shipped synthetic sample.
        options: :class:`AxiomsOptions` or a dict of its fields.

    Returns:
        The run folder.

    Raises:
        InputError: a bad option, an unknown task or metric, a bad corpus file (nothing
            is written then).
    """
    from noveval.benchmarks.axioms.pools import sample_paths
    from noveval.benchmarks.axioms.run import run_benchmark

    opts = as_options(AxiomsOptions, options)
    fulltext: Path | None
    if data is None:
        corpus, fulltext = sample_paths()
    else:
        corpus, fulltext = Path(data), Path(opts.fulltext) if opts.fulltext else None
    spec = None if model is None or model == "none" else (model if isinstance(model, str) else model.model_id)
    cfg = build_config(corpus, fulltext, opts, paraphrase_model=spec, sample=data is None)
    paraphraser = None
    if spec is not None and not isinstance(model, str):
        from noveval.benchmarks.axioms.paraphrase import paraphrase_many

        def paraphraser(papers: list[tuple[str, str]]) -> list[tuple[str, str] | None]:
            return paraphrase_many(papers, model=model, seed=cfg.seed,
                                   progress="paraphrase" if opts.progress else None)

    run_benchmark(cfg, out, paraphraser=paraphraser, progress=opts.progress)
    return Path(out)


def score(run: str | Path) -> dict[str, Any]:
    """Rebuild an axioms run's table, ``scores.json``, ``table.md`` and heatmap from ``per_item.jsonl``.

    The pass rates are recomputed from the saved check decisions; the timings, task
    statistics and recorded outcome (``complete``, ``calls``, ``cost``) of the run's last
    ``scores.json`` are kept. Works on a partial run (the
    table then covers the focal papers done so far).

    Args:
        run: The run folder.

    Returns:
        The ``scores.json`` dict (also written).

    Raises:
        InputError: not an axioms run folder (no ``config.json`` / ``per_item.jsonl``).
    """
    from noveval.benchmarks.axioms.run import write_results
    from noveval.io import complete_rows, read_json

    folder = Path(run)
    conf = _axioms_config(folder)
    rows = complete_rows((folder / "per_item.jsonl").read_text(encoding="utf-8"))  # a torn last line is skipped
    old = read_json(folder / "scores.json") if (folder / "scores.json").is_file() else {}
    old_extra: dict[str, Any] = old["extra"] if isinstance(old, dict) and isinstance(old.get("extra"), dict) else {}
    return write_results(folder, rows, conf["metrics"], model=conf.get("paraphrase_model"),
                         embedder=conf.get("embedder"), timings=old_extra.get("timings_s") or {},
                         task_stats=old_extra.get("task_stats") or {},
                         outcome={k: old[k] for k in ("complete", "calls", "cost") if isinstance(old, dict) and k in old})


_PER_RUN_KEYS = {"tasks", "metrics", "n_jobs"}
"""Config keys runs may differ in and still form one benchmark (which tasks, which
metrics, how many processes)."""

_METRIC_KEYS = {
    "RND": {"rnd_p", "rnd_q"},
    "SemNovel": {"semnovel_mode", "semnovel_metric", "semnovel_seeds"},
    "FastTextLOF": {"fasttext_mode", "fasttext_variant", "ft_bucket"},
}
"""Config keys that change only one metric's scores: they must agree only when that
metric is in the table."""


def _axioms_config(folder: Path) -> dict[str, Any]:
    from noveval.errors import InputError
    from noveval.io import read_json

    if not (folder / "config.json").is_file():
        raise InputError(folder / "config.json", None, None, "not a run folder (no config.json)")
    cfg = read_json(folder / "config.json")
    conf = cfg.get("config") if isinstance(cfg, dict) else None
    if not isinstance(conf, dict) or cfg.get("benchmark") != "axioms":
        raise InputError(folder / "config.json", None, "benchmark", "not an axioms run folder")
    if not (folder / "per_item.jsonl").is_file():
        raise InputError(folder / "per_item.jsonl", None, None, "no focal paper finished yet: nothing to score")
    return conf


def combined_table(runs: Sequence[str | Path], *, metrics: Sequence[str] | None = None) -> dict[str, Any]:
    """Table 2 over the focal papers of several axioms runs of one benchmark.

    The default benchmark can be split over run folders (``--task`` per folder, run side
    by side); this puts them back together: the pass rates of
    :func:`~noveval.benchmarks.axioms.run.table` over the union of their ``per_item.jsonl``
    rows (a torn last line is skipped), so a metric scored with several seeds gets
    mean ± SD over seeds. The runs must agree on every setting that changes the
    table's metrics (focal papers per task, seed, pool rules, embedder, paraphrase model
    and prompt; RND's P/Q, SemNovel's and FastTextLOF's settings only when that metric is
    in the table); they may differ in tasks, metrics and ``--jobs``.

    Args:
        runs: One or more axioms run folders.
        metrics: Metrics to tabulate (any case); default: those every run scored.

    Returns:
        ``{"table": ..., "metrics": [...], "runs": [{"path", "tasks", "items"}], "items": n}``
        where ``table`` is :func:`~noveval.benchmarks.axioms.run.table`'s dict (pass
        rates in %, 0-100, higher is better).

    Raises:
        InputError: no run; a folder given twice or not an axioms run; a metric some run did not
            score; runs whose settings differ (names the key and both values); a focal
            paper in two runs (names the file, line and ``id``).
    """
    from noveval.benchmarks.axioms.run import METRIC_ORDER, table
    from noveval.errors import InputError
    from noveval.io import complete_rows

    if not runs:
        raise InputError(None, None, None, "give at least one axioms run folder")
    folders = [Path(r) for r in runs]
    resolved = [f.resolve() for f in folders]
    for i, f in enumerate(folders):
        if resolved[i] in resolved[:i]:
            raise InputError(f, None, None, "given twice: give each run folder once")
    confs = [_axioms_config(f) for f in folders]
    common = [m for m in METRIC_ORDER if all(m in c.get("metrics", []) for c in confs)]
    chosen = metric_names(list(metrics)) if metrics else common
    for m in chosen:
        for f, c in zip(folders, confs, strict=True):
            if m not in c.get("metrics", []):
                raise InputError(f / "config.json", None, "metrics", f"{m} was not scored in this run "
                                 f"(it has {', '.join(c.get('metrics', [])) or 'none'})")
    if not chosen:
        raise InputError(None, None, "--metric", "the runs have no metric in common")
    ignored = set(_PER_RUN_KEYS).union(*(keys for m, keys in _METRIC_KEYS.items() if m not in chosen))
    first = confs[0]
    for f, c in zip(folders[1:], confs[1:], strict=True):
        for key in sorted((set(first) | set(c)) - ignored):
            if first.get(key) != c.get(key):
                raise InputError(f / "config.json", None, f"config.{key}", f"{c.get(key)!r} here but "
                                 f"{first.get(key)!r} in {folders[0]}: not one benchmark")
    rows: list[dict] = []
    seen: dict[str, tuple[Path, int]] = {}
    summary = []
    for f in folders:
        path = f / "per_item.jsonl"
        got = []
        for line, text in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
            for r in complete_rows(text):  # a torn or blank line gives none
                if r["id"] in seen:
                    other, other_line = seen[r["id"]]
                    raise InputError(path, line, "id", f"focal paper {r['id']!r} is also in {other}:{other_line}")
                seen[r["id"]] = (path, line)
                got.append(r)
        rows.extend(got)
        summary.append({"path": str(f), "tasks": sorted({r["task"] for r in got}), "items": len(got)})
    return {"table": table(rows, chosen), "metrics": chosen, "runs": summary, "items": len(rows)}
