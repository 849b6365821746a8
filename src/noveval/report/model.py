"""View-model records of the HTML report (plain dataclasses, no rendering logic)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from noveval.errors import InputError
from noveval.scores import MetricValue, Scores, read_scores


@dataclass
class Cell:
    """One table cell: display text plus optional CI and hover title.

    Attributes:
        text: Main text (e.g. the formatted mean).
        ci: Formatted confidence interval, shown smaller under the value.
        value: The raw number, kept for tests and sorting.
        title: Hover text.
        best: Whether to highlight as the best value in its row/column.
    """

    text: str
    ci: str = ""
    value: float | None = None
    title: str = ""
    best: bool = False


@dataclass
class Table:
    """A titled table: ``header`` labels columns, ``rows`` hold a row label + cells."""

    title: str
    header: list[str]
    rows: list[tuple[str, list[Cell]]]
    caption: str = ""
    kind: str = "generic"


@dataclass
class Figure:
    """An inline figure: a ``data:`` URI (PNG) or an SVG string."""

    title: str
    src: str = ""
    svg: str = ""
    caption: str = ""


@dataclass
class RunData:
    """Everything read from one run directory."""

    path: Path
    benchmark: str
    config: dict[str, Any]
    scores: dict[str, Any]
    predictions: list[dict[str, Any]]
    judgments: list[dict[str, Any]]
    per_item: list[dict[str, Any]]
    images: list[Path] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    label: str = ""
    slug: str = ""
    transcripts: list[dict[str, Any]] = field(default_factory=list)
    """``transcripts.jsonl``: one row per chat request made for an item, each with the parser's
    verdict joined in from ``calls.json`` (``usable``: True, False, or absent when none was given)."""

    @cached_property
    def typed(self) -> Scores:
        """``scores`` read as the typed :class:`~noveval.scores.Scores` every system writes.

        The report reads metrics, the primary metric, its direction, the outcome and the
        system's ``extra`` through it (``scores`` keeps the raw file for the configuration
        listing). A malformed file becomes a problem of the run, not a crash.
        """
        try:
            return read_scores(self.scores)
        except InputError as e:
            self.problems.append(f"scores.json: {e}")
            return Scores()

    @property
    def complete(self) -> bool:
        """False when the run recorded failed model calls (``scores.json`` ``complete: false``)."""
        return self.typed.complete is not False

    @property
    def metrics(self) -> dict[str, MetricValue]:
        """Metric name -> typed value (a bare number in an old file becomes ``{mean}``)."""
        return self.typed.metrics

    @property
    def extra(self) -> dict[str, Any]:
        """The system's own additions to its scores (tables, protocol notes, ...)."""
        return self.typed.extra

    @property
    def demo(self) -> dict[str, Any] | None:
        """The ``demo`` entry a ``noveval demo`` run carries in scores.json, else None."""
        d = self.scores.get("demo")
        return d if isinstance(d, dict) else None

    @property
    def model(self) -> str:
        """The model spec or id of the run, from scores.json or config.json."""
        for src in (self.scores, self.config):
            for key in ("model", "model_id", "paraphrase_model"):
                v = src.get(key)
                if isinstance(v, str) and v:
                    return v
                if isinstance(v, dict) and v.get("spec"):
                    return str(v["spec"])
        return "?"


@dataclass
class BenchmarkView:
    """One report section."""

    name: str
    title: str
    blurb: str
    runs: list[RunData]
    headline: Table
    tables: list[Table] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    configs: list[tuple[str, list[tuple[str, str]]]] = field(default_factory=list)
    items: dict[str, Any] = field(default_factory=dict)
    gaps: list[str] = field(default_factory=list)
    incomplete: list[str] = field(default_factory=list)
    """One line per run whose model calls failed (shown above its numbers)."""
    unusable: list[str] = field(default_factory=list)
    """One line per complete run with unusable answers: how many per role (shown above its numbers)."""
    costs: list[str] = field(default_factory=list)
    """One line per run on what its model calls cost (``scores.json`` ``"cost"``)."""
    cost_notes: list[str] = field(default_factory=list)
    """What the cost lines share, once (the prices used and where they come from)."""
    disagree: list[dict[str, Any]] = field(default_factory=list)
    """Groups of runs for the "where the runs disagree" view (:func:`noveval.report.compare.disagreement_groups`)."""
    comparisons: list[Table] = field(default_factory=list)
    """Paired comparisons of runs that share items (:mod:`noveval.report.compare`)."""


@dataclass
class ReportView:
    """The whole page."""

    benchmarks: list[BenchmarkView]
    failures: list[tuple[str, str]]
    generated: str
    version: str
    run_count: int
    demo: DemoBanner | None = None
    """Present when any run came from ``noveval demo``: the banner at the top of the page."""
    leaderboard: Any = None
    """Present when eval folders were given: the model × system leaderboard, the page's first section
    (:class:`noveval.report.leaderboard.LeaderboardView`)."""


@dataclass
class DemoBanner:
    """What the demo page is and how to read it (from the runs' ``demo`` entries)."""

    data: list[str]
    models: list[str]
    notes: list[tuple[str, str]]
    """(benchmark, note): items, token budgets and approximations each demo used."""
    seconds: float
