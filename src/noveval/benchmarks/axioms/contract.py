"""The axiomatic benchmark's run and score (the functions its declaration names).

``run(model, out, options)`` runs (or resumes) the benchmark of Liu & Zhai (2026, §5-6.1,
Table 2): ``model`` writes the Ax2 paraphrases (``"none"`` or None skips Ax2), the corpus
is ``options.corpus`` (``noveval.run(..., data=...)`` fills it), else the data folder's, or
the shipped synthetic sample with ``options.sample``. ``score(run)`` rebuilds the pass-rate
table, ``scores.json``, ``table.md`` and the heatmap from ``per_item.jsonl`` alone (no
model call, no metric recomputed). :func:`combined_table` puts runs split over folders
back together.

:func:`build_config` is the one place the options become the engine's frozen
:class:`~noveval.benchmarks.axioms.runner.AxiomsConfig`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from noveval.benchmarks._contract import client_of
from noveval.benchmarks.axioms.options import METRIC_ORDER, AxiomsOptions
from noveval.benchmarks.axioms.paraphrase import paraphrase_many
from noveval.data.folders import data_folder
from noveval.errors import InputError
from noveval.hfdata import is_hf_source
from noveval.io import canonical_names, complete_rows, read_json
from noveval.models.types import ModelLike

__all__ = ["AxiomsOptions", "build_config", "combined_table", "input_paths", "metric_names", "run", "score"]


def metric_names(names: Sequence[str] | None, *, field: str = "metric") -> list[str]:
    """Canonical metric names (case-insensitive match; None: all four, in table order).

    Raises:
        InputError: an unknown metric (naming ``field``).
    """
    return canonical_names(names or METRIC_ORDER, METRIC_ORDER, option=field)


def _data_dir(o: AxiomsOptions) -> Path:
    """``o.data_dir`` (as given: run configs record the paths), else the first data folder that holds
    the corpus and the full texts (:func:`noveval.data.folders.data_folder`), else ``../shared/data``."""
    if o.data_dir is not None:
        return o.data_dir

    needs = [f for f, given in (("corpus/papers.jsonl.gz", o.corpus), ("fulltext/neurips-2025-fulltext.jsonl.gz",
                                                                       o.fulltext)) if given is None]
    return data_folder(needs) or Path("../shared/data")


def input_paths(o: AxiomsOptions) -> tuple[Path, Path]:
    """The corpus and full-text files of a run: the shipped sample's, or the options' (default: the data folder's).

    Raises:
        InputError: the corpus does not exist (field ``options.corpus``).
    """
    from noveval.benchmarks.axioms.pools import sample_paths

    if o.sample:
        return sample_paths()
    d = _data_dir(o)
    corpus = o.corpus or d / "corpus" / "papers.jsonl.gz"
    fulltext = o.fulltext or d / "fulltext" / "neurips-2025-fulltext.jsonl.gz"

    if not is_hf_source(corpus) and not corpus.exists():
        raise InputError(str(corpus), None, "options.corpus",
                         "corpus not found (give a corpus file, a data folder holding corpus/papers.jsonl.gz, "
                         "or use the shipped sample)")
    return corpus, fulltext


def build_config(o: AxiomsOptions, *, paraphrase_model: str | None) -> Any:
    """The engine's :class:`~noveval.benchmarks.axioms.runner.AxiomsConfig` of the options (the one place).

    ``o.sample`` selects the shipped sample's files, tasks and its scaled-down rules (pools
    of 20-40 papers instead of 100-500); otherwise the six default tasks and the paper's
    rules. A full-text file that does not exist is left out (Ax5/6 then never apply).

    Raises:
        InputError: the corpus is missing (``options.corpus``) or a task is unknown (``options.task``).
    """
    from noveval.benchmarks.axioms.pools import AX56_RULES, DEFAULT_TASKS, SAMPLE_TASKS, PoolRules
    from noveval.benchmarks.axioms.runner import AxiomsConfig

    corpus, fulltext = input_paths(o)
    if o.sample:
        specs = list(SAMPLE_TASKS)
        rules = PoolRules(min_refs=20, min_cited=5, ax7_min_pool=40, ax8_min_newer=10, slice_size=20)
        min_base, p, q, bucket = 20, 20, 5, 20_000
    else:
        specs, rules, min_base, p, q, bucket = list(DEFAULT_TASKS), PoolRules(), 100, 100, 50, 2_000_000
    if o.task:
        unknown = set(o.task) - {t.name for t in specs}
        if unknown:
            raise InputError(None, None, "options.task", f"unknown task(s): {', '.join(sorted(unknown))}; "
                             f"choose from {', '.join(t.name for t in specs)}")
        specs = [t for t in specs if t.name in o.task]
    return AxiomsConfig(
        corpus=str(corpus), fulltext=str(fulltext) if fulltext.exists() else None,
        tasks=specs[: o.limit] if o.limit else specs, n_focal=o.focal, seed=o.seed, min_base=min_base,
        rules=replace(rules, min_cited=AX56_RULES[o.ax56_rule]), metrics=metric_names(o.metric),
        embedder=o.embedder, paraphrase_model=paraphrase_model, ax2_limit=o.ax2_limit,
        semnovel_mode=o.semnovel, fasttext_mode=o.fasttext, n_jobs=o.jobs,
        rnd_p=o.rnd_p or p, rnd_q=o.rnd_q or q, ft_bucket=bucket, ax3_position=o.ax3_position,
        fasttext_variant=o.fasttext_variant, semnovel_metric=o.semnovel_metric, semnovel_seeds=o.seeds,
        ax2_max_tokens=o.ax2_max_tokens)


def paraphraser_of(model: ModelLike, o: AxiomsOptions) -> Callable[[list[tuple[str, str]]], list[tuple[str, str] | None]]:
    """The Ax2 paraphraser: one chat client (``model``: a spec or a client) built with the options' client settings."""
    client = client_of(model, **o.client_kwargs())

    def paraphrase(papers: list[tuple[str, str]]) -> list[tuple[str, str] | None]:
        return paraphrase_many(papers, model=client, max_tokens=o.ax2_max_tokens, seed=o.seed, progress="paraphrase")

    return paraphrase


