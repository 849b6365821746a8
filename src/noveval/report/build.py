"""Collect run directories into the report's view model (one section per benchmark)."""

from __future__ import annotations

import json
import logging
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from noveval._version import __version__
from noveval.benchmarks import BENCHMARKS
from noveval.errors import InputError
from noveval.labels import model_labels
from noveval.models.calls import answers_line, unusable_line
from noveval.models.costs import cost_lines
from noveval.report.compare import (
    answer_spec,
    comparison_tables,  # runs of one system that share items
    disagreement_groups,
)
from noveval.report.figures import saved_figures
from noveval.report.fmt import num
from noveval.report.items import item_table
from noveval.report.leaderboard import eval_folders, leaderboard_view
from noveval.report.load import find_runs, load_run
from noveval.report.model import BenchmarkView, DemoBanner, Figure, ReportView, RunData
from noveval.report.tables import headline_table

__all__ = ["build_report", "build_benchmark", "cost_summary", "run_config"]

log = logging.getLogger("noveval")

_CONFIG_KEYS = re.compile(r"(model|judge|embedder|version|created|seed|prompt|cache|fail|error|task|prompting|"
                          r"n_items|limit|python|unparseable|timings)", re.I)


def _slug(s: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", s.lower()).strip("-") or "x"


def _flat(obj: Any, prefix: str = "", depth: int = 0) -> list[tuple[str, Any]]:
    if isinstance(obj, dict) and depth < 3 and obj:
        out: list[tuple[str, Any]] = []
        for k, v in obj.items():
            out.extend(_flat(v, f"{prefix}.{k}" if prefix else str(k), depth + 1))
        return out
    return [(prefix, obj)]


def _short(v: Any, limit: int = 160) -> str:
    if isinstance(v, (list, dict)):
        s = json.dumps(v, ensure_ascii=False, default=str)
    else:
        s = num(v) if isinstance(v, (int, float, bool)) or v is None else str(v)
    return s if len(s) <= limit else s[: limit - 1] + "…"


def run_config(run: RunData) -> list[tuple[str, str]]:
    """Key/value pairs shown for a run: models, versions, prompt hashes, cache and failures first."""
    pairs = [("path", str(run.path)), ("benchmark", run.benchmark), ("model", run.model)]
    if cost_line(run):
        pairs.append(("cost", cost_line(run)))
    from_scores = {x: run.scores[x] for x in ("cache", "judge", "annotator", "embedder") if run.scores.get(x)}
    from_scores.update({x: run.scores[x] for x in ("complete", "calls") if run.scores.get(x) is not None})
    flat = _flat(run.config) + ([(f"scores.{k}", v) for k, v in _flat(from_scores)] if from_scores else [])
    extra = run.extra
    flat += [(f"extra.{k}", v) for k, v in extra.items() if _CONFIG_KEYS.search(k) and not isinstance(v, list)]
    important = [(k, v) for k, v in flat if _CONFIG_KEYS.search(k)]
    rest = [(k, v) for k, v in flat if not _CONFIG_KEYS.search(k)]
    pairs += [(k, _short(v)) for k, v in important + rest if k not in ("model", "benchmark")]
    pairs.append(("rows", f"{len(run.predictions)} predictions · {len(run.judgments)} judgments · {len(run.per_item)} per-item"))
    for name in ("predictions", "judgments"):
        rows = getattr(run, name)
        flagged = [r for r in rows if "cached" in r]
        if flagged:
            pairs.append((f"{name} cached", f"{sum(bool(r['cached']) for r in flagged)} of {len(flagged)}"))
    errors = sum(1 for r in run.predictions if r.get("error"))
    if errors:
        pairs.append(("prediction errors", str(errors)))
    for p in run.problems:
        pairs.append(("problem", p))
    return pairs


def _label_runs(runs: list[RunData]) -> None:
    """Give each run a short unique column label (:func:`noveval.labels.model_labels`): the model's
    name, its host when two runs share the name, what differs (task, prompting), then the folder."""
    details = [[v for key in ("task", "prompting") if isinstance(v := r.scores.get(key) or r.config.get(key), str)]
               for r in runs]
    for r, label in zip(runs, model_labels([r.model for r in runs], details=details, folders=[r.path for r in runs]),
                        strict=True):
        r.label = label


def build_benchmark(name: str, runs: list[RunData]) -> BenchmarkView:
    """The view of one benchmark: headline table, paper tables, figures, comparisons, configs, items."""
    bench = BENCHMARKS.get(name)
    make_tables = bench.view("tables") if bench is not None else None
    make_figures = bench.view("figures") if bench is not None else None

    _label_runs(runs)
    for r in runs:
        r.slug = f"{_slug(name)}-{_slug(r.label)}"
    incomplete = [f"{r.label}: {incomplete_line(r)}" for r in runs if not r.complete]
    unusable = [f"{r.label}: {line}" for r in runs if r.complete and (line := unusable_note(r)) is not None]
    for r in runs:
        if not r.complete:
            r.label = f"{r.label} (incomplete)"
    title, blurb = (bench.title, bench.summary) if bench is not None else (
        name, "A benchmark this installation does not know (no registered system of this name): generic tables "
              "and the item table.")
    view = BenchmarkView(name=name, title=title, blurb=blurb, runs=runs, headline=headline_table(runs),
                         incomplete=incomplete, unusable=unusable)
    view.costs, view.cost_notes = cost_summary(runs)
    if not view.headline.rows:
        view.gaps.append("no metrics in scores.json")
    if make_tables is not None:
        try:
            tables, gaps = make_tables(runs)
            view.gaps += gaps
            for t in tables:
                if any(c.value is not None for _, cells in t.rows for c in cells):
                    view.tables.append(t)
                else:
                    view.gaps.append(f"{t.title}: no values in any run")
        except Exception as e:  # a malformed extra must not sink the whole page
            log.warning("report: %s paper tables failed: %s", name, e)
            view.gaps.append(f"paper tables failed: {type(e).__name__}: {e}")
    figs: list[Figure] = []
    if make_figures is not None:
        try:
            figs = make_figures(runs)
        except Exception as e:
            log.warning("report: %s figures failed: %s", name, e)
            view.gaps.append(f"figures failed: {type(e).__name__}: {e}")
        if not figs:
            view.gaps.append("no data for this benchmark's figures in scores.json / per_item.jsonl")
    # images the runs saved themselves, unless ours already drew the same thing
    views = bench.views_module() if bench is not None else None
    drawn = set(getattr(views, "REPLACES_SAVED", ()))
    view.figures = figs + [f for f in saved_figures(runs) if f.title.split(" (")[0] not in drawn or not figs]

    view.comparisons, more_gaps = comparison_tables(runs)
    view.gaps += more_gaps
    view.configs = [(r.label, run_config(r)) for r in runs]

    spec = answer_spec(name, runs)
    answer = (spec[0], spec[1]) if spec is not None else None
    view.items = {r.slug: {"label": r.label, "path": str(r.path), **item_table(r, answer)} for r in runs}
    view.disagree, more_gaps = disagreement_groups(runs, view.items, spec)
    view.gaps += more_gaps
    return view


def cost_line(run: RunData) -> str:
    """What a run's model calls cost, in one line (empty for runs made before costs were recorded)."""
    lines = [x.strip() for x in cost_lines(run.typed.cost)]
    return " · ".join(x.removeprefix("cost: ") for x in lines)


def cost_summary(runs: list[RunData]) -> tuple[list[str], list[str]]:
    """What each run's model calls cost, one line per run, and the notes the lines share (prices used).

    Returns:
        ``(lines, notes)``: ``label: $0.0123 for this run folder: ... tokens`` per run that
        recorded its cost, and each distinct "prices ..." line once.
    """
    lines: list[str] = []
    notes: list[str] = []
    for r in runs:
        got = [x.strip() for x in cost_lines(r.typed.cost)]
        if not got:
            continue
        own = [x.removeprefix("cost: ") for x in got if not x.startswith("prices")]
        lines.append(f"{r.label}: " + " · ".join(own))
        notes += [x for x in got if x.startswith("prices") and x not in notes]
    return lines, notes


def incomplete_line(run: RunData) -> str:
    """Why a run is incomplete, in one line: ``3 of 20 model calls failed (first: ...)``."""
    got = run.typed.calls
    calls: dict[str, Any] = got if isinstance(got, dict) else {}
    parts = []
    if calls.get("failed"):
        parts.append(f"{calls['failed']} of {calls.get('requests', '?')} model calls failed")
    if calls.get("failed_earlier"):
        parts.append(f"{calls['failed_earlier']} failed calls of an earlier invocation were not redone")

    if (unusable := unusable_line(calls.get("unusable"))) is not None and not calls.get("unusable_accepted"):
        parts.append(f"most answers were empty or unparseable ({unusable}): a broken endpoint configuration")
    if (per_role := answers_line(calls.get("answers"))) is not None:
        parts.append(per_role)
    text = "; ".join(parts) or "model calls failed"
    if calls.get("first_error"):
        text += f" (first: {calls['first_error']})"
    return text + ". Its numbers are computed over what did not fail and are not a result."


def unusable_note(run: RunData) -> str | None:
    """For a complete run with unusable answers: how many per role (None when every answer was usable).

    A run accepted with ``--allow-unparseable`` says so.
    """
    calls = run.typed.calls if isinstance(run.typed.calls, dict) else {}
    line = answers_line(calls.get("answers"))
    if line is None:
        return None
    if calls.get("unusable_accepted"):
        line += " (mostly unusable, accepted with --allow-unparseable: the numbers count them as the model's answers)"
    return line


def demo_banner(runs: list[RunData]) -> DemoBanner | None:
    """The demo banner, when any run carries a ``demo`` entry (None otherwise)."""
    marks = [r.demo for r in runs if r.demo]
    if not marks:
        return None
    notes: list[tuple[str, str]] = []
    for m in marks:
        for n in m.get("notes") or []:
            pair = (str(m.get("benchmark") or "?"), str(n))
            if pair not in notes:
                notes.append(pair)
    seconds: dict[str, float] = {}
    for m in marks:
        seconds[str(m.get("benchmark"))] = float(m.get("seconds") or 0.0)
    return DemoBanner(
        data=list(dict.fromkeys(str(m.get("data")) for m in marks if m.get("data"))),
        models=list(dict.fromkeys(str(x) for m in marks for x in (m.get("model"), m.get("embedder")) if x)),
        notes=notes,
        seconds=sum(seconds.values()),
    )


def _leaderboard(run_dirs: list[Path], board: Any) -> Any:
    """The leaderboard section: of ``board``, else of the eval folders among ``run_dirs`` (None: none given)."""
    if board is None:
        evals = eval_folders(run_dirs)
        if not evals:
            return None
        from noveval.compare.leaderboard import model_leaderboard

        try:
            board = model_leaderboard(evals)
        except InputError as e:
            log.warning("report: no leaderboard: %s", e)
            return None
    return leaderboard_view(board)


def build_report(run_dirs: list[Path], failures: list[tuple[str, str]] | None = None, leaderboard: Any = None) -> ReportView:
    """Load run directories and build the whole page's view model.

    Args:
        run_dirs: Run directories (or folders holding them); eval folders (``noveval eval``)
            also give the page its first section, the model × system leaderboard.
        failures: ``(benchmark, message)`` pairs of demos that failed, listed on the page.
        leaderboard: A :class:`~noveval.compare.leaderboard.ModelLeaderboard` to show first
            (None: the one of the eval folders among ``run_dirs``, baseline the first).

    Returns:
        The :class:`ReportView`.
    """
    runs = [load_run(p) for p in find_runs([Path(p) for p in run_dirs])]
    groups: dict[str, list[RunData]] = {}
    for r in runs:
        groups.setdefault(r.benchmark, []).append(r)

    names = [n for n in BENCHMARKS if n in groups] + sorted(n for n in groups if n not in BENCHMARKS)
    return ReportView(
        benchmarks=[build_benchmark(n, groups[n]) for n in names],
        failures=list(failures or []),
        generated=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        version=__version__,
        run_count=len(runs),
        demo=demo_banner(runs),
        leaderboard=_leaderboard([Path(p) for p in run_dirs], leaderboard),
    )
