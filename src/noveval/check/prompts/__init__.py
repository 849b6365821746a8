"""Prompt templates of ``noveval check`` (package data, our own wording).

Templates are read through :mod:`noveval.prompts` (overridable with
``$NOVEVAL_PROMPTS_DIR/check/``). ``VARIABLES`` says what the code provides to each.
The rubric judgment uses RINoBench's ``judge_novelty`` template and the optional
reranker the index's ``rerank`` template.
"""

from __future__ import annotations

from noveval.prompts import SystemPrompts

__all__ = ["render_messages", "VARIABLES"]

VARIABLES: dict[str, dict[str, str]] = {
    "structure_idea": {"text": "The input text (its first 4000 characters)."},
    "structured_evaluation": {
        "submission": "The submission as plain text (title, abstract or structured idea), then its numbered "
                      "contributions, '(j) text'.",
        "related_works": "Numbered retrieved prior works, '[i] title (year): abstract' (i = retrieval rank).",
    },
}


render_messages = SystemPrompts("check").render_messages
"""Fill the template ``name`` and return its chat messages (system + user); see :class:`noveval.prompts.SystemPrompts`."""