def run(model: ModelLike | None, out: Path, options: AxiomsOptions) -> Path:
    """Run (or resume) the axiomatic benchmark into ``out``; finished tasks are not redone.

    Args:
        model: Chat model spec or client that writes the Ax2 paraphrases; ``"none"`` or
            None skips Ax2.
        out: Run folder (``config.json``, ``per_item.jsonl``, ``scores.json``,
            ``table.md``, ``heatmap.png``).
        options: The run's options.

    Returns:
        The run folder.

    Raises:
        InputError: a missing or bad corpus file, an unknown task, or a run with other
            settings in ``out`` (nothing is written then).
    """
    from noveval.benchmarks.axioms.runner import run_axioms

    spec = None if model is None or model == "none" else (model if isinstance(model, str) else model.model_id)
    cfg = build_config(options, paraphrase_model=spec)
    paraphraser = paraphraser_of(model, options) if spec is not None and model is not None else None
    run_axioms(cfg, out, paraphraser=paraphraser, overwrite=options.overwrite)
    return Path(out)


def score(run: str | Path, options: None = None) -> dict[str, Any]:
    """Rebuild an axioms run's table, ``scores.json``, ``table.md`` and heatmap from ``per_item.jsonl``.

    The pass rates are recomputed from the saved check decisions; the timings, task
    statistics and recorded outcome (``complete``, ``calls``, ``cost``) of the run's last
    ``scores.json`` are kept. Works on a partial run (the
    table then covers the focal papers done so far).

    Args:
        run: The run folder.
        options: None (scoring takes no options).

    Returns:
        The ``scores.json`` dict (also written).

    Raises:
        InputError: not an axioms run folder (no ``config.json`` / ``per_item.jsonl``).
    """
    from noveval.benchmarks.axioms.runner import write_results

    folder = Path(run)
    conf = _axioms_config(folder)
    rows = complete_rows((folder / "per_item.jsonl").read_text(encoding="utf-8"))  # a torn last line is skipped
    old = read_json(folder / "scores.json") if (folder / "scores.json").is_file() else {}
    old_extra: dict[str, Any] = old["extra"] if isinstance(old, dict) and isinstance(old.get("extra"), dict) else {}
    return write_results(folder, rows, conf["metrics"], model=conf.get("paraphrase_model"),
                         embedder=conf, timings=old_extra.get("timings_s") or {},
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

    The default benchmark can be split over run folders (``options.task`` per folder, run side
    by side); this puts them back together: the pass rates of
    :func:`~noveval.benchmarks.axioms.runner.table` over the union of their ``per_item.jsonl``
    rows (a torn last line is skipped), so a metric scored with several seeds gets
    mean ± SD over seeds. The runs must agree on every setting that changes the
    table's metrics (focal papers per task, seed, pool rules, embedder, paraphrase model
    and prompt; RND's P/Q, SemNovel's and FastTextLOF's settings only when that metric is
    in the table); they may differ in tasks, metrics and ``jobs``.

    Args:
        runs: One or more axioms run folders.
        metrics: Metrics to tabulate (any case); default: those every run scored.

    Returns:
        ``{"table": ..., "metrics": [...], "runs": [{"path", "tasks", "items"}], "items": n}``
        where ``table`` is :func:`~noveval.benchmarks.axioms.runner.table`'s dict (pass
        rates in %, 0-100, higher is better).

    Raises:
        InputError: no run; a folder given twice or not an axioms run; a metric some run did not
            score; runs whose resolved embedders differ (or one records only a spec: made before
            issue 35); runs whose settings differ (names the key and both values); a focal
            paper in two runs (names the file, line and ``id``).
    """
    from noveval.benchmarks.axioms.runner import table
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
        raise InputError(None, None, "metrics", "the runs have no metric in common")
    from noveval.models.embed import embedder_clash, recorded_embedder

    clash = embedder_clash([(str(f), recorded_embedder(c)) for f, c in zip(folders, confs, strict=True)])
    if clash:
        raise InputError(None, None, "config.embedder_resolved", clash)
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
