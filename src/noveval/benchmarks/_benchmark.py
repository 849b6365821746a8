"""The declaration of a system: everything the rest of noveval reads about it, in one place.

A system package sets ``BENCHMARK = Benchmark(...)`` in its ``__init__``. The CLI
(``run``/``score`` and the ``noveval <name>`` group), ``noveval benchmarks``, the prompt
catalogue, the demo, the report, ``compare`` and ``export`` read that declaration; none of
them keeps a table keyed by system name. Callables may be given as ``"module:attr"``
strings so that declaring a system imports nothing heavy.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from noveval.options import RunOptions

__all__ = ["About", "Answer", "Benchmark", "EvalPlan", "EvalRun", "declare", "lazy_exports", "published_rows", "resolve"]


@dataclass(frozen=True)
class About:
    """A system as a user meets it (``noveval benchmarks``, the demo's notes).

    Attributes:
        paper: The paper it implements (authors, title, where), or what it is instead.
        task: What is evaluated, in one sentence.
        needs: Inputs: files with their fields, and models.
        data: Where the published data come from and how to pass them.
        demo: What ``noveval demo`` runs for it, and which approximations are on.
        examples: Commands that work as written (``$D`` = the data folder).
    """

    paper: str
    task: str
    needs: tuple[str, ...]
    data: tuple[str, ...]
    demo: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()


@dataclass(frozen=True)
class Answer:
    """The answer a system gives per item, for agreement between runs (``compare``).

    Attributes:
        field: The per-item field (``per_item.jsonl``) holding the answer.
        level: Level of measurement for Krippendorff's alpha (nominal, ordinal, interval).
        prediction: The ``predictions.jsonl`` field with the same answer (runs on items
            without gold write no per-item rows; their answers are read from here).
    """

    field: str
    level: str = "nominal"
    prediction: str | None = None


@dataclass(frozen=True)
class EvalRun:
    """One run of a system in ``noveval eval`` (its suite settings).

    Attributes:
        name: The run's sub-folder in the eval folder (the system's name, or
            ``<system>-<what>`` when the system has several runs).
        options: The system's options for it (a dict of its options fields): which data
            files, which protocol, which limits.
        metric: The metric the eval table shows (None: the run's ``primary_metric``).
    """

    name: str
    options: dict[str, Any]
    metric: str | None = None


@dataclass(frozen=True)
class EvalPlan:
    """What a system runs in ``noveval eval``: its runs on the data found, or why it runs none.

    A system declares it with ``Benchmark.suite``, a function
    ``eval_plan(data_dir, *, limit, judge, protocol) -> EvalPlan`` (``data_dir`` None: the
    shipped samples; ``protocol``: ``paper`` or ``noveval``).

    Attributes:
        runs: The runs (empty when the system does not run here).
        data: The data the runs read, in a few words (shown under the eval table).
        skip: Why the system runs nothing here (data not found, not a model evaluation, ...).
        note: What else a reader must know about these settings (None: nothing).
    """

    runs: tuple[EvalRun, ...] = ()
    data: str = ""
    skip: str | None = None
    note: str | None = None


def resolve(ref: str | Callable[..., Any] | Any, package: str = "") -> Any:
    """``"module:attr"`` imported (``".module:attr"``: relative to ``package``); anything else as it is."""
    if not isinstance(ref, str):
        return ref
    module, _, attr = ref.partition(":")
    if module.startswith(".") and package:
        module = package + module
    obj: Any = importlib.import_module(module)
    for part in attr.split(".") if attr else ():
        obj = getattr(obj, part)
    return obj


def lazy_exports(package: str, names: dict[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports ``name`` from ``<package>.<names[name]>`` on first use.

    A system package keeps its ``__init__`` light (the declaration only) and still offers
    its helpers by their old names: ``__getattr__ = lazy_exports(__name__, {"load_items": "data"})``.
    """

    def __getattr__(name: str) -> Any:
        if name in names:
            return getattr(importlib.import_module(f"{package}.{names[name]}"), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__


def _prose(package: str) -> dict[str, Any]:
    """``<package>/about.toml``: ``title``, ``summary`` and the ``[about]`` table (:class:`About`)."""
    import tomllib
    from importlib import resources

    with resources.files(package).joinpath("about.toml").open("rb") as f:
        return tomllib.load(f)


STANDARD_HOOKS: dict[str, str] = {
    "demo": ".cli:demo", "suite": ".suite:eval_plan", "score_command": ".cli:score", "commands": ".cli:app",
    "yardsticks": ".yardsticks:baselines", "published": "published.json",
}
"""Where a system keeps each hook in the standard package layout (``declare(..., standard=...)``)."""


def declare(package: str, name: str, options: type[RunOptions], *, standard: Sequence[str] = (),
            **fields: Any) -> Benchmark:
    """The declaration of the system in ``package`` (call it from the package's ``__init__``).

    Its prose (title, summary, :class:`About`) is read from ``<package>/about.toml``; its
    ``run`` and ``score`` are ``<package>.contract``'s unless given. References may be
    relative to the package (``".cli:demo"``).

    Args:
        package: The package's ``__name__``.
        name: The name users type.
        options: Its options class.
        standard: Hooks kept at their :data:`STANDARD_HOOKS` place (e.g. ``("demo", "suite")``;
            ``tuple(STANDARD_HOOKS)`` for all of them).
        **fields: Any other :class:`Benchmark` field (a hook given here wins).
    """
    fields = {**{h: STANDARD_HOOKS[h] for h in standard}, **fields}
    prose = _prose(package)
    a = prose["about"]
    about = About(paper=str(a["paper"]), task=str(a["task"]), needs=tuple(a["needs"]), data=tuple(a["data"]),
                  demo=tuple(a.get("demo", ())), examples=tuple(a.get("examples", ())))
    return Benchmark(
        name=name, title=prose["title"], summary=prose["summary"], options=options, about=about,
        run=fields.pop("run", ".contract:run"), score=fields.pop("score", ".contract:score"),
        package=package, **fields)


@dataclass(frozen=True)
class Benchmark:
    """One registered system.

    Attributes:
        name: The name users type (``noveval run <name>``).
        title: Short display name (report sections, listings).
        summary: One or two sentences leading its report section.
        about: Prose for ``noveval benchmarks`` and the demo.
        options: Its options class (a :class:`~noveval.options.RunOptions`): the fields of
            ``noveval run <name>`` and of ``noveval.run(name, options=...)``.
        run: ``run(model, out, options) -> Path | RunGroup`` (or ``"module:attr"``): does the
            work into the run folder ``out`` (resumable); the runner
            (:mod:`noveval.benchmarks._runner`) adds the call ledger, budget, batch and
            completeness around it.
        score: ``score(run_folder, options) -> dict`` (or ``"module:attr"``): the scores
            from the run folder's saved outputs alone (the run records where its gold is).
        score_options: Options of ``score`` (None: none); fields are optional.
        data_option: The options field that ``noveval.run(..., data=...)`` fills.
        paper: True for a paper's benchmark, False for a generic or our own task.
        primary_metric: The metric reported first (None: the system names none, e.g. a
            set of predictors compared side by side).
        greater_is_better: Direction of the primary metric.
        answer: The per-item answer compared between runs (None: none).
        views: Presentation module (report tables and figures, compare's item metrics),
            ``"<package>.views"`` when it exists and this is None.
        demo: ``demo(out_dir, model, embedder, real, data_dir) -> list[Path]`` for ``noveval demo``
            (or ``"module:attr"``): runs the system on a few items into ``out_dir`` and returns
            its run folders. None: the system has no demo (``noveval demo --only <name>`` says so).
        score_command: A Typer-annotated ``score`` command (None: generated from ``score_options``).
        commands: A ``typer.Typer`` mounted at ``noveval <name> ...`` (None: none).
        used_prompts: ``used_prompts(options) -> list[str]``: the templates a run with these
            options renders (prompt variants that change none are refused; None: all).
        planned_config: ``planned_config(model, out, options) -> dict``: the ``config.json``
            a run would write (prompt variants check every sub-run's folder up front).
        model_help: Help of ``-m/--model`` when the model plays a particular role (e.g. judge).
        model_default: Default of ``-m/--model``.
        suite: ``eval_plan(data_dir, *, limit, judge, protocol) -> EvalPlan`` (or
            ``"module:attr"``): what the system runs in ``noveval eval`` (None: the system
            is not part of the eval).
        yardsticks: ``baselines(run_folder, scores) -> {metric: [yardstick, ...]} | str`` (or
            ``"module:attr"``, e.g. ``".yardsticks:baselines"``): what chance, a constant
            answer or a shuffled pairing score on the run's own gold
            (:mod:`noveval.metrics.yardsticks`); a string says why this run has none.
            ``run_folder`` may be None (scores that were not saved). None: see ``no_yardsticks``.
        no_yardsticks: Why the system has no meaningful yardstick (with ``yardsticks=None``).
        published: The package data file of the paper's main-table rows (``"published.json"``:
            ``{"source", "rows": [{model, setting, metric, value, table, ...}]}``, values on
            the metric's scale in ``scores.json``); read with :func:`published_rows`. None:
            see ``no_published``.
        no_published: Why there are no published rows (e.g. a task of our own).
        package: The package that declares it (relative references resolve against it).
    """

    name: str
    title: str
    summary: str
    about: About
    options: type[RunOptions]
    run: str | Callable[..., Any]
    score: str | Callable[..., Any]
    score_options: type[BaseModel] | None = None
    data_option: str | None = None
    paper: bool = True
    primary_metric: str | None = None
    greater_is_better: bool | None = None
    answer: Answer | None = None
    views: str | None = None
    demo: str | Callable[..., Any] | None = None
    score_command: str | None = None
    commands: str | None = None
    used_prompts: str | None = None
    planned_config: str | None = None
    model_help: str | None = None
    model_default: str = "local"
    suite: str | None = None
    yardsticks: str | Callable[..., Any] | None = None
    no_yardsticks: str | None = None
    published: str | None = None
    no_published: str | None = None
    package: str = field(default="", compare=False)

    def run_fn(self) -> Callable[..., Any]:
        """The system's ``run`` (imported)."""
        fn: Callable[..., Any] = resolve(self.run, self.package)
        return fn

    def score_fn(self) -> Callable[..., Any]:
        """The system's ``score`` (imported)."""
        fn: Callable[..., Any] = resolve(self.score, self.package)
        return fn

    def hook(self, which: str) -> Any | None:
        """A declared hook (``demo``, ``commands``, ``score_command``, ``suite``) imported, or None when not declared."""
        ref = getattr(self, which)
        return None if ref is None else resolve(ref, self.package)

    def views_module(self) -> Any | None:
        """The presentation module (None when the system has none)."""
        name = self.views or (f"{self.package}.views" if self.package else None)
        if name is None:
            return None
        try:
            if importlib.util.find_spec(name) is None:
                return None
        except ModuleNotFoundError:
            return None
        return importlib.import_module(name)

    def view(self, what: str) -> Callable[..., Any] | None:
        """One presentation hook (``tables``, ``figures``, ``item_metrics``), or None."""
        mod = self.views_module()
        fn = getattr(mod, what, None) if mod is not None else None
        return fn if callable(fn) else None

    def make_scores(self, model: Any, metrics: dict[str, Any], *, extra: dict[str, Any] | None = None,
                    primary_metric: str | None = None, greater_is_better: bool | None = None,
                    **more: Any) -> dict[str, Any]:
        """The ``scores.json`` dict of a run of this system (every system builds it here).

        Args:
            model: The model evaluated (its id or description).
            metrics: ``{name: {mean, ci_low, ci_high, n}}`` (see
                :func:`noveval.metrics.bootstrap.summarize`).
            extra: The system's own additions (kept under ``extra``).
            primary_metric: This run's primary metric when it differs from the declared one
                (e.g. per task).
            greater_is_better: Its direction, with ``primary_metric``.
            **more: Further top-level keys the system has always written (``n_items``, ...).

        Returns:
            ``{benchmark, model, metrics, primary_metric, greater_is_better, **more, extra}``.
        """
        return {
            "benchmark": self.name,
            "model": model,
            "metrics": metrics,
            "primary_metric": primary_metric if primary_metric is not None else self.primary_metric,
            "greater_is_better": greater_is_better if greater_is_better is not None else self.greater_is_better,
            **more,
            "extra": extra if extra is not None else {},
        }

    @property
    def has_prompts(self) -> bool:
        """True when the package ships prompt templates (``<package>/prompts/``)."""
        spec = importlib.util.find_spec(self.package) if self.package else None
        locs = list(spec.submodule_search_locations or []) if spec is not None else []
        return any((Path(p) / "prompts").is_dir() for p in locs)


def _published_file(bench: Benchmark) -> dict[str, Any]:
    """The declaration's published-rows file (``{"source", "rows"}``; empty when none is declared)."""
    import json
    from importlib import resources

    if bench.published is None or not bench.package:
        return {}
    text = resources.files(bench.package).joinpath(bench.published).read_text(encoding="utf-8")
    got = json.loads(text)
    return got if isinstance(got, dict) else {}


def _applies(row: dict[str, Any], scores: dict[str, Any] | None) -> bool:
    """A row's ``match`` (``{key: value}``) holds for a run's scores (top-level key or ``extra``)."""
    match = row.get("match") or {}
    if scores is None or not match:
        return True
    got = scores.get("extra")
    extra: dict[str, Any] = got if isinstance(got, dict) else {}
    return all(scores.get(k, extra.get(k)) == v for k, v in match.items())


def published_rows(bench: Benchmark, metric: str | None = None, scores: dict[str, Any] | None = None, *,
                   detail: bool = True) -> list[dict[str, Any]]:
    """The paper's published rows a system declares (pure: reads its package data).

    Each row: ``model, setting, metric`` (the ``scores.json`` key), ``value`` (on that
    metric's scale), ``table``, ``source``, and where it applies ``n``, ``match`` (the run
    settings it belongs to, e.g. ``{"task": "wl"}``), ``detail`` (a cell of a breakdown:
    per axiom, per facet) and the breakdown's keys.

    Args:
        bench: The declaration.
        metric: Keep rows of this metric only.
        scores: Keep rows whose ``match`` holds for this run's ``scores.json``.
        detail: Keep breakdown cells (False: the main rows only, as ``scores.json`` holds).

    Returns:
        The rows, in the file's order (empty when the system declares none).
    """
    data = _published_file(bench)
    source = data.get("source")
    rows = []
    for row in data.get("rows") or []:
        if metric is not None and row.get("metric") != metric:
            continue
        if not detail and row.get("detail"):
            continue
        if _applies(row, scores):
            rows.append({**row, "source": row.get("source") or source})
    return rows
