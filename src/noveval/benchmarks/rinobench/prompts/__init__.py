"""Prompt templates for RINoBench (package data, our own wording).

Each ``*.txt`` file holds a ``### system`` and a ``### user`` part; placeholders use
:class:`string.Template` syntax (``$name``) so JSON braces need no escaping.
"""

from __future__ import annotations

import hashlib
from functools import cache
from string import Template

from noveval.prompts import read_chat_prompt

__all__ = ["load_prompt", "render_messages", "prompt_hashes", "PROMPT_NAMES"]

PROMPT_NAMES = (
    "judge_novelty",
    "judge_novelty_paper",
    "alignment",
    "extract_known",
    "extract_novelty",
    "support",
    "ground_known",
    "ground_novelty",
    "ground_context",
    "construct_idea",
    "construct_justification",
    "construct_formal",
)


@cache
def load_prompt(name: str) -> tuple[str, str]:
    """Return ``(system, user)`` templates of the prompt ``name``."""
    return read_chat_prompt("rinobench", f"{name}.txt")


def render_messages(name: str, **values: str) -> list[dict[str, str]]:
    """Fill the prompt ``name`` and return chat messages (system + user)."""
    system, user = load_prompt(name)
    return [
        {"role": "system", "content": Template(system).substitute(values)},
        {"role": "user", "content": Template(user).substitute(values)},
    ]


def prompt_hashes(names: tuple[str, ...] = PROMPT_NAMES) -> dict[str, str]:
    """Content hash (sha256, 12 hex) of each prompt, recorded in run configs."""
    out = {}
    for n in names:
        s, u = load_prompt(n)
        out[n] = hashlib.sha256((s + "\n" + u).encode()).hexdigest()[:12]
    return out
