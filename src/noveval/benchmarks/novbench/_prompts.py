"""NovBench's prompt templates (``prompts/*.txt``), read through :mod:`noveval.prompts`.

NovBench sends each prompt as chat messages whose user message ends with one newline
(as it always has, so that cached responses stay valid); an override may add a system part.
"""

from __future__ import annotations

from typing import Any

from noveval.prompts import load
from noveval.prompts import prompt_hashes as hashes

__all__ = ["messages", "render", "prompt_hashes"]


def messages(name: str, **values: Any) -> list[dict[str, str]]:
    """Chat messages of template ``name`` filled with ``values``.

    Raises:
        InputError: the template (e.g. an override) uses a variable not in ``values``.
    """
    return load("novbench", name).render(**values).messages(end="\n")


def render(name: str, **values: Any) -> str:
    """The user message of template ``name`` filled with ``values`` (see :func:`messages`)."""
    return messages(name, **values)[-1]["content"]


def prompt_hashes(*names: str) -> dict[str, str]:
    """Content hash of each named template in effect (:func:`noveval.prompts.prompt_hashes`)."""
    return hashes("novbench", names)
