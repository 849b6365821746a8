"""Prompt templates of ``novelty-pairs`` (package data, our own wording).

Read through :mod:`noveval.prompts`; overridable with ``$NOVEVAL_PROMPTS_DIR/novelty-pairs/``.
``VARIABLES`` says what the code provides to each template.
"""

from __future__ import annotations

from noveval.prompts import SystemPrompts

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


_PROMPTS = SystemPrompts("novelty-pairs")
render_messages = _PROMPTS.render_messages
"""Fill the prompt ``name`` and return its chat messages (system + user); see :class:`noveval.prompts.SystemPrompts`."""
prompt_hashes = _PROMPTS.prompt_hashes
"""Content hash of each prompt in effect (all of ``PROMPT_NAMES`` by default), for run configs."""
