"""Prompt templates for RINoBench (package data, our own wording).

Templates are read through :mod:`noveval.prompts` (one layout and syntax for every
system; overridable with ``$NOVEVAL_PROMPTS_DIR/rinobench/``). ``VARIABLES`` says what the
code provides to each template.
"""

from __future__ import annotations

from noveval.prompts import SystemPrompts

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


_PROMPTS = SystemPrompts("rinobench")
render_messages = _PROMPTS.render_messages
"""Fill the prompt ``name`` and return its chat messages (system + user); see :class:`noveval.prompts.SystemPrompts`."""
prompt_hashes = _PROMPTS.prompt_hashes
"""Content hash of each prompt in effect (all of ``PROMPT_NAMES`` by default), for run configs."""
