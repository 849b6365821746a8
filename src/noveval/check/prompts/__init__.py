"""Prompt templates of ``noveval check`` (package data, our own wording).

Each ``*.txt`` has a ``### system`` and a ``### user`` part; ``$name`` placeholders
(:class:`string.Template`), so JSON braces need no escaping.
"""

from __future__ import annotations

from functools import cache
from string import Template

from noveval.prompts import read_prompt

__all__ = ["render_messages"]


@cache
def _load(name: str) -> tuple[str, str]:
    text = read_prompt("check", f"{name}.txt")
    _, _, rest = text.partition("### system\n")
    system, _, user = rest.partition("### user\n")
    return system.strip(), user.strip()


def render_messages(name: str, **values: str) -> list[dict[str, str]]:
    """Fill the template ``name`` and return system + user chat messages."""
    system, user = _load(name)
    return [
        {"role": "system", "content": Template(system).safe_substitute(values)},
        {"role": "user", "content": Template(user).safe_substitute(values)},
    ]
