"""Prompt variants: the same RINoBench run under reworded prompts (issue 18, item 3).

novelty-eval (2026) found that rewording a novelty judge's prompt flips its verdict on
more than half of identical items. :func:`run_prompt_variants` makes that measurable:
it runs the same :func:`~noveval.benchmarks.rinobench.contract.judge_run` once with the shipped
prompts (label ``shipped``, the baseline) and once per variant, each into its own run
folder ``OUT/<label>/`` (a normal run folder: resumable, cached, its ``config.json``
recording the prompt hashes). :func:`noveval.compare.variants.compare_variants` then
compares them item by item (flip rate, agreement, each metric's spread).

A variants folder holds one sub-folder per variant, each laid out like
``noveval prompts export`` output and holding only the templates it changes::

    DIR/terse/rinobench/judge_novelty.txt
    DIR/reviewer/rinobench/judge_novelty.txt

Each variant is applied through the override mechanism of :mod:`noveval.prompts`
(:func:`~noveval.prompts.using_overrides`, restored after every sub-run, also on
error): templates the variant does not hold are the shipped ones.
``variants="bundled"`` selects the three variants of ``judge_novelty`` shipped with
noveval (:func:`bundled_variants`), written in our own words: ``terse`` (a bare
instruction), ``reviewer`` (a programme-committee persona) and ``checklist`` (a
step-by-step checklist). They use the shipped template's variables and ask for the same
JSON answer, so they parse alike.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path

from noveval.benchmarks.rinobench.judge import JUDGE_PROMPTS
from noveval.benchmarks.rinobench.options import RINoBenchOptions
from noveval.errors import InputError
from noveval.models.chat import ChatClientProtocol

__all__ = [
    "BASELINE",
    "BUNDLED",
    "PromptVariant",
    "bundled_variants",
    "export_variants",
    "load_variants",
    "used_prompts",
    "run_prompt_variants",
]

log = logging.getLogger("noveval")

BASELINE = "shipped"
"""Label (and sub-folder of ``OUT``) of the baseline run with the shipped prompts."""

BUNDLED = "bundled"
"""The ``variants`` value that selects the variants shipped with noveval."""

_OPTION = "options.prompt_variants"


@dataclass(frozen=True)
class PromptVariant:
    """One set of prompts a sub-run uses.

    Attributes:
        label: The variant's name (its folder's name; ``shipped`` for the baseline), also
            the sub-folder of ``OUT`` its run goes to.
        folder: The override folder (None: the shipped prompts).
        changed: RINoBench templates whose text differs from the shipped one: name -> sha.
    """

    label: str
    folder: Path | None
    changed: dict[str, str] = field(default_factory=dict)


def bundled_variants() -> Path:
    """The folder of the variants shipped with noveval (``prompt_variants/`` in this package)."""
    return Path(str(files("noveval.benchmarks.rinobench").joinpath("prompt_variants")))


def export_variants(dest: str | Path) -> list[str]:
    """Copy the bundled variants to ``dest/<variant>/rinobench/<name>.txt`` (byte copies).

    Returns:
        The variants' names.

    Raises:
        InputError: ``dest`` (or a folder in it) cannot be written.
    """
    from noveval.io import make_dir

    src = bundled_variants()
    names = []
    for folder in _variant_folders(src):
        names.append(folder.name)
        for f in sorted(folder.rglob("*.txt")):
            target = Path(dest) / f.relative_to(src)
            make_dir(target.parent, "DEST")
            target.write_bytes(f.read_bytes())
    return names


def used_prompts(protocol: str = "noveval", *, judge: bool = False) -> list[str]:
    """The RINoBench templates a run renders: the generation prompt, and the judge's with a judge.

    Args:
        protocol: ``"noveval"`` (``judge_novelty``) or ``"paper"`` (``judge_novelty_paper``).
        judge: The run has a judge (justification metrics).

    Raises:
        ValueError: unknown protocol.
    """
    from noveval.benchmarks.rinobench.generate import protocol_params

    return [protocol_params(protocol)["prompt"], *(JUDGE_PROMPTS if judge else ())]


def _variant_folders(root: Path) -> list[Path]:
    """The variant sub-folders of ``root`` (hidden entries ignored), checked for shape."""
    from noveval.prompts import packages

    if not root.exists():
        raise InputError(root, None, _OPTION, f"no such folder (give a folder of variant folders, or '{BUNDLED}')")
    if not root.is_dir():
        raise InputError(root, None, _OPTION, "is a file, expected a folder with one sub-folder per variant")
    folders = []
    for p in sorted(root.iterdir()):
        if p.name.startswith("."):
            continue
        if not p.is_dir():
            raise InputError(p, None, _OPTION, "a file directly in the variants folder; it holds one folder per "
                             "variant: DIR/<variant>/<system>/<name>.txt")
        if p.name in packages():
            raise InputError(p, None, _OPTION, f"{p.name!r} is a system, not a variant: this looks like one exported "
                             f"prompts folder; put it in a variant folder: {root}/<variant>/{p.name}/<name>.txt")
        if p.name == BASELINE:
            raise InputError(p, None, _OPTION, f"{BASELINE!r} is the label of the baseline run (the shipped "
                             "prompts); give this variant another name")
        folders.append(p)
    if not folders:
        raise InputError(root, None, _OPTION, "holds no variant folder; expected DIR/<variant>/rinobench/judge_novelty.txt "
                         "(start from: noveval prompts export --variants DIR)")
    return folders


def load_variants(variants: str | Path, *, used: Collection[str]) -> list[PromptVariant]:
    """Read and check a variants folder; nothing is run or written.

    Args:
        variants: A folder with one sub-folder per variant (each laid out like
            ``noveval prompts export`` output, holding some templates), or ``"bundled"``.
        used: The RINoBench templates the run renders (:func:`used_prompts`).

    Returns:
        The baseline (``shipped``) first, then one :class:`PromptVariant` per sub-folder,
        sorted by name.

    Raises:
        InputError: the folder is missing or holds no variant folder; a file directly in
            it; a variant named ``shipped`` or after a system; a file that replaces no
            shipped template (a typo: the file and the template names); a template that
            does not load or uses a variable RINoBench does not provide (file, line,
            variable); a variant that changes none of the ``used`` templates (an
            unedited export, or only templates this run does not render); two variants
            with the same prompts.
    """
    from noveval.benchmarks.rinobench.prompts import prompt_hashes
    from noveval.prompts import check_overrides, using_overrides

    root = bundled_variants() if isinstance(variants, str) and variants == BUNDLED else Path(variants)
    with using_overrides(None):
        shipped = prompt_hashes()
    out = [PromptVariant(BASELINE, None)]
    seen: dict[tuple[tuple[str, str], ...], str] = {}
    for folder in _variant_folders(root):
        held = check_overrides(folder)
        if not held:
            raise InputError(folder, None, _OPTION, "holds no template; a variant holds the templates it changes, "
                             "e.g. rinobench/judge_novelty.txt")
        rino = held.get("rinobench", {})
        changed = {n: sha for n, sha in rino.items() if sha != shipped.get(n)}
        if not any(n in used for n in changed):
            same = sorted(n for n in rino if n in used and n not in changed)
            why = (f"its {', '.join(f'rinobench/{n}.txt' for n in same)} is the shipped template byte for byte"
                   if same else f"it changes {', '.join(sorted(changed)) or 'no rinobench template'}")
            raise InputError(folder, None, _OPTION, f"changes no prompt this run uses ({', '.join(used)}): {why}")
        key = tuple(sorted((n, sha) for n, sha in changed.items() if n in used))
        if key in seen:
            raise InputError(folder, None, _OPTION, f"the same prompts as the variant {seen[key]!r}")
        seen[key] = folder.name
        out.append(PromptVariant(folder.name, folder, changed))
    return out


def _check_out(out: Path, labels: Sequence[str], overwrite: bool) -> list[Path]:
    """Run folders in ``out`` that no variant of this run writes (discarded with ``overwrite``)."""
    if out.exists() and not out.is_dir():
        raise InputError(out, None, "out", "is a file, expected a folder (one run folder per variant goes in it)")
    if (out / "config.json").is_file():
        raise InputError(out, None, "out", "holds a run; prompt variants write one run folder per "
                         "variant under it: give another folder")
    stale = sorted(p for p in out.iterdir() if (p / "config.json").is_file() and p.name not in labels) if out.is_dir() else []
    if stale and not overwrite:
        raise InputError(stale[0], None, "out", f"a run of another prompt variant ({', '.join(p.name for p in stale)} "
                         f"not in {', '.join(labels)}): the report would compare it too; use another output folder or "
                         "overwrite (discards it)")
    return stale


def run_prompt_variants(model: str | ChatClientProtocol, out: str | Path, options: RINoBenchOptions) -> dict[str, Path]:
    """Run RINoBench once with the shipped prompts and once per prompt variant (``options.prompt_variants``).

    Everything is checked before any model call and before anything is written: the
    variants (:func:`load_variants`), the protocol and F1 settings, the items and
    ``out``. Items need no gold score: without one (on any selected item) the sub-runs
    write predictions only, and :func:`~noveval.compare.variants.compare_variants`
    compares their answers alone (flip rate, agreement, self-consistency; no metric).
    Then each sub-run is :func:`~noveval.benchmarks.rinobench.contract.judge_run` into
    ``out/<label>`` with the variant's folder as the override folder (the shipped prompts
    for ``shipped``; ``$NOVEVAL_PROMPTS_DIR`` is ignored and restored afterwards). A
    finished sub-run is resumed, so running the same call again makes no model call. The
    runner (:mod:`noveval.benchmarks._runner`) accounts each sub-run's calls in its
    ``scores.json`` (``complete``, ``calls``, ``cost``).

    ``noveval.run("rinobench", options={"prompt_variants": "bundled", ...})`` does this and
    compares the runs (``run.group.comparison.agreement.flip_rate``: in [0, 1], 0 = every
    item answered alike).

    Args:
        model: Model spec or client.
        out: The folder that gets one run folder per variant (created).
        options: The run's options; ``prompt_variants`` is a folder of variant folders (see
            the module docstring) or ``"bundled"``. ``overwrite`` also discards run folders
            in ``out`` that belong to no variant of this call.

    Returns:
        ``{label: run folder}``, the baseline ``shipped`` first, then the variants by name.

    Raises:
        InputError: see :func:`load_variants`; ``out`` is a file, a run folder, or holds
            runs of other variants (without ``overwrite``); and whatever
            :func:`~noveval.benchmarks.rinobench.contract.judge_run` rejects.
    """
    import os

    from noveval.benchmarks.rinobench.contract import (
        _client,
        _items_source,
        checked_protocol,
        judge_options,
        judge_run,
        run_config,
    )
    from noveval.benchmarks.rinobench.data import load_items, load_rubric
    from noveval.models.calls import active_ledger
    from noveval.prompts import OVERRIDE_ENV, using_overrides
    from noveval.runs import RunDir, discard_run, mark_complete

    o = options
    proto = checked_protocol(o)
    chosen = load_variants(o.prompt_variants or BUNDLED, used=used_prompts(proto["protocol"], judge=o.judge is not None))
    all_items = load_items(_items_source(o))
    sel = all_items[: o.limit] if o.limit else all_items
    rub = load_rubric(o.rubric)
    root = Path(out)
    stale = _check_out(root, [v.label for v in chosen], o.overwrite)
    if os.environ.get(OVERRIDE_ENV):
        log.warning("%s is set; prompt variants ignore it: the baseline uses the shipped prompts and each variant "
                    "its own folder", OVERRIDE_ENV)
    client = _client(model, o)
    judge = None if o.judge is None else _client(o.judge, o)
    jopts = judge_options(o)
    if not o.overwrite:  # a sub-run with other settings fails now, not after the ones before it ran
        for v in chosen:
            with using_overrides(v.folder):
                RunDir.check_resumable(root / v.label, run_config(o, sel, rub, client, judge, jopts, proto))
    for p in stale:
        log.warning("%s: discarding the run of a variant not in this call (overwrite)", p)
        discard_run(p)
    runs: dict[str, Path] = {}
    for k, v in enumerate(chosen, start=1):
        what = ", ".join(f"{n} {sha}" for n, sha in sorted(v.changed.items())) or "the shipped prompts"
        log.info("prompt variant %d/%d: %s (%s) -> %s", k, len(chosen), v.label, what, root / v.label)
        with using_overrides(v.folder):
            runs[v.label] = judge_run(client, root / v.label, o, jopts=jopts, judge=judge)
    if (ledger := active_ledger()) is not None:  # each sub-run's outcome, before the comparison reads it
        for p in runs.values():
            mark_complete(p, ledger)
    return runs
