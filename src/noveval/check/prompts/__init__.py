"""Prompt templates of ``noveval check`` (package data, our own wording).

Each ``*.txt`` has a ``### system`` and a ``### user`` part; ``$name`` placeholders
(:class:`string.Template`), so JSON braces need no escaping.
"""

from __future__ import annotations

from functools import cache
from string import Template

from noveval.prompts import read_chat_prompt

__all__ = ["render_messages"]


@cache
def _load(name: str) -> tuple[str, str]:
    return read_chat_prompt("check", f"{name}.txt")


def render_messages(name: str, **values: str) -> list[dict[str, str]]:
    """Fill the template ``name`` and return system + user chat messages."""
    system, user = _load(name)
    return [
        {"role": "system", "content": Template(system).safe_substitute(values)},
        {"role": "user", "content": Template(user).safe_substitute(values)},
    ]
