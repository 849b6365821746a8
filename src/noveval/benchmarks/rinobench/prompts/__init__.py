"""Prompt templates for RINoBench (package data, our own wording).

Templates are read through :mod:`noveval.prompts` (one layout and syntax for every
system; overridable with ``$NOVEVAL_PROMPTS_DIR/rinobench/``). ``VARIABLES`` says what the
code provides to each template.
"""

from __future__ import annotations

from typing import Any

__all__ = ["render_messages", "prompt_hashes", "PROMPT_NAMES", "VARIABLES"]

_IDEA = {
    "problem_statement": "The research idea's problem statement.",
    "objective": "The research idea's objective.",
    "solution_approach": "The research idea's solution approach.",
}
_RELATED = {"related_works": "Numbered related works (title and abstract each)."}
_RUBRIC = {"rubric": "The 1-5 novelty rubric, one line per score."}

VARIABLES: dict[str, dict[str, str]] = {
    "judge_novelty": {**_RUBRIC, **_IDEA, **_RELATED},
    "judge_novelty_paper": {**_RUBRIC, **_IDEA, **_RELATED},
    "alignment": {"gold": "The reference (expert) justification.", "predicted": "The predicted justification."},
    "extract_known": {"justification": "The justification to split into arguments."},
    "extract_novelty": {"justification": "The justification to split into arguments."},
    "support": {"gold": "The reference (expert) justification.", "arguments": "Numbered arguments, one per line."},
    "ground_known": {**_RELATED, "arguments": "Numbered arguments, one per line."},
    "ground_novelty": {**_IDEA, "arguments": "Numbered arguments, one per line."},
    "ground_context": {**_IDEA, **_RELATED, "arguments": "Numbered arguments, one per line."},
    "construct_idea": {"title": "Paper title.", "abstract": "Paper abstract.",
                       "summaries": "The reviewers' summaries of the paper."},
    "construct_justification": {**_IDEA, **_RUBRIC, "score": "The agreed novelty score 1-5.",
                                "comments": "The reviewers' comments on novelty."},
    "construct_formal": dict(_IDEA),
}

PROMPT_NAMES = tuple(VARIABLES)


def render_messages(name: str, **values: Any) -> list[dict[str, str]]:
    """Fill the prompt ``name`` and return its chat messages (system + user).

    Raises:
        InputError: the template (e.g. an override) uses a variable not in ``values``.
    """
    from noveval.prompts import load

    return load("rinobench", name).render(**values).messages()


def prompt_hashes(names: tuple[str, ...] = PROMPT_NAMES) -> dict[str, str]:
    """Content hash of each prompt in effect (:func:`noveval.prompts.prompt_hashes`), for run configs."""
    from noveval.prompts import prompt_hashes as hashes

    return hashes("rinobench", names)
