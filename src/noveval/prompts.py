"""Prompt templates: shipped as package files, overridable without touching the code.

Every benchmark keeps its prompts as plain files in ``<package>/prompts/``. To try a
published prompt (or your own), put a file with the same name under
``$NOVEVAL_PROMPTS_DIR/<benchmark>/`` — e.g. ``my-prompts/rinobench/alignment.txt`` — and
set ``NOVEVAL_PROMPTS_DIR=my-prompts``. ``noveval prompts export DIR`` writes all the
defaults there as a starting point. Run configs record each prompt's content hash, so
runs with different prompts never mix on resume.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path

PROMPT_PACKAGES: dict[str, str] = {
    "novbench": "noveval.benchmarks.novbench",
    "rinobench": "noveval.benchmarks.rinobench",
    "focus": "noveval.benchmarks.focus",
    "claimcheck": "noveval.benchmarks.claimcheck",
    "axioms": "noveval.benchmarks.axioms",
    "check": "noveval.check",
    "index": "noveval.index",
    "validate": "noveval.benchmarks.validate",
}
"""Benchmark name -> package whose ``prompts/`` folder holds its templates."""

TEMPLATE_SUFFIXES = (".txt", ".j2", ".md")


def override_dir() -> Path | None:
    """``$NOVEVAL_PROMPTS_DIR`` when set."""
    env = os.environ.get("NOVEVAL_PROMPTS_DIR")
    return Path(env) if env else None


def _bundled(benchmark: str) -> Traversable:
    return resources.files(PROMPT_PACKAGES[benchmark]) / "prompts"


def read_prompt(benchmark: str, filename: str) -> str:
    """Text of a prompt template: the user's override if present, else the shipped file.

    Args:
        benchmark: A key of :data:`PROMPT_PACKAGES`.
        filename: File name inside the prompts folder, e.g. ``"alignment.txt"``.
    """
    over = override_dir()
    if over is not None:
        f = over / benchmark / filename
        if f.is_file():
            return f.read_text(encoding="utf-8")
    return (_bundled(benchmark) / filename).read_text(encoding="utf-8")


def read_chat_prompt(benchmark: str, filename: str) -> tuple[str, str]:
    """``(system, user)`` of a template split at its ``### system`` / ``### user`` headers."""
    _, _, rest = read_prompt(benchmark, filename).partition("### system\n")
    system, _, user = rest.partition("### user\n")
    return system.strip(), user.strip()


def list_prompts() -> Iterator[tuple[str, str, bool]]:
    """Yield ``(benchmark, filename, overridden)`` for every shipped template."""
    over = override_dir()
    for bench in PROMPT_PACKAGES:
        try:
            folder = _bundled(bench)
            names = sorted(p.name for p in folder.iterdir() if p.name.endswith(TEMPLATE_SUFFIXES))
        except (ModuleNotFoundError, FileNotFoundError, NotADirectoryError):
            continue
        for name in names:
            yield bench, name, bool(over and (over / bench / name).is_file())


def export_prompts(dest: str | Path) -> int:
    """Copy every shipped template to ``dest/<benchmark>/<file>``; return how many."""
    n = 0
    for bench, name, _ in list_prompts():
        target = Path(dest) / bench / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text((_bundled(bench) / name).read_text(encoding="utf-8"), encoding="utf-8")
        n += 1
    return n
