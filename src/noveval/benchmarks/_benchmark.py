"""The declaration of a system: everything the rest of noveval reads about it, in one place.

A system package sets ``BENCHMARK = Benchmark(...)`` in its ``__init__``. The CLI
(``run``/``score`` and the ``noveval <name>`` group), ``noveval benchmarks``, the prompt
catalogue, the demo, the report, ``compare`` and ``export`` read that declaration; none of
them keeps a table keyed by system name.

Hooks are typed references, checked by mypy against the protocols below (:class:`RunHook`,
:class:`ScoreHook`, :class:`DemoHook`, ...). So that declaring a system imports nothing
heavy, a hook may be a :class:`Lazy` reference: a function that imports the hook on first
use with an ordinary import and returns it (``@lazy`` in the system's ``__init__``)::

    @lazy
    def _run() -> RunHook[MyOptions]:
        from my_system.contract import run
        return run

A new kind of hook is one more field of :class:`Benchmark` (as ``plan: Ref[PlanHook[OptionsT]] | None``)
and one more ``@lazy`` function in each system that has it. A system's command-line glue
(``<package>.cli``: ``app``, ``score``) and report views (``<package>.views``) belong to the
presentation layer, which the declaration cannot import: the CLI and the report find them
beside the package (:meth:`Benchmark.presentation`).
"""

from __future__ import annotations

import importlib
import importlib.util
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeAlias, TypeVar

from pydantic import BaseModel

from noveval.options import RunOptions

if TYPE_CHECKING:
    from noveval.models.types import ModelLike
    from noveval.plan import SystemPlan
    from noveval.runs import RunGroup

__all__ = [
    "About", "Answer", "Benchmark", "DemoHook", "DemoRun", "EvalPlan", "EvalRun", "Lazy", "PlanHook", "PlannedConfigHook", "Ref",
    "RunHook", "ScoreHook", "SuiteHook", "UsedPromptsHook", "YardsticksHook", "declare", "lazy", "lazy_exports",
    "load", "published_rows", "resolve",
]

T = TypeVar("T")
OptionsT = TypeVar("OptionsT", bound=RunOptions)
ScoreT = TypeVar("ScoreT", bound=BaseModel)
OptionsT_contra = TypeVar("OptionsT_contra", bound=RunOptions, contravariant=True)
ScoreT_contra = TypeVar("ScoreT_contra", bound=BaseModel, contravariant=True)


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


class Lazy(Generic[T]):
    """A hook imported on first use: ``load()`` (an ordinary import inside a function) is called once.

    Make one with the :func:`lazy` decorator; read it with :func:`load` (or :meth:`get`).
    """

    __slots__ = ("_load", "_value", "_loaded")

    def __init__(self, load: Callable[[], T]) -> None:
        self._load = load
        self._value: T | None = None
        self._loaded = False

    def get(self) -> T:
        """The hook (imported on the first call)."""
        if not self._loaded:
            self._value, self._loaded = self._load(), True
        return self._value  # type: ignore[return-value]  # set on the first call

    def __repr__(self) -> str:
        return f"Lazy({getattr(self._load, '__qualname__', self._load)!r})"


def lazy(load: Callable[[], T]) -> Lazy[T]:
    """Decorator: a function that imports a hook and returns it becomes the hook's :class:`Lazy` reference."""
    return Lazy(load)


Ref: TypeAlias = T | Lazy[T]
"""A hook as a declaration holds it: the hook itself or its :class:`Lazy` reference."""


def load(ref: T | Lazy[T]) -> T:
    """The hook ``ref`` refers to (imported when it is a :class:`Lazy` reference)."""
    return ref.get() if isinstance(ref, Lazy) else ref


class RunHook(Protocol[OptionsT_contra]):
    """A system's ``run(model, out, options)``: does the work into the run folder ``out`` (resumable).

    Returns the run folder, the folders it made, or a :class:`~noveval.runs.RunGroup`; the
    runner (:func:`noveval.benchmarks._runner.run_benchmark`) adds the call ledger, budget,
    batch and completeness around it.
    """

    def __call__(self, model: ModelLike, out: Path, options: OptionsT_contra, /) -> Path | Sequence[Path] | RunGroup:
        """Run into ``out``."""
        ...


class ScoreHook(Protocol[ScoreT_contra]):
    """A system's ``score(run_folder, options)``: the scores dict from the run folder's saved outputs alone."""

    def __call__(self, run: Path, options: ScoreT_contra | None, /) -> Mapping[str, Any]:
        """Scores of ``run``."""
        ...


