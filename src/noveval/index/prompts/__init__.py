"""Prompt templates of the index's LLM reranker (package data, our own wording).

``VARIABLES``: what the code provides to each template (see :mod:`noveval.prompts`).
"""

VARIABLES: dict[str, dict[str, str]] = {
    "rerank": {
        "query": "The query text (whitespace collapsed, cut to --query-chars).",
        "candidates": "Numbered candidates, one per line: '[i] title (year): abstract start'.",
        "n": "Number of candidates.",
    },
}
