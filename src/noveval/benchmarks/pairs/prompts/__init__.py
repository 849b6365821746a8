"""Prompt templates of ``novelty-pairs`` (package data, our own wording).

Read through :mod:`noveval.prompts`; overridable with ``$NOVEVAL_PROMPTS_DIR/novelty-pairs/``.
``VARIABLES`` says what the code provides to each template.
"""

from __future__ import annotations

from typing import Any

__all__ = ["PROMPT_NAMES", "VARIABLES", "prompt_hashes", "render_messages"]

VARIABLES: dict[str, dict[str, str]] = {
    "compare": {
        "kind": "What is compared: 'research idea' (RINoBench) or 'paper' (NeurIPS title and abstract).",
        "first": "The text shown as A.",
        "second": "The text shown as B.",
        "allow_tie": "True when the answer may be 'tie'.",
    },
}

PROMPT_NAMES = tuple(VARIABLES)


def render_messages(name: str, **values: Any) -> list[dict[str, str]]:
    """Fill the prompt ``name`` and return its chat messages (system + user).

    Raises:
        InputError: the template (e.g. an override) uses a variable not in ``values``.
    """
    from noveval.prompts import load

    return load("novelty-pairs", name).render(**values).messages()


def prompt_hashes(names: tuple[str, ...] = PROMPT_NAMES) -> dict[str, str]:
    """Content hash of each prompt in effect, for run configs."""
    from noveval.prompts import prompt_hashes as hashes

    return hashes("novelty-pairs", names)