@dataclass(frozen=True)
class DemoRun:
    """One run ``noveval demo`` makes for a system (what a :class:`DemoHook` returns).

    The demo runs it through the runner (:func:`noveval.benchmarks._runner.run_benchmark`:
    endpoint check, call ledger, unusable-answer tally, completeness), then ``after``.

    Attributes:
        folder: The run folder, relative to the system's demo folder (``<out>/<name>/``).
        options: The system's options object, or a dict of its fields.
        model: The model spec (None: the demo's ``--model``).
        after: A step run on the run folder once the run is done (e.g. axioms' metric
            combination); None: none.
    """

    folder: str
    options: RunOptions | Mapping[str, Any]
    model: str | None = None
    after: Callable[[Path], object] | None = None


class DemoHook(Protocol):
    """A system's demo: the runs ``noveval demo`` makes for it (tiny inputs, the demo's models)."""

    def __call__(self, *, model: str, embedder: str, real: bool, data_dir: Path | None) -> Sequence[DemoRun]:
        """The runs, for the demo's ``model`` and ``embedder``; ``real``: a few items of the data in ``data_dir``."""
        ...


class SuiteHook(Protocol):
    """``eval_plan(data_dir, *, limit, judge, protocol) -> EvalPlan``: what a system runs in ``noveval eval``."""

    def __call__(self, data_dir: Path | None, *, limit: int | None, judge: str | None, protocol: str) -> EvalPlan:
        """The runs on the data found in ``data_dir`` (None: the shipped samples)."""
        ...


class YardsticksHook(Protocol):
    """``baselines(run_folder, scores) -> {metric: [yardstick, ...]} | str`` (a string: why there is none)."""

    def __call__(self, run_folder: Path | None, scores: dict[str, Any], /) -> dict[str, list[dict[str, Any]]] | str:
        """Yardsticks of one run on its own gold."""
        ...


class UsedPromptsHook(Protocol[OptionsT_contra]):
    """``used_prompts(options) -> [template name, ...]``: the templates a run with these options renders."""

    def __call__(self, options: OptionsT_contra, /) -> list[str]:
        """Template names."""
        ...


class PlanHook(Protocol[OptionsT_contra]):
    """``plan(options) -> SystemPlan``: what a run with these options will do (items, calls, tokens,
    embedding, local models; :mod:`noveval.plan`), computed without any model call."""

    def __call__(self, options: OptionsT_contra, /) -> SystemPlan:
        """The run's work plan."""
        ...


class PlannedConfigHook(Protocol[OptionsT_contra]):
    """``planned_config(model, out, options) -> dict``: the ``config.json`` a run would write."""

    def __call__(self, model: ModelLike, out: Path, options: OptionsT_contra, /) -> dict[str, Any]:
        """The config."""
        ...


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
    import tomllib  # not on the `import noveval` path

    with resources.files(package).joinpath("about.toml").open("rb") as f:
        return tomllib.load(f)


def declare(package: str, name: str, options: type[OptionsT], *, run: Ref[RunHook[OptionsT]], score: Ref[ScoreHook[ScoreT]],
            score_options: type[ScoreT] | None = None, published: str | None = "published.json",
            **fields: Any) -> Benchmark[OptionsT, ScoreT]:
    """The declaration of the system in ``package`` (call it from the package's ``__init__``).

    Its prose (title, summary, :class:`About`) is read from ``<package>/about.toml``.

    Args:
        package: The package's ``__name__``.
        name: The name users type.
        options: Its options class.
        run: Its ``run`` (:class:`RunHook`; a :class:`Lazy` reference keeps the import for the first run).
        score: Its ``score`` (:class:`ScoreHook`).
        score_options: The options class of ``score`` (None: none).
        published: The package data file of the paper's rows (None: see ``no_published``).
        **fields: Any other :class:`Benchmark` field (``demo``, ``suite``, ``yardsticks``, ...).
    """
    prose = _prose(package)
    a = prose["about"]
    about = About(paper=str(a["paper"]), task=str(a["task"]), needs=tuple(a["needs"]), data=tuple(a["data"]),
                  demo=tuple(a.get("demo", ())), examples=tuple(a.get("examples", ())))
    return Benchmark(name=name, title=prose["title"], summary=prose["summary"], options=options, about=about,
                     run=run, score=score, score_options=score_options,
                     published=published if fields.get("no_published") is None else None,
                     package=package, **fields)


