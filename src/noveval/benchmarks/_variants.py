"""Prompt variants, for every system with prompts: the same run under reworded prompts.

novelty-eval (2026) found that rewording a novelty judge's prompt flips its verdict on
more than half of identical items. ``options.prompt_variants`` (``--prompt-variants DIR |
bundled``) makes that measurable for any system that ships templates: the runner
(:mod:`noveval.benchmarks._runner`) runs the system once with the shipped prompts (label
``shipped``, the baseline) and once per variant, each into its own run folder
``OUT/<label>/`` (a normal run folder: resumable, cached, its ``config.json`` recording the
prompt hashes), then :func:`noveval.compare.variants.compare_variants` compares them item
by item (flip rate, agreement, each metric's spread) into ``OUT/variants.json``.

A variants folder holds one sub-folder per variant, each laid out like ``noveval prompts
export`` output and holding only the templates it changes::

    DIR/terse/rinobench/judge_novelty.txt
    DIR/reviewer/rinobench/judge_novelty.txt

Each variant is applied through the override mechanism of :mod:`noveval.prompts`
(:func:`~noveval.prompts.using_overrides`, restored after every sub-run, also on error):
templates a variant does not hold are the shipped ones. ``bundled`` selects the variants a
system ships in ``<package>/prompt_variants/`` (rewordings of its judging prompt in our
own words, with the shipped template's variables and answer format).

A system may declare two hooks (``Benchmark.used_prompts``: the templates a run with these
options renders, so a variant that changes none of them is refused; and
``Benchmark.planned_config``: the ``config.json`` a run would write, so a sub-run with other
settings fails before the first sub-run starts).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any

from noveval.benchmarks._benchmark import Benchmark, load
from noveval.benchmarks._contract import client_of
from noveval.errors import InputError
from noveval.io import make_dir, write_json
from noveval.models.calls import active_ledger, collecting
from noveval.models.types import ModelLike
from noveval.prompts import (
    OVERRIDE_ENV,
    check_overrides,
    packages,
    prompt_hashes,
    shipped_names,
    using_overrides,
)
from noveval.runs import RunDir, discard_run, mark_complete

__all__ = ["BASELINE", "BUNDLED", "PromptVariant", "bundled_folder", "export_bundled", "load_variants", "run_variants"]

log = logging.getLogger("noveval")

BASELINE = "shipped"
"""Label (and sub-folder of ``OUT``) of the baseline run with the shipped prompts."""

BUNDLED = "bundled"
"""The ``prompt_variants`` value that selects the variants a system ships."""

_OPTION = "options.prompt_variants"


@dataclass(frozen=True)
class PromptVariant:
    """One set of prompts a sub-run uses.

    Attributes:
        label: The variant's name (its folder's name; ``shipped`` for the baseline), also
            the sub-folder of ``OUT`` its run goes to.
        folder: The override folder (None: the shipped prompts).
        changed: The system's templates whose text differs from the shipped one: name -> sha.
    """

    label: str
    folder: Path | None
    changed: dict[str, str] = field(default_factory=dict)


def bundled_folder(bench: Benchmark) -> Path | None:
    """The variants ``bench`` ships (``<package>/prompt_variants/``), or None."""
    try:
        p = Path(str(files(bench.package).joinpath("prompt_variants")))
    except ModuleNotFoundError:
        return None
    return p if p.is_dir() else None


def export_bundled(dest: str | Path, benches: Collection[Benchmark]) -> dict[str, list[str]]:
    """Copy every system's bundled variants to ``dest/<variant>/<system>/<name>.txt`` (byte copies).

    Returns:
        ``{system: [variant names]}`` for the systems that ship variants.

    Raises:
        InputError: ``dest`` (or a folder in it) cannot be written.
    """
    out: dict[str, list[str]] = {}
    for bench in benches:
        src = bundled_folder(bench)
        if src is None:
            continue
        for folder in _variant_folders(src, bench):
            out.setdefault(bench.name, []).append(folder.name)
            for f in sorted(folder.rglob("*.txt")):
                target = Path(dest) / f.relative_to(src)
                make_dir(target.parent, "DEST")
                target.write_bytes(f.read_bytes())
    return out


def _variant_folders(root: Path, bench: Benchmark) -> list[Path]:
    """The variant sub-folders of ``root`` (hidden entries ignored), checked for shape."""
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
        raise InputError(root, None, _OPTION, f"holds no variant folder; expected DIR/<variant>/{bench.name}/<name>.txt "
                         "(start from: noveval prompts export --variants DIR)")
    return folders


def load_variants(bench: Benchmark, variants: str | Path, *, used: Collection[str]) -> list[PromptVariant]:
    """Read and check a variants folder for ``bench``; nothing is run or written.

    Args:
        bench: The system.
        variants: A folder with one sub-folder per variant (each laid out like
            ``noveval prompts export`` output, holding some templates), or ``"bundled"``.
        used: The system's templates the run renders.

    Returns:
        The baseline (``shipped``) first, then one :class:`PromptVariant` per sub-folder,
        sorted by name.

    Raises:
        InputError: the folder is missing or holds no variant folder (or the system ships
            none, for ``bundled``); a file directly in it; a variant named ``shipped`` or
            after a system; a file that replaces no shipped template; a template that does
            not load or uses a variable the system does not provide (file, line, variable);
            a variant that changes none of the ``used`` templates; two variants with the
            same prompts.
    """
    if isinstance(variants, str) and variants == BUNDLED:
        root = bundled_folder(bench)
        if root is None:
            raise InputError(None, None, _OPTION, f"{bench.name} ships no prompt variants: give a folder of your own")
    else:
        root = Path(variants)
    with using_overrides(None):
        shipped = prompt_hashes(bench.name, shipped_names(bench.name))
    out = [PromptVariant(BASELINE, None)]
    seen: dict[tuple[tuple[str, str], ...], str] = {}
    for folder in _variant_folders(root, bench):
        held = check_overrides(folder)
        mine = held.get(bench.name, {})
        if held and not mine:  # a variant of other systems' prompts (an export of every system's variants)
            log.info("%s: holds no %s template; not a variant for this run", folder, bench.name)
            continue
        changed = {n: sha for n, sha in mine.items() if sha != shipped.get(n)}
        if not any(n in used for n in changed):
            same = sorted(n for n in mine if n in used and n not in changed)
            why = (f"its {', '.join(f'{bench.name}/{n}.txt' for n in same)} is the shipped template byte for byte"
                   if same else f"it changes {', '.join(sorted(changed)) or f'no {bench.name} template'}")
            raise InputError(folder, None, _OPTION, f"changes no prompt this run uses ({', '.join(used)}): {why}")
        key = tuple(sorted((n, sha) for n, sha in changed.items() if n in used))
        if key in seen:
            raise InputError(folder, None, _OPTION, f"the same prompts as the variant {seen[key]!r}")
        seen[key] = folder.name
        out.append(PromptVariant(folder.name, folder, changed))
    if len(out) == 1:
        raise InputError(root, None, _OPTION, f"holds no variant of {bench.name}'s prompts; expected "
                         f"DIR/<variant>/{bench.name}/<name>.txt")
    return out


def _check_out(out: Path, labels: Sequence[str], overwrite: bool) -> list[Path]:
    """Run folders in ``out`` that no variant of this run writes (discarded with ``overwrite``)."""
    if out.exists() and not out.is_dir():
        raise InputError(out, None, "out", "is a file, expected a folder (one run folder per variant goes in it)")
    if (out / "config.json").is_file():
        raise InputError(out, None, "out", "holds a run; prompt variants write one run folder per variant under it: "
                         "give another folder")
    stale = sorted(p for p in out.iterdir() if (p / "config.json").is_file() and p.name not in labels) if out.is_dir() else []
    if stale and not overwrite:
        raise InputError(stale[0], None, "out", f"a run of another prompt variant ({', '.join(p.name for p in stale)} "
                         f"not in {', '.join(labels)}): the report would compare it too; use another output folder or "
                         "overwrite (discards it)")
    return stale


def _plan(bench: Benchmark, model: ModelLike, root: Path, options: Any, chosen: list[PromptVariant]) -> None:
    """Check every sub-run's folder before the first starts (systems that declare ``planned_config``)."""
    if bench.planned_config is None or options.overwrite:
        return
    plan = load(bench.planned_config)
    for v in chosen:
        with using_overrides(v.folder):
            RunDir.check_resumable(root / v.label, plan(model, root / v.label, options))


