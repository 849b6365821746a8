"""Render the NovBench prompt templates shipped in ``prompts/`` (package data)."""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import resources
from typing import Any

__all__ = ["render", "template_text", "prompt_hash"]


@cache
def template_text(name: str) -> str:
    """The raw text of ``prompts/<name>.j2``."""
    return resources.files("noveval.benchmarks.novbench").joinpath(f"prompts/{name}.j2").read_text(
        encoding="utf-8"
    )


@cache
def _template(name: str) -> Any:
    import jinja2

    env = jinja2.Environment(
        undefined=jinja2.StrictUndefined, keep_trailing_newline=True, autoescape=False
    )
    return env.from_string(template_text(name))


def render(name: str, **values: Any) -> str:
    """Render template ``name`` with ``values`` (missing values raise)."""
    return _template(name).render(**values).strip() + "\n"


def prompt_hash(*names: str) -> str:
    """Short content hash of the named templates (recorded in run configs)."""
    h = hashlib.sha256()
    for n in names:
        h.update(n.encode())
        h.update(template_text(n).encode())
    return h.hexdigest()[:12]
