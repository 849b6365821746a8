"""Prompt templates of the validity study's LLM judges (package data, our own wording).

``VARIABLES``: what the code provides to each template (see :mod:`noveval.prompts`).
"""

_PAPER = {
    "title": "The paper's title.",
    "abstract": "The paper's abstract.",
    "rubric": "RINoBench's 1-5 novelty rubric, one line per score.",
    "related_works": "Numbered prior works, '[i] title (year): abstract', or '(none found)'.",
}

VARIABLES: dict[str, dict[str, str]] = {"rubric": dict(_PAPER), "direct": dict(_PAPER)}