def run_variants(bench: Benchmark, model: ModelLike, out: Path, options: Any) -> Any:
    """The system's run once with the shipped prompts and once per variant, then their comparison.

    Everything is checked before any model call and before anything is written: the
    variants, ``out`` and (where the system declares how) every sub-run's settings. A
    finished sub-run is resumed, so running the same call again makes no model call.

    Args:
        bench: The system.
        model: A model spec or a ready chat client (one client serves every sub-run).
        out: The folder that gets one run folder per variant.
        options: The run's options (``prompt_variants`` set).

    Returns:
        The :class:`~noveval.compare.variants.PromptVariants` group (or, in a batch's
        collect pass, the list of sub-run folders).
    """
    from noveval.compare.variants import compare_variants
    used = list(load(bench.used_prompts)(options)) if bench.used_prompts is not None else shipped_names(bench.name)
    chosen = load_variants(bench, options.prompt_variants, used=used)
    root = Path(out)
    stale = _check_out(root, [v.label for v in chosen], options.overwrite)
    if os.environ.get(OVERRIDE_ENV):
        log.warning("%s is set; prompt variants ignore it: the baseline uses the shipped prompts and each variant "
                    "its own folder", OVERRIDE_ENV)
    client = client_of(model, **options.client_kwargs())
    one = options.model_copy(update={"prompt_variants": None})
    _plan(bench, client, root, one, chosen)
    for p in stale:
        log.warning("%s: discarding the run of a variant not in this call (overwrite)", p)
        discard_run(p)
    runs: dict[str, Path] = {}
    for k, v in enumerate(chosen, start=1):
        what = ", ".join(f"{n} {sha}" for n, sha in sorted(v.changed.items())) or "the shipped prompts"
        log.info("prompt variant %d/%d: %s (%s) -> %s", k, len(chosen), v.label, what, root / v.label)
        with using_overrides(v.folder):
            got = bench.run_fn()(client, root / v.label, one)
        runs[v.label] = Path(got) if isinstance(got, (str, os.PathLike)) else root / v.label
    if (ledger := active_ledger()) is not None:  # each sub-run's outcome, before the comparison reads it
        for p in runs.values():
            mark_complete(p, ledger)
    if collecting():  # a batch pass that only collects requests: nothing is compared yet
        return list(runs.values())
    if not _comparable(bench, runs):
        why = (f"{bench.name} declares no per-item answer and the runs were not scored (no per_item.jsonl): "
               "nothing to compare item by item; score the runs, then compare them (noveval compare)")
        log.warning("prompt variants: %s", why)
        write_json(root / "variants.json", {"kind": "prompt_variants", "baseline": BASELINE,
                                            "runs": {k: str(v) for k, v in runs.items()}, "notes": [why]})
        return list(runs.values())
    return compare_variants(runs, out=root)


def _comparable(bench: Benchmark, runs: dict[str, Path]) -> bool:
    """The runs can be compared: all scored, or the system declares the answer its predictions hold."""
    scored = all((p / "per_item.jsonl").is_file() for p in runs.values())
    return scored or (bench.answer is not None and bench.answer.prediction is not None)