@dataclass(frozen=True)
class Benchmark(Generic[OptionsT, ScoreT]):
    """One registered system (``OptionsT``: its options class, ``ScoreT``: its scoring options class).

    Attributes:
        name: The name users type (``noveval run <name>``).
        title: Short display name (report sections, listings).
        summary: One or two sentences leading its report section.
        about: Prose for ``noveval benchmarks`` and the demo.
        options: Its options class (a :class:`~noveval.options.RunOptions`): the fields of
            ``noveval run <name>`` and of ``noveval.run(name, options=...)``.
        run: ``run(model, out, options)`` (:class:`RunHook`, or its :class:`Lazy` reference):
            does the work into the run folder ``out`` (resumable); the runner
            (:mod:`noveval.benchmarks._runner`) adds the call ledger, budget, batch and
            completeness around it.
        score: ``score(run_folder, options) -> dict`` (:class:`ScoreHook`): the scores
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
        demo: ``demo(*, model, embedder, real, data_dir) -> [DemoRun, ...]`` (:class:`DemoHook`):
            the runs ``noveval demo`` makes for the system (the demo runs them through the
            runner). None: the system has no demo (``noveval demo --only <name>`` says so).
        used_prompts: ``used_prompts(options) -> list[str]`` (:class:`UsedPromptsHook`): the
            templates a run with these options renders (prompt variants that change none are
            refused; None: all).
        planned_config: ``planned_config(model, out, options) -> dict`` (:class:`PlannedConfigHook`):
            the ``config.json`` a run would write (prompt variants check every sub-run's folder up front).
        plan: ``plan(options) -> SystemPlan`` (:class:`PlanHook`): the work a run with these options
            will do, without a model call (``noveval eval --plan``; None: "not estimated").
        model_help: Help of ``-m/--model`` when the model plays a particular role (e.g. judge).
        model_default: Default of ``-m/--model``.
        suite: ``eval_plan(data_dir, *, limit, judge, protocol) -> EvalPlan`` (:class:`SuiteHook`):
            what the system runs in ``noveval eval`` (None: the system is not part of the eval).
        yardsticks: ``baselines(run_folder, scores) -> {metric: [yardstick, ...]} | str``
            (:class:`YardsticksHook`): what chance, a constant answer or a shuffled pairing
            score on the run's own gold (:mod:`noveval.metrics.yardsticks`); a string says why
            this run has none. ``run_folder`` may be None (scores that were not saved). None:
            see ``no_yardsticks``.
        no_yardsticks: Why the system has no meaningful yardstick (with ``yardsticks=None``).
        published: The package data file of the paper's main-table rows (``"published.json"``:
            ``{"source", "rows": [{model, setting, metric, value, table, ...}]}``, values on
            the metric's scale in ``scores.json``); read with :func:`published_rows`. None:
            see ``no_published``.
        no_published: Why there are no published rows (e.g. a task of our own).
        package: The package that declares it (its prompts, package data and presentation
            modules live there).
    """

    name: str
    title: str
    summary: str
    about: About
    options: type[OptionsT]
    run: Ref[RunHook[OptionsT]]
    score: Ref[ScoreHook[ScoreT]]
    score_options: type[ScoreT] | None = None
    data_option: str | None = None
    paper: bool = True
    primary_metric: str | None = None
    greater_is_better: bool | None = None
    answer: Answer | None = None
    views: str | None = None
    demo: Ref[DemoHook] | None = None
    used_prompts: Ref[UsedPromptsHook[OptionsT]] | None = None
    planned_config: Ref[PlannedConfigHook[OptionsT]] | None = None
    plan: Ref[PlanHook[OptionsT]] | None = None
    model_help: str | None = None
    model_default: str = "local"
    suite: Ref[SuiteHook] | None = None
    yardsticks: Ref[YardsticksHook] | None = None
    no_yardsticks: str | None = None
    published: str | None = None
    no_published: str | None = None
    package: str = field(default="", compare=False)

    def run_fn(self) -> RunHook[OptionsT]:
        """The system's ``run`` (imported on first use)."""
        return load(self.run)

    def score_fn(self) -> ScoreHook[ScoreT]:
        """The system's ``score`` (imported on first use)."""
        return load(self.score)

    def presentation(self, module: str) -> Any | None:
        """The system's presentation module ``<package>.<module>`` (``cli``, ``views``), or None when it has none.

        The declaration cannot import them (they belong to the presentation layer); the CLI
        reads ``app`` (the ``noveval <name> ...`` group) and ``score`` (the ``noveval score
        <name>`` command) from ``cli``, the report reads ``views``.
        """
        name = f"{self.package}.{module}" if self.package else None
        if name is None:
            return None
        try:
            if importlib.util.find_spec(name) is None:
                return None
        except ModuleNotFoundError:
            return None
        return importlib.import_module(name)

    def views_module(self) -> Any | None:
        """The presentation module (None when the system has none)."""
        if self.views is None:
            return self.presentation("views")
        try:
            if importlib.util.find_spec(self.views) is None:
                return None
        except ModuleNotFoundError:
            return None
        return importlib.import_module(self.views)

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
